"""`lorebook note supersede` and `note refute`: files, indexes, injection, lint, refusals."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from lorebook.hook import run
from lorebook.kb.notes import read_note
from lorebook.kb.paths import KBPaths
from lorebook.kb.store import MarkdownStore
from lorebook.testing import make_note
from tests.conftest import CliRunner

OLD = "convention-run-tests-with-plain-pytest"
NEW = "convention-run-tests-with-uv-run-pytest"
NODES = ".lorebook/nodes/convention"


def _add(cli: CliRunner, repo: Path, title: str, body: str, *extra: str) -> None:
    args = ["--description", "Running the test suite", "--kind", "convention", "--body", body]
    result = cli("note", "add", "--title", title, *args, *extra, cwd=repo)
    assert result.exit_code == 0, result.stderr


@pytest.fixture
def two(kb_repo: Path, cli: CliRunner) -> Path:
    """A knowledge base with an old and a new way to run the tests, indexes rebuilt."""
    _add(cli, kb_repo, "Run tests with plain pytest", "Call `pytest` directly.")
    _add(cli, kb_repo, "Run tests with uv run pytest", "Call `uv run pytest`: workspace packages.")
    assert cli("index", "rebuild", cwd=kb_repo).exit_code == 0
    return kb_repo


def _note(repo: Path, note_id: str) -> Any:
    return read_note(repo / NODES / f"{note_id}.md")


def _tree(repo: Path) -> dict[str, bytes]:
    root = repo / ".lorebook"
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and not {".state", ".cache"} & set(p.relative_to(root).parts)
    }


def _prompt(repo: Path, monkeypatch: pytest.MonkeyPatch, prompt: str, session: str) -> str:
    """Fire the prompt hook in-process, as a host would; return the injected context."""
    payload = json.dumps({"session_id": session, "cwd": str(repo), "prompt": prompt}).encode()
    out = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(payload), encoding="utf-8"))
    monkeypatch.setattr(sys, "stdout", out)
    modules = {"fake": "tests.core.fake_host_events"}
    assert run(["fake", "Prompt"], repo=str(repo), event_modules=modules) == 0
    out.flush()
    raw = out.buffer.getvalue().decode()
    return str(json.loads(raw)["context"]) if raw else ""


def test_supersede_rewrites_both_notes_indexes_and_injection(
    two: Path, cli: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert "Call `pytest` directly" in _prompt(two, monkeypatch, "how do I run pytest tests", "s1")

    result = cli("note", "supersede", OLD, NEW, cwd=two)
    assert result.exit_code == 0, result.stderr
    assert f"{OLD} is superseded by {NEW}" in result.stdout

    old, new = _note(two, OLD), _note(two, NEW)
    assert (old.status, old.superseded_by) == ("superseded", [NEW])
    assert old.body == "Call `pytest` directly."  # the old text stays, as a record
    assert (new.status, new.supersedes) == ("active", [OLD])
    assert f"- Superseded by: [{NEW}]({NEW}.md)" in (two / NODES / f"{OLD}.md").read_text()

    entry = (two / ".lorebook/ENTRY.md").read_text()
    assert "2 notes (1 active, 1 superseded)" in entry
    index = (two / NODES / "index.md").read_text()
    assert (
        f"- [~~Run tests with plain pytest~~]({OLD}.md) `{OLD}` (convention): Running the test "
        f"suite _(superseded by [{NEW}]({NEW}.md))_"
    ) in index
    graph = (two / ".lorebook/GRAPH.md").read_text()
    assert f"- is superseded by [{NEW}](nodes/convention/{NEW}.md)" in graph

    served = _prompt(two, monkeypatch, "how do I run pytest tests", "s2")
    assert "uv run pytest" in served
    assert "Call `pytest` directly" not in served

    lint = cli("lint", cwd=two)
    assert lint.exit_code == 0, lint.stdout


def test_supersede_again_changes_nothing_and_json_is_one_document(
    two: Path, cli: CliRunner
) -> None:
    first = cli("note", "supersede", OLD, NEW, "--json", cwd=two).json()
    assert first == {
        "ok": True,
        "action": "supersede",
        "already_done": False,
        "written": [f"{NODES}/{OLD}.md", f"{NODES}/{NEW}.md"],
        "indexes_rebuilt": True,
    }
    before = _tree(two)
    again = cli("note", "supersede", OLD, NEW, "--json", cwd=two)
    assert again.json()["already_done"] is True
    assert _tree(two) == before


def test_a_note_can_have_several_successors(two: Path, cli: CliRunner) -> None:
    _add(cli, two, "Run tests with tox", "Call `tox`.")
    assert cli("note", "supersede", OLD, NEW, cwd=two).exit_code == 0
    third = "convention-run-tests-with-tox"
    assert cli("note", "supersede", OLD, third, cwd=two).exit_code == 0
    assert _note(two, OLD).superseded_by == [NEW, third]
    assert _note(two, third).supersedes == [OLD]
    assert cli("lint", cwd=two).exit_code == 0


def _supersede_refused(cli: CliRunner, repo: Path, old: str, new: str, message: str) -> None:
    before = _tree(repo)
    result = cli("note", "supersede", old, new, cwd=repo)
    assert result.exit_code == 1
    assert message in result.stderr
    assert _tree(repo) == before


def test_supersede_refuses_itself_missing_ids_and_inactive_successors(
    two: Path, cli: CliRunner
) -> None:
    _supersede_refused(cli, two, OLD, OLD, f"a note cannot supersede itself ('{OLD}')")
    _supersede_refused(cli, two, OLD, "practice-nope", "NEW 'practice-nope' is not a note")
    _supersede_refused(cli, two, "practice-nope", NEW, "OLD 'practice-nope' is not a note")
    assert cli("note", "supersede", OLD, NEW, cwd=two).exit_code == 0
    _add(cli, two, "Run tests with tox", "Call `tox`.")
    tox = "convention-run-tests-with-tox"
    _supersede_refused(cli, two, tox, OLD, f"NEW '{OLD}' is not active: it is superseded by {NEW}")
    assert cli("note", "refute", tox, "--why", "tox is not installed", cwd=two).exit_code == 0
    _supersede_refused(cli, two, NEW, tox, f"NEW '{tox}' is not active: it is refuted")
    _supersede_refused(cli, two, tox, NEW, f"OLD '{tox}' is refuted (tox is not installed)")


def test_supersede_refuses_a_cycle(kb_repo: Path, cli: CliRunner) -> None:
    store = MarkdownStore(kb_repo)
    # b already records that it replaces a (an edge written by hand, or half a supersede).
    store.add(make_note("a"))
    store.add(make_note("b", lb_supersedes=["practice-a"]))
    _supersede_refused(
        cli,
        kb_repo,
        "practice-b",
        "practice-a",
        "would make a cycle: 'practice-b' already replaces 'practice-a' "
        "(practice-a -> practice-b, each superseded by the next)",
    )


def test_supersede_refuses_when_a_note_is_unreadable(two: Path, cli: CliRunner) -> None:
    (two / NODES / "practice-broken.md").write_text("---\ntype: practice\n---\n")
    _supersede_refused(cli, two, OLD, NEW, "nothing was changed: the knowledge base has notes")


def test_an_interrupted_supersede_is_reported_by_lint_and_completed_by_a_rerun(
    two: Path, cli: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    import lorebook.kb.lifecycle as lifecycle
    from lorebook.kb.fsutil import atomic_write_text as real

    calls: list[Path] = []

    def dies_on_second_write(path: Path, text: str) -> None:
        calls.append(path)
        if len(calls) == 2:
            raise KeyboardInterrupt  # the process is killed between the two writes
        real(path, text)

    monkeypatch.setattr(lifecycle, "atomic_write_text", dies_on_second_write)
    new_before = (two / NODES / f"{NEW}.md").read_bytes()
    with pytest.raises(KeyboardInterrupt):
        lifecycle.supersede(KBPaths(two), OLD, NEW, budget=2000)
    monkeypatch.setattr(lifecycle, "atomic_write_text", real)

    assert _note(two, OLD).status == "superseded"  # OLD first: it already gives way to NEW
    assert (two / NODES / f"{NEW}.md").read_bytes() == new_before  # whole, untouched
    lint = cli("lint", "--json", cwd=two).json()
    codes = {(f["code"], f["path"]) for f in lint["findings"] if f["severity"] == "error"}
    assert ("supersede-mismatch", f"{NODES}/{OLD}.md") in codes
    assert ("stale-generated", ".lorebook/ENTRY.md") in codes
    message = next(f["message"] for f in lint["findings"] if f["code"] == "supersede-mismatch")
    assert f"`lorebook note supersede {OLD} {NEW}`" in message

    rerun = cli("note", "supersede", OLD, NEW, "--json", cwd=two).json()
    assert rerun["written"] == [f"{NODES}/{NEW}.md"]
    assert cli("lint", cwd=two).exit_code == 0


def test_lint_reports_a_supersedes_edge_the_old_note_does_not_record(
    kb_repo: Path, cli: CliRunner
) -> None:
    store = MarkdownStore(kb_repo)
    store.add(make_note("a", lb_relates_to=["practice-b"]))
    store.add(make_note("b", lb_supersedes=["practice-a"]))
    cli("index", "rebuild", cwd=kb_repo)
    lint = cli("lint", cwd=kb_repo)
    assert lint.exit_code == 1
    assert "[supersede-mismatch]" in lint.stdout
    assert "complete it with `lorebook note supersede practice-a practice-b`" in lint.stdout


def test_refute_keeps_the_text_and_stops_serving_the_note(
    two: Path, cli: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    result = cli("note", "refute", OLD, "--why", "  bare pytest misses the workspace  ", cwd=two)
    assert result.exit_code == 0, result.stderr
    note = _note(two, OLD)
    assert (note.status, note.refuted_because) == ("refuted", "bare pytest misses the workspace")
    assert note.body == "Call `pytest` directly."
    assert note.title == "Run tests with plain pytest"
    assert "2 notes (1 active, 1 refuted)" in (two / ".lorebook/ENTRY.md").read_text()
    index = (two / NODES / "index.md").read_text()
    assert f"[~~Run tests with plain pytest~~]({OLD}.md)" in index
    assert "_(refuted: do not follow)_" in index
    served = _prompt(two, monkeypatch, "call pytest directly", "s1")
    assert "Call `pytest` directly" not in served
    assert cli("lint", cwd=two).exit_code == 0

    before = _tree(two)
    same = cli("note", "refute", OLD, "--why", "bare pytest misses the workspace", cwd=two)
    assert same.exit_code == 0
    assert "already" in same.stdout
    assert _tree(two) == before


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ([OLD, "--why", "   "], "--why is empty"),
        (["practice-nope", "--why", "x"], "note 'practice-nope' is not a note"),
    ],
)
def test_refute_refuses_bad_input(two: Path, cli: CliRunner, args: list[str], message: str) -> None:
    before = _tree(two)
    result = cli("note", "refute", *args, cwd=two)
    assert result.exit_code == 1
    assert message in result.stderr
    assert _tree(two) == before


def test_refute_refuses_notes_that_are_not_active(two: Path, cli: CliRunner) -> None:
    assert cli("note", "supersede", OLD, NEW, cwd=two).exit_code == 0
    superseded = cli("note", "refute", OLD, "--why", "x", cwd=two)
    assert superseded.exit_code == 1
    assert f"superseded by {NEW}: outdated, not wrong" in superseded.stderr
    assert cli("note", "refute", NEW, "--why", "uv is not in CI", cwd=two).exit_code == 0
    other = cli("note", "refute", NEW, "--why", "another reason", cwd=two)
    assert other.exit_code == 1
    assert "refuted already: uv is not in CI" in other.stderr
    assert cli("note", "refute", "--why", "x", cwd=two).exit_code == 2  # ID is required


def test_lint_rejects_an_active_note_reasserting_a_refuted_one(two: Path, cli: CliRunner) -> None:
    assert (
        cli("note", "refute", OLD, "--why", "bare pytest misses packages", cwd=two).exit_code == 0
    )
    # The corrected note says something else in the same situation: not a reassertion.
    assert cli("lint", cwd=two).exit_code == 0

    _add(cli, two, "Tests run with plain pytest", "Just `pytest`.", "--id", "practice-again")
    cli("index", "rebuild", cwd=two)
    lint = cli("lint", "--json", cwd=two)
    assert lint.exit_code == 1
    errors = [f for f in lint.json()["findings"] if f["code"] == "reasserts-refuted"]
    assert len(errors) == 1
    assert errors[0]["severity"] == "error"
    assert errors[0]["path"] == f"{NODES}/practice-again.md"
    assert "'practice-again' says again what refuted note" in errors[0]["message"]
    assert f"'{OLD}' ({NODES}/{OLD}.md)" in errors[0]["message"]
    assert "'bare pytest misses packages'" in errors[0]["message"]


def test_a_note_that_names_the_refuted_one_is_a_correction(kb_repo: Path, cli: CliRunner) -> None:
    store = MarkdownStore(kb_repo)
    store.add(
        make_note(
            "cache-tags",
            title="Cache tags are per tenant",
            lb_status="refuted",
            lb_refuted_because="they are shared",
        )
    )
    store.add(make_note("cache-tags-2", title="Cache tags are per tenant"))
    cli("index", "rebuild", cwd=kb_repo)
    assert "[reasserts-refuted]" in cli("lint", cwd=kb_repo).stdout
    store.update(
        make_note(
            "cache-tags-2", title="Cache tags are per tenant", lb_relates_to=["practice-cache-tags"]
        )
    )
    cli("index", "rebuild", cwd=kb_repo)
    assert "[reasserts-refuted]" not in cli("lint", cwd=kb_repo).stdout
