"""GRAPH.md stays small at any size: origins grouped by source, and a budget it never passes.

Bootstrap on a project with 263 notes wrote a 67 KB GRAPH.md (one heading and one
"derived from" line per note); an agent told to open it pays for all of it.
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath

from lorebook.kb.graph import GRAPH_BUDGET, render_graph
from lorebook.kb.store import Snapshot, StoredNote
from lorebook.models.note import Note
from tests.conftest import CliRunner


def _snapshot(count: int, sources: int, *, edges: bool = False) -> Snapshot:
    snap = Snapshot()
    for n in range(count):
        note_id = f"practice-a-rule-said-in-a-rather-long-sentence-of-documentation-number-{n:04d}"
        related = [
            f"practice-a-rule-said-in-a-rather-long-sentence-of-documentation-number-{0:04d}"
        ]
        note = Note.model_validate(
            {
                "type": "practice",
                "title": f"Rule {n}",
                "description": "d",
                "lb_id": note_id,
                "lb_kind": "convention",
                "lb_derived_from": [f".cursor/rules/rule-file-{n % sources:03d}.mdc#section-{n}"],
                "lb_relates_to": related if edges and n else [],
                "body": "b\n",
            }
        )
        snap.notes[note_id] = StoredNote(note, PurePosixPath(f"convention/{note_id}.md"), None)
    return snap


def test_origins_are_grouped_by_source_not_repeated_per_note() -> None:
    graph = render_graph(_snapshot(263, 40), "sha256:0")
    assert graph.count("rule-file-007.mdc") == 1
    assert "- `.cursor/rules/rule-file-007.mdc` (7 notes): `practice-" in graph
    assert "derived from" not in graph
    assert len(graph.encode()) < 64 * 1024


def test_graph_md_never_passes_its_budget() -> None:
    for snap in (_snapshot(3000, 3000), _snapshot(1500, 10, edges=True)):
        graph = render_graph(snap, "sha256:0")
        assert len(graph) <= GRAPH_BUDGET
        assert "not listed here (GRAPH.md stays within 60,000 characters)" in graph
    small = render_graph(_snapshot(40, 40), "sha256:0", budget=2_000)
    assert len(small) <= 2_000
    assert small.rstrip().endswith("each note's file holds them.")


def test_a_note_added_with_an_origin_is_listed_under_its_source(
    kb_repo: Path, cli: CliRunner
) -> None:
    base = ["--description", "d", "--kind", "convention", "--body", "b"]
    cli("note", "add", "--title", "Alpha", *base, "--derived-from", "AGENTS.md#testing",
        cwd=kb_repo)  # fmt: skip
    cli("note", "add", "--title", "Beta", *base, "--derived-from", "AGENTS.md#style",
        "--relates-to", "convention-alpha", cwd=kb_repo)  # fmt: skip
    graph = (kb_repo / ".lorebook/GRAPH.md").read_text()
    assert "- `AGENTS.md` (2 notes): `convention-alpha`, `convention-beta`" in graph
    assert "## [convention-beta](nodes/convention/convention-beta.md)" in graph
    assert "## [convention-alpha]" not in graph  # no edges of its own: no heading
    assert cli("lint", cwd=kb_repo).exit_code == 0
