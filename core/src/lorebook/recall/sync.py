"""Keep the persisted index in step with the notes on disk.

Writers call :func:`index_written` after writing a note (write-through); the session-start
hook and ``lorebook index rebuild`` call :func:`reconcile`, which re-reads only the files
whose size or modification time changed since they were indexed.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from pathlib import Path

from lorebook.errors import LorebookError
from lorebook.kb.notes import parse_note, read_note_text
from lorebook.kb.paths import KBPaths
from lorebook.models.note import Note
from lorebook.recall import freshness
from lorebook.recall.index import IndexedNote, NoteIndex, index_path, stat_notes


def to_indexed(note: Note, rel_path: str, mtime_ns: int, size: int) -> IndexedNote:
    """Describe a note for the index (``rel_path`` is relative to ``nodes/``)."""
    anchors = {k: list(v) for k, v in note.anchors.model_dump().items() if v}
    return IndexedNote(
        id=note.id,
        path=rel_path,
        mtime_ns=mtime_ns,
        size=size,
        status=note.status,
        kind=note.kind,
        enforce=note.enforce,
        title=note.title,
        description=note.description,
        body=note.body,
        tags=tuple(note.tags),
        superseded_by=tuple(note.superseded_by),
        refuted_because=note.refuted_because,
        anchors=anchors,
    )


def _read(paths: KBPaths, rel: str) -> IndexedNote | None:
    path = paths.nodes / rel
    try:
        text = read_note_text(path, source=rel)
        stat = path.stat()
        note, _ = parse_note(text, source=rel)
    except (OSError, UnicodeDecodeError, LorebookError):
        return None  # lint reports it; an unreadable note is simply not served
    return to_indexed(note, rel, stat.st_mtime_ns, stat.st_size)


BULK_EMBED = 32
"""Above this many notes to embed, the embedder loads the whole piece table at once."""


def reconcile(paths: KBPaths, *, build_pieces: bool = True) -> tuple[int, int]:
    """Bring the index in line with ``nodes/``; return (notes re-indexed, notes removed).

    Notes are embedded when the semantic model is installed (``lorebook[semantic]``).
    With ``build_pieces`` (every command), the machine's piece table is built if needed
    and an index embedded with another table (or none) is re-embedded whole; the
    session-start hook passes False and embeds changed notes with the table the index
    already names, if any.
    """
    from lorebook.recall import semantic

    times = freshness.folder_times(str(paths.nodes))  # before the walk: a later change shows
    on_disk = stat_notes(str(paths.nodes))
    target = index_path(str(paths.root))
    wanted = semantic.ensure_piece_table() if build_pieces else None
    if os.path.exists(target) and _up_to_date(target, on_disk, wanted, times):
        return (0, 0)  # read-only check: an index that is current is not even opened for writing
    with NoteIndex(target) as index:
        with index.db:
            freshness.record(index.db, times)
        table = wanted or index.pieces()
        known = index.files()
        switch = bool(table) and os.path.exists(table) and index.pieces() != table
        if switch:
            known = {}  # embedded with another table, or not at all: re-embed every note
        removals = [note_id for rel, (note_id, _, _) in known.items() if rel not in on_disk]
        changed = sorted(
            rel for rel, stamp in on_disk.items() if known.get(rel, ("", -1, -1))[1:] != stamp
        )
        if not removals and not changed and not switch:
            return (0, 0)
        upserts = []
        for rel in changed:
            note = _read(paths, rel)
            if note is None:
                if rel in known:
                    removals.append(known[rel][0])
                continue
            upserts.append(note)
        index.embedder = semantic.open_embedder(table, bulk=len(upserts) > BULK_EMBED)
        index.apply(upserts, removals)
        if index.embedder is not None:
            index.embedder.close()
    return (len(upserts), len(removals))


def _up_to_date(
    target: str, on_disk: dict[str, tuple[int, int]], pieces: str | None, times: dict[str, int]
) -> bool:
    try:
        with NoteIndex(target, readonly=True) as index:
            known = index.files()
            current = index.stats() is not None or not on_disk
            current = current and (pieces is None or index.pieces() == pieces)
            current = current and freshness.recorded(index.db) == times
    except sqlite3.Error:
        return False
    return current and {rel: stamp[1:] for rel, stamp in known.items()} == on_disk


def index_written(paths: KBPaths, rel_path: str | None, removed_id: str | None = None) -> None:
    """Update the index after a writer changed one note; a missing index is left to reconcile.

    Args:
        paths: The knowledge base.
        rel_path: The written note, relative to ``nodes/`` (None when only removing).
        removed_id: An id that no longer exists.
    """
    target = index_path(str(paths.root))
    if not os.path.exists(target):
        return
    upserts = []
    if rel_path is not None:
        note = _read(paths, rel_path)
        if note is not None:
            upserts.append(note)
    from lorebook.recall.semantic import open_embedder

    with contextlib.suppress(sqlite3.Error), NoteIndex(target) as index:
        index.embedder = open_embedder(index.pieces())
        index.apply(upserts, [removed_id] if removed_id else [])
        if index.embedder is not None:
            index.embedder.close()
        _restamp(index, str(paths.nodes), rel_path)


def _restamp(index: NoteIndex, nodes: str, rel_path: str | None) -> None:
    """Re-record the times of the folders this writer changed, if the index records any."""
    times = freshness.recorded(index.db)
    if times is None or rel_path is None:
        return
    parts = rel_path.split("/")[:-1]
    folders = [""] + ["/".join(parts[: i + 1]) + "/" for i in range(len(parts))]
    for rel in folders:
        try:
            times[rel] = os.stat(os.path.join(nodes, rel)).st_mtime_ns
        except OSError:
            times.pop(rel, None)
    with index.db:
        freshness.record(index.db, times)


def rebuild_index(paths: KBPaths) -> Path:
    """Build the index from scratch (after deleting a corrupt one); return its path."""
    target = index_path(str(paths.root))
    for suffix in ("", "-journal", "-wal", "-shm"):
        Path(f"{target}{suffix}").unlink(missing_ok=True)
    reconcile(paths)
    return Path(target)
