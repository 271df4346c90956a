"""Writers that touch only what changed give the bytes a full rebuild gives.

`note add` renders the generated files from the note index's rows (kb/catalog.py) and
only the ones the new note affects; `index rebuild` parses each note once and builds the
note index from what it parsed. Each test compares the result with a fresh rebuild.
"""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

from lorebook.kb.catalog import load_catalog
from lorebook.kb.notes import render_note
from lorebook.kb.paths import KBPaths
from lorebook.kb.store import load_snapshot
from lorebook.models.note import Note
from lorebook.recall.index import index_path
from lorebook.recall.sync import reconcile
from tests.conftest import CliRunner


def _write(repo: Path, folder: str, **fields: object) -> None:
    """A note written straight to disk, as a git pull brings it (no index, no refresh)."""
    note = Note.model_validate({"type": "practice", "lb_kind": "gotcha", **fields})
    target = repo / ".lorebook/nodes" / folder / f"{note.id}.md"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(render_note(note, None), encoding="utf-8")


def _tree(repo: Path) -> dict[str, bytes]:
    """Every markdown file of the knowledge base (notes and generated files)."""
    root = repo / ".lorebook"
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*.md"))}


def _rebuilt(repo: Path, tmp_path: Path, cli: CliRunner, name: str = "rebuilt") -> dict[str, bytes]:
    """The files a full `index rebuild` of a copy of ``repo`` (its index deleted) leaves."""
    copy = tmp_path / name
    shutil.copytree(repo, copy)
    shutil.rmtree(copy / ".lorebook/.cache", ignore_errors=True)
    result = cli("index", "rebuild", cwd=copy)
    assert result.exit_code == 0, result.stderr
    return _tree(copy)


def _add(cli: CliRunner, repo: Path, title: str, *extra: str) -> str:
    result = cli("note", "add", "--title", title, "--description", "When it bites",
                 "--kind", "gotcha", "--body", f"{title}: the body.", *extra, cwd=repo)  # fmt: skip
    assert result.exit_code == 0, result.stderr
    return result.stdout


def test_note_add_writes_what_a_rebuild_writes(
    kb_repo: Path, cli: CliRunner, tmp_path: Path
) -> None:
    for i in range(6):
        _write(kb_repo, f"area-{i % 2}/deep", title=f"Old note {i}", description="Old",
               lb_id=f"practice-old-note-{i}", body=f"Body {i}.")  # fmt: skip
    # Links to a note that does not exist yet, as a teammate's branch may bring them.
    _write(kb_repo, "area-0", title="Waiting", description="Links ahead", lb_id="practice-waiting",
           lb_relates_to=["gotcha-later-note"], lb_derived_from=["docs/x.md"])  # fmt: skip
    _write(kb_repo, "area-1", title="Replaced", description="Gives way", lb_id="practice-replaced",
           lb_status="superseded", lb_superseded_by=["gotcha-later-note"])  # fmt: skip
    assert cli("index", "rebuild", cwd=kb_repo).exit_code == 0
    before = _tree(kb_repo)
    out = _add(cli, kb_repo, "Later note", "--folder", "area-1/new/deeper",
               "--relates-to", "practice-old-note-3")  # fmt: skip
    after = _tree(kb_repo)
    assert after == _rebuilt(kb_repo, tmp_path, cli)
    changed = sorted(rel for rel in after if before.get(rel) != after[rel])
    assert changed == [
        "ENTRY.md",
        "GRAPH.md",
        "nodes/area-0/practice-waiting.md",  # its link is no longer "not found"
        "nodes/area-1/index.md",
        "nodes/area-1/new/deeper/gotcha-later-note.md",
        "nodes/area-1/new/deeper/index.md",
        "nodes/area-1/new/index.md",
        "nodes/area-1/practice-replaced.md",  # and so is its successor
        "nodes/index.md",
    ]
    assert "practice-waiting.md" in out
    assert "(not found)" not in after["nodes/area-0/practice-waiting.md"].decode()


def test_note_add_after_a_hand_edit_regenerates_everything(
    kb_repo: Path, cli: CliRunner, tmp_path: Path
) -> None:
    _add(cli, kb_repo, "First note")
    _add(cli, kb_repo, "Second note", "--folder", "elsewhere")
    assert _tree(kb_repo) == _rebuilt(kb_repo, tmp_path, cli, "after-two")  # GRAPH: hash only
    edited = kb_repo / ".lorebook/nodes/gotcha/gotcha-first-note.md"
    edited.write_text(edited.read_text().replace("title: First note", "title: Renamed"))
    (kb_repo / ".lorebook/nodes/elsewhere/index.md").unlink()  # deleted by hand
    _add(cli, kb_repo, "Third note")
    tree = _tree(kb_repo)
    assert tree == _rebuilt(kb_repo, tmp_path, cli)
    assert "[Renamed]" in tree["nodes/gotcha/index.md"].decode()
    assert "nodes/elsewhere/index.md" in tree


def test_note_add_refuses_an_id_known_only_to_the_index_s_files(
    kb_repo: Path, cli: CliRunner
) -> None:
    _write(kb_repo, "other", title="Clash", description="d", lb_id="gotcha-clash")
    result = cli("note", "add", "--title", "Clash", "--description", "d", "--kind", "gotcha",
                 cwd=kb_repo)  # fmt: skip
    assert result.exit_code == 1
    assert "a note with id 'gotcha-clash' exists already: .lorebook/nodes/other/" in result.stderr
    assert not (kb_repo / ".lorebook/nodes/gotcha/gotcha-clash.md").exists()
    lint = cli("lint", cwd=kb_repo)
    assert lint.exit_code == 0, lint.stdout  # the refused add refreshed the stale indexes


def test_the_catalog_reads_what_the_files_hold(kb_repo: Path) -> None:
    for i in range(4):
        _write(kb_repo, f"f{i % 2}/sub" if i else "", title=f"N {i}", description="d",
               lb_id=f"practice-n-{i}", lb_depends_on=[f"practice-n-{(i + 1) % 4}"],
               lb_derived_from=["claude:s:1"], tags=["x"])  # fmt: skip
    _write(kb_repo, "f1", title="Dup", description="d", lb_id="practice-n-1")
    (kb_repo / ".lorebook/nodes/f0/broken.md").write_text("no frontmatter\n")
    (kb_repo / ".lorebook/nodes/f0/practice-wrong-name.md").write_text(
        render_note(Note.model_validate({"type": "practice", "title": "W", "description": "d",
                                         "lb_id": "practice-other", "lb_kind": "gotcha"}), None)
    )  # fmt: skip
    paths = KBPaths(kb_repo)
    reconcile(paths)
    snap = load_snapshot(paths)
    with sqlite3.connect(index_path(str(paths.root))) as db:
        catalog = load_catalog(paths, db)
    assert catalog.hashes == snap.hashes
    assert catalog.problems == snap.problems
    assert catalog.duplicates == snap.duplicates
    assert [m.path for m in catalog.mismatched] == [m.path for m in snap.mismatched]
    assert list(catalog.notes) == list(snap.notes)
    for note_id, listed in catalog.notes.items():
        stored = snap.notes[note_id]
        assert (listed.path, listed.links, listed.folder) == (
            stored.path,
            stored.links,
            stored.folder,
        )
        shown: tuple[str, ...] = ("id", "type", "title", "description", "kind", "status")
        if note_id in snap.duplicates:
            shown = ("id",)  # one docs row for both files; the generated files refuse them
        for name in shown:
            assert getattr(listed.note, name) == getattr(stored.note, name)
        assert listed.note.edges() == stored.note.edges()
        assert list(listed.note.derived_from) == stored.note.derived_from


def test_rebuild_from_what_it_parsed_builds_the_index_a_walk_builds(
    kb_repo: Path, cli: CliRunner, tmp_path: Path
) -> None:
    for i in range(40):  # past BULK_EMBED: the bulk embedding path when numpy is present
        _write(
            kb_repo,
            f"a{i % 3}",
            title=f"Note about caching {i}",
            description="Cache",
            lb_id=f"practice-cache-{i}",
            body=f"Invalidate the cache {i} times. " * (i % 5),
        )
    assert cli("index", "rebuild", cwd=kb_repo).exit_code == 0
    copy = tmp_path / "walked"
    shutil.copytree(kb_repo, copy)
    shutil.rmtree(copy / ".lorebook/.cache")
    reconcile(KBPaths(copy))  # one note at a time from the files, no snapshot

    def rows(repo: Path) -> list[object]:
        with sqlite3.connect(index_path(str(repo / ".lorebook"))) as db:
            return [
                db.execute("SELECT id, path, size, len, title, body, extra, sections, vec "
                           "FROM docs ORDER BY id").fetchall(),
                db.execute("SELECT term, df, max_tf, min_len FROM terms ORDER BY term").fetchall(),
                db.execute("SELECT * FROM kb_files ORDER BY path")
                .fetchall(),
            ]  # fmt: skip

    assert rows(kb_repo) == rows(copy)
    _bulk_vectors_are_the_one_note_vectors(kb_repo)


def _bulk_vectors_are_the_one_note_vectors(repo: Path) -> None:
    """The numpy path (recall/bulk.py) stores the bytes the one-note path computes."""
    from lorebook.recall.dense import quantize
    from lorebook.recall.document import note_from_row
    from lorebook.recall.index import NoteIndex
    from lorebook.recall.semantic import embed_note, open_embedder

    with NoteIndex(index_path(str(repo / ".lorebook"))) as index:
        one_by_one = open_embedder(index.pieces())
        if one_by_one is None:
            return  # no semantic model installed: the index is lexical only
        from lorebook.recall.document import DOC_COLUMNS

        rows = index.db.execute(f"SELECT vec, {DOC_COLUMNS} FROM docs").fetchall()
        assert rows
        for row in rows:
            note = note_from_row(row[1:])
            assert row[0] == quantize(embed_note(one_by_one, note.head(), note.body)), note.id
        one_by_one.close()


def test_statistics_kept_by_each_write_are_those_of_counting_again(tmp_path: Path) -> None:
    from lorebook.recall.document import IndexedNote
    from lorebook.recall.writer import IndexWriter

    def note(i: int, body: str) -> IndexedNote:
        return IndexedNote(f"practice-n{i}", f"n{i}.md", 0, 0, "active", "gotcha", "none",
                           f"Title {i}", "About caches", body)  # fmt: skip

    words = ["cache", "invalidate", "tenant", "key", "expiry", "warm", "cold", "shard", "replica"]
    kept = tmp_path / "kept.sqlite"
    with IndexWriter(str(kept)) as index:
        index.apply([note(i, " ".join(words[: i + 1]) * (i + 1)) for i in range(8)])
        index.apply([note(3, "shard shard replica"), note(9, "warm")], ["practice-n5"])
        index.apply(removals=["practice-n0", "practice-n9"])
        final = {n: dict(index.db.execute("SELECT key, value FROM meta")) for n in ("meta",)}
        rows = index.get([f"practice-n{i}" for i in range(10)])
    fresh = tmp_path / "fresh.sqlite"
    with IndexWriter(str(fresh)) as index:
        index.apply(rows.values())
        again = dict(index.db.execute("SELECT key, value FROM meta"))
    for key in ("notes", "corpus_size", "avgdl", "average_idf", "totals"):
        assert final["meta"][key] == again[key], key
