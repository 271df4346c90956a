"""Generated files: ENTRY.md budget, folder indexes, link sections, redirects."""

from __future__ import annotations

import json
from pathlib import Path

from lorebook.kb.index import rebuild_indexes
from lorebook.kb.lint import lint
from lorebook.kb.paths import KBPaths
from lorebook.kb.redirects import parse_redirects, render_redirects, resolve
from lorebook.kb.store import MarkdownStore
from lorebook.testing import make_note
from tests.conftest import CliRunner


def test_entry_stays_within_budget_at_any_size(kb_repo: Path) -> None:
    store = MarkdownStore(kb_repo)
    for i in range(300):
        store.add(make_note(f"n{i}"), folder=f"area-{i:03d}/sub")
    paths = KBPaths(kb_repo)
    rebuild_indexes(paths, 2000)
    entry = paths.entry.read_text()
    assert len(entry) <= 2000
    assert "300 notes" in entry
    assert "folders not shown here: see [nodes/index.md](nodes/index.md)" in entry
    root_index = (paths.nodes / "index.md").read_text()
    assert root_index.count("- [area-") == 300  # nothing is lost: the root index lists every folder


def test_folder_summaries_show_in_entry_and_indexes(kb_repo: Path, cli: CliRunner) -> None:
    cli(
        "note",
        "add",
        "--title",
        "T",
        "--description",
        "D",
        "--kind",
        "gotcha",
        "--folder",
        "backend/cache",
        cwd=kb_repo,
    )
    assert cli("folder", "describe", "backend", "Server-side code.", cwd=kb_repo).exit_code == 0
    assert cli("folder", "describe", "../x", "nope", cwd=kb_repo).exit_code == 1
    cli("index", "rebuild", cwd=kb_repo)
    assert (
        "- [backend/](nodes/backend/index.md): 1 note. Server-side code."
        in (kb_repo / ".lorebook/ENTRY.md").read_text()
    )
    summaries = (kb_repo / ".lorebook/FOLDER_SUMMARIES.md").read_text()
    assert "- `backend`: Server-side code.\n" in summaries
    assert "Server-side code." in (kb_repo / ".lorebook/nodes/backend/index.md").read_text()


def test_rebuild_removes_indexes_of_emptied_folders_and_relinks_moved_notes(
    kb_repo: Path, cli: CliRunner
) -> None:
    store = MarkdownStore(kb_repo)
    store.add(make_note("a", lb_relates_to=["practice-b"]), folder="one")
    store.add(make_note("b"), folder="two")
    paths = KBPaths(kb_repo)
    rebuild_indexes(paths, 2000)
    note_a = paths.nodes / "one/practice-a.md"
    assert "[practice-b](../two/practice-b.md)" in note_a.read_text()
    (paths.nodes / "three/deeper").mkdir(parents=True)
    (paths.nodes / "two/practice-b.md").rename(paths.nodes / "three/deeper/practice-b.md")
    report = rebuild_indexes(paths, 2000)
    assert ".lorebook/nodes/two/index.md" in report.removed
    assert not (paths.nodes / "two/index.md").exists()
    assert "[practice-b](../three/deeper/practice-b.md)" in note_a.read_text()
    assert lint(paths, 2000).errors == []
    again = rebuild_indexes(paths, 2000)
    assert again.written == ()
    assert again.removed == ()
    assert again.notes_relinked == ()


def test_check_mode_writes_nothing_and_fails_when_stale(kb_repo: Path, cli: CliRunner) -> None:
    assert cli("index", "rebuild", "--check", cwd=kb_repo).exit_code == 0
    cli("note", "add", "--title", "T", "--description", "D", "--kind", "gotcha", cwd=kb_repo)
    note = kb_repo / ".lorebook/nodes/gotcha/gotcha-t.md"
    note.write_text(note.read_text().replace("title: T\n", "title: T edited by hand\n"))
    before = (kb_repo / ".lorebook/ENTRY.md").read_bytes()
    result = cli("index", "rebuild", "--check", "--json", cwd=kb_repo)
    assert result.exit_code == 1
    assert ".lorebook/ENTRY.md" in result.json()["stale"]
    assert (kb_repo / ".lorebook/ENTRY.md").read_bytes() == before


def test_redirects_resolve_transitively_and_edges_to_retired_ids_warn(kb_repo: Path) -> None:
    ledger = {
        "practice-old": ["practice-mid"],
        "practice-mid": ["practice-new"],
        "practice-loop": ["practice-loop"],
    }
    assert resolve(ledger, "practice-old", {"practice-new"}) == ["practice-new"]
    assert resolve(ledger, "practice-loop", {"practice-new"}) == []
    text = render_redirects(ledger)
    assert text.splitlines()[1] == '  "practice-loop": ["practice-loop"],'
    assert parse_redirects(text, source="r") == ledger

    store = MarkdownStore(kb_repo)
    store.add(make_note("new"))
    store.add(make_note("user", lb_relates_to=["practice-old"]))
    paths = KBPaths(kb_repo)
    paths.redirects.write_text(json.dumps({"practice-old": ["practice-new"]}))
    rebuild_indexes(paths, 2000)
    report = lint(paths, 2000)
    assert report.errors == []
    assert any(
        f.code == "retired-edge" and "now practice-new" in f.message for f in report.warnings
    )
    paths.redirects.write_text(json.dumps({"practice-new": ["practice-user"]}))
    codes = {f.code for f in lint(paths, 2000).errors}
    assert "redirect-live-id" in codes
    assert "dangling-edge" in codes
