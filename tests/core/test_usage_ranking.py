"""Usage feeds ranking: a note used after injection rises a little, one always ignored sinks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lorebook.hookconfig import HookConfig
from lorebook.inject.choose import choose
from lorebook.recall.index import IndexedNote, NoteIndex
from lorebook.recall.serve import build_index, usage_weight
from tests.conftest import CliRunner


def note(note_id: str, title: str) -> IndexedNote:
    return IndexedNote(
        id=note_id, path=f"gotcha/{note_id}.md", mtime_ns=0, size=0, status="active",
        kind="gotcha", enforce="warn", title=title, description="How we deploy.",
        body="Deploy with the release script.",
    )  # fmt: skip


TWINS = [
    note("a-deploy", "Deploy on Fridays carefully"),
    note("b-deploy", "Deploy on Fridays carefully"),
]


def test_the_weight_saturates_and_damps_only_the_ignored() -> None:
    assert usage_weight(0, 0) == 1.0
    assert usage_weight(4, 0) == 1.0  # not yet "many times"
    assert usage_weight(5, 0) == pytest.approx(0.9)
    assert usage_weight(1, 1) == pytest.approx(1 + 0.1 / 3)
    assert usage_weight(40, 40) < 1.1


def test_a_used_note_overtakes_its_equal_and_an_ignored_one_sinks(tmp_path: Path) -> None:
    path = str(tmp_path / "index.sqlite")
    build_index(path, TWINS, semantic=False)
    config = HookConfig(semantic=False)
    prompt = "how do we deploy on fridays?"
    with NoteIndex(path) as index:
        assert choose(index, prompt, config).shown[:2] == ["a-deploy", "b-deploy"]  # tie: by id
        used = choose(index, prompt, config, usage={"b-deploy": (3, 2)}).shown
        ignored = choose(index, prompt, config, usage={"a-deploy": (9, 0)}).shown
        unrelated = choose(index, "what is a monad?", config, usage={"a-deploy": (9, 9)}).shown
    assert used[:2] == ["b-deploy", "a-deploy"]
    assert ignored[:2] == ["b-deploy", "a-deploy"]
    assert unrelated == []  # usage never serves a note on its own


def test_eval_reports_the_ranking_with_and_without_usage(tmp_path: Path, cli: CliRunner) -> None:
    notes = tmp_path / "rules"
    notes.mkdir()
    for n in TWINS:
        (notes / f"{n.id}.md").write_text(f"# {n.title}\n\n{n.body}\n", encoding="utf-8")
    queries = tmp_path / "q.jsonl"
    queries.write_text(json.dumps({"query": "deploy fridays", "expected": ["b-deploy.md"]}) + "\n")
    usage = tmp_path / "usage.json"
    usage.write_text(json.dumps({"version": 1, "sessions": {"s": {"b-deploy.md": [3, 3]}}}))
    config = tmp_path / "config.yaml"
    config.write_text("lb_schema: 2\nrecall:\n  semantic: false\n  max_notes: 1\n")
    args = ["eval", "retrieval", "--notes", str(notes), "--queries", str(queries), "--k", "1"]
    out = cli(*args, "--config", str(config), "--usage", str(usage), "--json")
    assert out.exit_code == 0, out.stderr
    measures = out.json()["measures"]["note"]
    assert measures["injected"]["recall_any@1"] == 0.0  # the tie goes to a-deploy.md by id
    assert measures["usage"]["recall_any@1"] == 1.0
