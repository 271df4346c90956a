"""Writers that touch only what changed: a note added to 10,000 reads rows, not files.

:func:`add_note` brings the note index in line with ``nodes/`` (a stat walk; only changed
files are read), finds ids in the index's ``kb_files`` rows, writes the note, and renders
from those rows (:class:`~lorebook.kb.catalog.Catalog`) only the generated files the note
affects: its folder's index.md and its parents' (their counts change), ENTRY.md and
GRAPH.md (their hash changes), and the notes that link to it or name it as a successor.
When the generated files were not current before the add (ENTRY.md's hash is not the
notes'), every generated file is rendered from the rows instead, as a rebuild would.
Either way the bytes are those of ``lorebook index rebuild`` (a test compares them).
"""

from __future__ import annotations

import contextlib
import os
import posixpath
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from lorebook.kb.catalog import Catalog, Listed, facts_of, load_catalog, stem, walk_order
from lorebook.kb.fsutil import atomic_write_text, kb_lock
from lorebook.kb.index import Scope, nodes_hash, plan_rebuild, refuse_broken, write_plan
from lorebook.kb.notes import read_note, render_links, render_note
from lorebook.kb.redirects import load_redirects
from lorebook.kb.store import content_hash
from lorebook.kb.summaries import load_summaries
from lorebook.store import NoteExistsError

if TYPE_CHECKING:
    from pathlib import PurePosixPath

    from lorebook.kb.catalog import StoredView
    from lorebook.kb.paths import KBPaths
    from lorebook.models.note import Note


@dataclass(frozen=True, slots=True)
class Refreshed:
    """What a writer changed besides its note."""

    written: tuple[str, ...]
    """Generated files and relinked notes written (paths relative to the repository)."""
    skipped: tuple[str, ...]
    """Errors of the note files left out of the generated files."""


def _catalog(paths: KBPaths) -> Catalog:
    """The index, first brought in line with ``nodes/``, read as a catalog.

    One stat walk of the notes; when the index is current (the usual case) its rows are
    read once, for the check and the catalog alike. Otherwise it is reconciled with that
    walk, and read again.
    """
    from lorebook.recall.index import NoteIndex, index_path
    from lorebook.recall.semantic import ensure_piece_table
    from lorebook.recall.sync import reconcile, settled, walk_nodes

    walk = walk_nodes(str(paths.nodes))
    target = index_path(str(paths.root))
    if os.path.exists(target):
        with contextlib.suppress(sqlite3.Error), NoteIndex(target) as index:
            if settled(index, walk, ensure_piece_table()):
                catalog = load_catalog(paths, index.db, walk[1])
                if catalog is not None:
                    return catalog
    reconcile(paths, walk=walk)
    db = sqlite3.connect(f"file:{target}?mode=ro", uri=True, timeout=10.0)
    try:
        return load_catalog(paths, db)
    finally:
        db.close()


def _reread(paths: KBPaths) -> Callable[[StoredView, str | None], str]:
    """Render a note file with a new link section, from the note as it is on disk."""

    def render(stored: StoredView, links: str | None) -> str:
        rel = stored.path.as_posix()
        return render_note(read_note(paths.nodes / rel, source=paths.rel(paths.nodes / rel)), links)

    return render


def _generated_current(paths: KBPaths, catalog: Catalog) -> bool:
    """Whether ENTRY.md was generated from exactly these notes."""
    digest = nodes_hash(catalog, load_summaries(paths), load_redirects(paths))
    try:
        with paths.entry.open(encoding="utf-8") as handle:
            first = handle.readline()
    except (OSError, UnicodeDecodeError):
        return False
    return f"nodes_hash: {digest} -->" in first


def _refresh(paths: KBPaths, catalog: Catalog, budget: int, scope: Scope | None) -> Refreshed:
    from lorebook.recall.sync import folders_written, index_written

    plan = plan_rebuild(paths, catalog, budget, scope=scope, note_text=_reread(paths))
    written, relinked = write_plan(paths, plan)
    nodes = paths.rel(paths.nodes) + "/"
    for rel in relinked:
        index_written(paths, rel.removeprefix(nodes))
    folders_written(paths, [r.removeprefix(nodes) for r in written if r.startswith(nodes)])
    return Refreshed(
        written=(*written, *plan.remove, *relinked),
        skipped=tuple(p.message for p in catalog.problems),
    )


def _ancestors(folder: str) -> set[str]:
    parts = folder.split("/") if folder else []
    return {"", *("/".join(parts[: i + 1]) for i in range(len(parts)))}


def _scope(catalog: Catalog, note_id: str, folder: str) -> Scope:
    """What adding ``note_id`` in ``folder`` changes besides ENTRY.md and GRAPH.md."""
    folders = _ancestors(folder)
    relink = {note_id}
    for other_id, listed in catalog.notes.items():
        note = listed.note
        if note_id in note.superseded_by:
            folders.add(listed.folder)  # its strike-through now links to the successor
        if note_id in (*note.relates_to, *note.depends_on, *note.supersedes, *note.superseded_by):
            relink.add(other_id)  # its link to the note is no longer "not found"
    added = catalog.notes[note_id].note
    alone = relink == {note_id} and not added.edges() and not added.derived_from
    return Scope(folders=folders, relink=relink, graph_hash_only=alone)


def add_note(
    paths: KBPaths,
    note: Note,
    rel: PurePosixPath,
    budget: int,
    refuse: Callable[[set[str]], None] | None = None,
) -> Refreshed:
    """Write a new note at ``rel`` (under ``nodes/``) and refresh what it affects.

    ``refuse`` gets the ids of every note file and raises to stop the add before anything
    is written (the command's checks of the note's links).

    Raises:
        NoteExistsError: a note file with this id exists (the generated files are then
            refreshed anyway: an add interrupted after its write left them stale).
    """
    from lorebook.kb.paths import resolve_inside
    from lorebook.recall.sync import index_written

    path = resolve_inside(paths.nodes, rel, what="note path")
    with kb_lock(paths.lock):
        catalog = _catalog(paths)
        stems = {r[r.rfind("/") + 1 : -3] for r in catalog.files}  # every name, less ".md"
        if note.id in stems or path.exists():
            same = [r for r in catalog.files if stem(r) == note.id]
            where = min(same, key=walk_order) if same else rel.as_posix()
            _refresh(paths, catalog, budget, None)
            raise NoteExistsError(
                f"a note with id {note.id!r} exists already: {paths.rel(paths.nodes)}/{where}"
            )
        if refuse is not None:
            refuse(stems)
        refuse_broken(catalog, skip_unreadable=True)
        current = _generated_current(paths, catalog)
        links = render_links(note, rel, lambda i: rel if i == note.id else catalog.locate(i))
        text = render_note(note, links)
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(path, text)
        index_written(paths, rel.as_posix())
        catalog.add(Listed(facts_of(note), rel.as_posix(), links), content_hash(text))
        scope = _scope(catalog, note.id, posixpath.dirname(rel.as_posix())) if current else None
        return _refresh(paths, catalog, budget, scope)
