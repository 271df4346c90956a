"""`lorebook eval retrieval --corpus`: a folder of projects, one row each, leave-one-project-out.

The fixture corpus has two projects on the four hand-ranked notes of ``test_eval_retrieval``:
``alpha`` asks all six of its queries, ``beta`` three of them (queries 3, 4 and the refusal).
grep misses query 4 ("uv ci": no word of three letters), so its recall_any@3 is 4/5 on
alpha, 1/2 on beta and 5/7 pooled; plain BM25 finds an expected note for every one.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from lorebook.evaluation.corpus import EvalInputError
from lorebook.evaluation.projects import (
    ServingPlugin,
    load_retrieval_corpus,
    run_corpus,
)
from lorebook.evaluation.queries import Query
from lorebook.evaluation.retrieval import hook_config
from tests.conftest import CliRunner
from tests.core.test_eval_retrieval import NOTES, QUERIES, write_okf, write_queries


def make_corpus(root: Path) -> Path:
    for name, asked in (("alpha", QUERIES), ("beta", [QUERIES[2], QUERIES[3], QUERIES[5]])):
        write_okf(root / name / "notes", NOTES)
        write_queries(root / name / "queries.jsonl", asked)
    (root / "README.md").write_text("not a project\n", encoding="utf-8")
    return root


def test_the_table_has_a_row_per_project_and_the_pooled_row(cli: CliRunner, tmp_path: Path) -> None:
    corpus = make_corpus(tmp_path / "corpus")
    result = cli("eval", "retrieval", "--corpus", str(corpus))
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    head = next(i for i, line in enumerate(lines) if line.startswith("project"))
    rows = {line.split()[0]: line.split() for line in lines[head + 1 : head + 4]}
    assert list(rows) == ["alpha", "beta", "pooled"]
    # notes, answerable, refusal, raw, BM25, grep
    assert rows["alpha"][1:4] == ["4", "5", "1"]
    assert rows["beta"][1:4] == ["4", "2", "1"]
    assert rows["pooled"][1:4] == ["8", "7", "2"]
    assert [rows[p][5:7] for p in rows] == [["1.000", "0.800"], ["1.000", "0.500"],
                                            ["1.000", "0.714"]]  # fmt: skip
    assert "fitted: nothing" in result.stdout
    assert "2 projects, 9 queries" in result.stdout


def test_the_json_document_holds_every_project(cli: CliRunner, tmp_path: Path) -> None:
    corpus = make_corpus(tmp_path / "corpus")
    result = cli("eval", "retrieval", "--corpus", str(corpus), "--json")
    assert result.exit_code == 0, result.stderr
    doc = result.json()
    assert [p["project"] for p in doc["projects"]] == ["alpha", "beta"]
    beta = doc["projects"][1]
    assert beta["systems"]["grep"]["recall_any@3"] == 0.5
    assert beta["served"]["refusals"] == 1
    assert doc["pooled"]["systems"]["grep"]["recall_any@3"] == pytest.approx(5 / 7, abs=1e-4)
    assert doc["fitted"].startswith("fitted: nothing")


def test_a_bad_query_line_names_the_file_and_line(cli: CliRunner, tmp_path: Path) -> None:
    corpus = make_corpus(tmp_path / "corpus")
    bad = corpus / "beta" / "queries.jsonl"
    bad.write_text('{"query": "run pytest", "expected": []}\n{"query": "oops"\n', "utf-8")
    with pytest.raises(EvalInputError, match=r"beta/queries\.jsonl:2: not valid JSON"):
        load_retrieval_corpus(corpus)
    result = cli("eval", "retrieval", "--corpus", str(corpus))
    assert result.exit_code == 1
    assert "beta/queries.jsonl:2: not valid JSON" in result.stderr


def test_an_expected_file_no_note_has_is_named(tmp_path: Path) -> None:
    corpus = make_corpus(tmp_path / "corpus")
    write_queries(corpus / "alpha" / "queries.jsonl", [("run pytest", ["practice-uv.md"])])
    with pytest.raises(EvalInputError, match=r"alpha/queries\.jsonl:1: .*'practice-uv\.md'"):
        load_retrieval_corpus(corpus)


def test_a_project_missing_its_queries_is_named(tmp_path: Path) -> None:
    corpus = make_corpus(tmp_path / "corpus")
    (corpus / "beta" / "queries.jsonl").unlink()
    with pytest.raises(EvalInputError, match=r"beta: no queries\.jsonl beside notes/"):
        load_retrieval_corpus(corpus)
    with pytest.raises(EvalInputError, match=r"no projects"):
        load_retrieval_corpus(corpus / "beta")


def test_corpus_with_notes_is_a_usage_error(cli: CliRunner, tmp_path: Path) -> None:
    corpus = make_corpus(tmp_path / "corpus")
    both = cli("eval", "retrieval", "--corpus", str(corpus), "--notes", str(corpus / "alpha"))
    assert both.exit_code == 2
    assert "--corpus brings its own notes and queries" in both.stderr
    assert cli("eval", "retrieval").exit_code == 2


def test_a_fitting_plugin_is_fitted_on_the_other_projects_only(tmp_path: Path) -> None:
    projects = load_retrieval_corpus(make_corpus(tmp_path / "corpus"))
    fitted_on: list[list[str]] = []

    def fit(training: Sequence[tuple[Path, Sequence[Query]]]) -> list[str]:
        names = [notes.parent.name for notes, _ in training]
        fitted_on.append(names)
        return names

    def measure(notes: Path, queries: Sequence[Query], fitted: Any = None) -> dict[str, Any]:
        assert notes.parent.name not in fitted  # the held-out project is never fitted on
        return {"prompts": len(queries), "share": 1.0 if notes.parent.name == "alpha" else 0.0}

    report = run_corpus(projects, hook_config(None), 3, plugin=ServingPlugin(measure, fit))
    assert fitted_on == [["beta"], ["alpha"]]
    assert [r.plugin for r in report.rows] == [{"prompts": 6, "share": 1.0},
                                               {"prompts": 3, "share": 0.0}]  # fmt: skip
    # counts add up; a fraction is weighted by answerable prompts (5 and 2)
    assert report.pooled.plugin == {"prompts": 9, "share": pytest.approx(5 / 7)}
    assert "other projects only" in report.fitted


def test_a_plugin_gets_the_distractors_or_is_left_out(tmp_path: Path) -> None:
    """With --distractors, a plug-in that cannot take them would measure another store."""
    projects = load_retrieval_corpus(make_corpus(tmp_path / "corpus"))
    extra = write_okf(tmp_path / "extra", {"bake": ("Bake bread", "sourdough", [], "Knead.")})
    given: list[list[Path]] = []

    def with_distractors(
        notes: Path, queries: Sequence[Query], distractors: Sequence[Path] = ()
    ) -> dict[str, Any]:
        given.append(list(distractors))
        return {"prompts": len(queries)}

    def without(notes: Path, queries: Sequence[Query]) -> dict[str, Any]:
        raise AssertionError("called without the distractors")

    config = hook_config(None)
    report = run_corpus(projects, config, 3, plugin=ServingPlugin(with_distractors),
                        distractors=[(extra, "extra")])  # fmt: skip
    assert given == [[extra], [extra]]
    assert report.pooled.plugin == {"prompts": 9}
    assert report.rows[0].notes == 4  # the project's own notes; the distractor is extra
    report = run_corpus(projects, config, 3, plugin=ServingPlugin(without),
                        distractors=[(extra, "extra")])  # fmt: skip
    assert [r.plugin for r in report.rows] == [{}, {}]
    assert report.remarks == [
        "the served-metrics plug-in takes no distractors: its columns are left out"
    ]


def test_the_corpus_of_the_repository_loads_with_its_notes_unchanged() -> None:
    """benchmarks/retrieval: 5+ projects, each 30+ answerable and 10+ refusal prompts, and
    every note file byte for byte the file its SOURCE.json names (sha256)."""
    root = Path(__file__).resolve().parents[2] / "benchmarks" / "retrieval"
    projects = load_retrieval_corpus(root)
    assert len(projects) >= 5
    for project in projects:
        groups = [q.group for q in project.queries]
        assert groups.count("answerable") >= 30, project.name
        assert groups.count("refusal") >= 10, project.name
        source = json.loads((project.notes.parent / "SOURCE.json").read_text("utf-8"))
        assert {"repo", "commit", "licence", "licence_file", "files"} <= set(source)
        files = sorted(p.relative_to(project.notes).as_posix()
                       for p in project.notes.rglob("*") if p.is_file())  # fmt: skip
        assert files == sorted(f["note"] for f in source["files"]), project.name
        for entry in source["files"]:
            data = (project.notes / entry["note"]).read_bytes()
            assert hashlib.sha256(data).hexdigest() == entry["sha256"], entry["note"]


def test_other_projects_join_each_store_as_distractors(cli: CliRunner, tmp_path: Path) -> None:
    """--other-projects: each project's store also holds the others' notes, and says so."""
    corpus = make_corpus(tmp_path / "corpus")
    projects = load_retrieval_corpus(corpus)
    given: list[list[str]] = []

    def measure(
        notes: Path, queries: Sequence[Query], distractors: Sequence[Path] = ()
    ) -> dict[str, Any]:
        given.append([d.parent.name for d in distractors])
        return {}

    report = run_corpus(projects, hook_config(None), 3, plugin=ServingPlugin(measure), others=True)
    assert given == [["beta"], ["alpha"]]  # the plug-in measures the same stores
    assert [r.evalset.distractors for r in report.reports] == [4, 4]
    assert [r.notes for r in report.rows] == [4, 4]  # the project's own notes
    # the other project's copy of a note is another note: its id says whose it is
    served = {i for r in report.reports[0].results for i in r.served["raw"]}
    assert any(i.startswith("beta/") for i in served)
    assert {e for r in report.reports[0].results for e in r.query.expected} <= set(NOTES)
    result = cli("eval", "retrieval", "--corpus", str(corpus), "--other-projects")
    assert result.exit_code == 0, result.stderr
    assert "each project's store also holds the other 1 projects' notes" in result.stdout
    alone = cli("eval", "retrieval", "--notes", str(corpus / "alpha" / "notes"),
                "--queries", str(corpus / "alpha" / "queries.jsonl"), "--other-projects")  # fmt: skip
    assert alone.exit_code == 2
    assert "--other-projects needs --corpus" in alone.stderr


def test_two_projects_notes_folders_stay_apart_as_distractors(tmp_path: Path) -> None:
    """Two projects' notes/ folders holding the same file names are two sets of notes."""
    from lorebook.evaluation.serving import distractor_label

    assert distractor_label(tmp_path / "cline" / "notes") == "cline"
    assert distractor_label(tmp_path / "awesome-rules") == "awesome-rules"
