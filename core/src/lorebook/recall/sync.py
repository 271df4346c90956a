"""Keep the persisted index in step with the notes on disk.

Writers call :func:`index_written` after writing a note (write-through); the session-start
hook and ``lorebook index rebuild`` call :func:`reconcile`, which re-reads only the files
whose size or modification time changed since they were indexed.

Each note is indexed with its review verdict (:mod:`lorebook.reviewstate`): reviewed when
this machine recorded a person's review of exactly its content hash. A reconcile of the
repository's index then asks git which of the unreviewed notes are committed as they are.
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
from lorebook.recall.document import sources_of
from lorebook.recall.index import IndexedNote, NoteIndex, index_path
from lorebook.recall.writer import IndexWriter

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

    from lorebook.kb.store import Snapshot


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
        sources=sources_of(note.derived_from),
    )


FileRow = tuple[str | int | bytes | None, ...]
"""A ``kb_files`` row: path under nodes/, mtime_ns, size, content hash (sha256 bytes),
problem, and the note's facts (:func:`lorebook.kb.catalog.facts_row`; None for a problem)."""
_NO_FACTS = (None,) * 4


def _parse(
    paths: KBPaths,
    rel: str,
    snapshot: Snapshot | None,
    stamp: tuple[int, int],
    reviews: Mapping[str, str],
) -> tuple[IndexedNote | None, FileRow | None]:
    """The note at ``rel`` for the index and its ``kb_files`` row (None: the file is gone).

    A note the ``snapshot`` read at this very stamp is taken from it, not read again. The
    note is reviewed when ``reviews`` (:func:`lorebook.reviewstate.reviews`) holds its id
    with this very content hash.
    """
    from lorebook.kb.catalog import facts_row
    from lorebook.kb.notes import content_hash

    label = f"{paths.rel(paths.nodes)}/{rel}"
    if snapshot is not None and snapshot.stamps.get(rel) == stamp:
        stored = snapshot.by_path.get(rel)
        digest = _raw(snapshot.hashes.get(rel))
        if stored is None:
            return None, (rel, *stamp, digest, snapshot.failed.get(rel, label), *_NO_FACTS)
        note = to_indexed(stored.note, rel, *stamp)
        note.reviewed = reviews.get(note.id) == snapshot.hashes.get(rel)
        return note, (rel, *stamp, digest, None, *facts_row(stored.note, stored.links))
    path = paths.nodes / rel
    digest = None
    try:
        stat = path.stat()  # before the read: a change after it shows in the next walk
        stamp = (stat.st_mtime_ns, stat.st_size)
        text = read_note_text(path, source=label)
        hexdigest = content_hash(text)
        digest = _raw(hexdigest)
        parsed, links = parse_note(text, source=label)
    except FileNotFoundError:
        return None, None
    except (OSError, LorebookError) as exc:
        return None, (rel, *stamp, digest, str(exc), *_NO_FACTS)  # lint reports it; not served
    note = to_indexed(parsed, rel, *stamp)
    note.reviewed = reviews.get(note.id) == hexdigest
    return note, (rel, *stamp, digest, None, *facts_row(parsed, links))


def _raw(digest: str | None) -> bytes | None:
    """A sha256 as the index keeps it (32 bytes, not 64 hex digits)."""
    return None if digest is None else bytes.fromhex(digest)


BULK_EMBED = 32
"""Above this many notes to embed, the embedder loads the whole piece table at once."""


def recorded_files(db: sqlite3.Connection) -> dict[str, tuple[int, int, bool]]:
    """Map path -> (mtime_ns, size, readable) of every note file the index recorded."""
    rows = db.execute("SELECT path, mtime_ns, size, problem IS NULL FROM kb_files")
    return {rel: (mtime, size, bool(ok)) for rel, mtime, size, ok in rows}


def _changed(
    on_disk: dict[str, tuple[int, int]],
    files: dict[str, tuple[int, int, bool]],
    docs: dict[str, tuple[str, int, int]],
) -> list[str]:
    """The files to read again: new or changed since recorded, or a note the docs lack."""
    changed = []
    for rel, stamp in on_disk.items():
        row = files.get(rel)
        if row is None or row[:2] != stamp or (row[2] and docs.get(rel, ("", -1, -1))[1:] != stamp):
            changed.append(rel)
    return sorted(changed)


def walk_nodes(nodes: str) -> tuple[dict[str, int], dict[str, tuple[int, int]]]:
    """Folder times and note file stamps of ``nodes``, in one stat walk.

    Returns the modification time (ns) of ``nodes`` and of every folder under it, by
    relative path (what :mod:`freshness` records), and each note file's (mtime_ns, size)
    by its path under ``nodes`` (POSIX). Each folder's time is taken before its entries
    are listed, so a change made during the walk shows at the next check.
    """
    times: dict[str, int] = {}
    found: dict[str, tuple[int, int]] = {}
    stack = [(nodes, "")]
    while stack:
        folder, prefix = stack.pop()
        try:
            times[prefix] = os.stat(folder).st_mtime_ns
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            name = entry.name
            if name.startswith("."):
                continue
            if entry.is_dir(follow_symlinks=False):
                stack.append((entry.path, f"{prefix}{name}/"))
            elif (
                name.endswith(".md") and name != "index.md" and entry.is_file(follow_symlinks=False)
            ):
                st = entry.stat(follow_symlinks=False)
                found[f"{prefix}{name}"] = (st.st_mtime_ns, st.st_size)
    return times, found


Walk = tuple[dict[str, int], dict[str, tuple[int, int]]]
"""What :func:`walk_nodes` found: folder times, and each note file's (mtime_ns, size)."""


def reconcile(
    paths: KBPaths,
    *,
    build_pieces: bool = True,
    snapshot: Snapshot | None = None,
    walk: Walk | None = None,
) -> tuple[int, int]:
    """Bring the index in line with ``nodes/``; return (notes re-indexed, notes removed).

    Then, for the repository's own index, flag reviewed the notes a person has reviewed
    since they were indexed (:func:`lorebook.reviewstate.refresh`: committed as they are,
    or accepted).

    Notes are embedded when the semantic model is installed (``lorebook[semantic]``).
    With ``build_pieces`` (every command), the machine's piece table is built if needed
    and an index embedded with another table (or none) is re-embedded whole; the
    session-start hook passes False and embeds changed notes with the table the index
    already names, if any. Notes the caller has just read (``snapshot``, from
    :func:`lorebook.kb.store.load_snapshot`) are taken from it when unchanged since.
    ``walk``: the caller's own :func:`walk_nodes` of ``nodes/``, just made.
    """
    done = _reconcile(paths, build_pieces, snapshot, walk)
    if paths.root != paths.repo:  # a repository's .lorebook/, not the personal store
        from lorebook.reviewstate import refresh

        refresh(str(paths.root))
    return done


def _reconcile(
    paths: KBPaths, build_pieces: bool, snapshot: Snapshot | None, walk: Walk | None
) -> tuple[int, int]:
    from lorebook.recall import semantic
    from lorebook.reviewstate import reviews

    times, on_disk = walk if walk is not None else walk_nodes(str(paths.nodes))
    target = index_path(str(paths.root))
    wanted = semantic.ensure_piece_table() if build_pieces else None
    if os.path.exists(target) and _up_to_date(target, on_disk, wanted, times):
        return (0, 0)  # read-only check: an index that is current is not even opened for writing
    with IndexWriter(target) as index:
        with index.db:
            freshness.record(index.db, times)
        table = wanted or index.pieces()
        switch = bool(table) and os.path.exists(table) and index.pieces() != table
        docs = index.files()
        files = recorded_files(index.db)
        # Embedded with another table, or not at all: re-embed every note.
        changed = sorted(on_disk) if switch else _changed(on_disk, files, docs)
        gone = sorted(rel for rel in files.keys() | docs.keys() if rel not in on_disk)
        if not changed and not gone and not switch:
            if index.vectors_missing():
                index.apply()  # repacks them from the notes' rows
            return (0, 0)
        removals = [docs[rel][0] for rel in gone if rel in docs]
        upserts, rows = [], []
        reviewed = reviews(str(paths.root))
        for rel in changed:
            note, row = _parse(paths, rel, snapshot, on_disk[rel], reviewed)
            old_id = docs[rel][0] if rel in docs else None
            if row is None:
                gone.append(rel)
            else:
                rows.append(row)
            if old_id is not None and (note is None or note.id != old_id):
                removals.append(old_id)
            if note is not None:
                upserts.append(note)
        index.embedder = semantic.open_embedder(table, bulk=len(upserts) > BULK_EMBED)
        index.apply(upserts, removals, files=rows, files_gone=gone)
        if index.embedder is not None:
            index.embedder.close()
    return (len(upserts), len(removals))


def _up_to_date(
    target: str, on_disk: dict[str, tuple[int, int]], pieces: str | None, times: dict[str, int]
) -> bool:
    try:
        with NoteIndex(target) as index:
            files = recorded_files(index.db)
            current = settled(index, (times, on_disk), pieces)
    except sqlite3.Error:
        return False
    # The docs rows are written with the kb_files rows, in the same transaction.
    return (
        current
        and len(files) == len(on_disk)
        and all(files.get(rel, (-1, -1))[:2] == stamp for rel, stamp in on_disk.items())
    )


def settled(index: NoteIndex, walk: Walk, pieces: str | None) -> bool:
    """Whether ``index`` is current for ``walk`` in all but its note files' stamps.

    Its statistics exist (unless there are no notes), it was embedded with ``pieces``
    (when given), it recorded these folder times, and its vectors file is there. The
    caller compares the ``kb_files`` stamps with the walk's.
    """
    times, on_disk = walk
    current = index.stats() is not None or not on_disk
    current = current and (pieces is None or index.pieces() == pieces)
    current = current and freshness.recorded(index.db) == times
    return current and not index.vectors_missing()


def index_written(
    paths: KBPaths,
    rel_path: str | None,
    removed_id: str | None = None,
    removed_path: str | None = None,
) -> None:
    """Update the index after a writer changed one note; a missing index is left to reconcile.

    Args:
        paths: The knowledge base.
        rel_path: The written note, relative to ``nodes/`` (None when only removing).
        removed_id: An id that no longer exists.
        removed_path: Where that note was, relative to ``nodes/``.
    """
    target = index_path(str(paths.root))
    if not os.path.exists(target):
        return
    upserts, rows = [], []
    if rel_path is not None:
        from lorebook.reviewstate import reviews

        note, row = _parse(paths, rel_path, None, (-1, -1), reviews(str(paths.root)))
        upserts += [note] if note is not None else []
        rows += [row] if row is not None else []
    from lorebook.recall.semantic import open_embedder

    with contextlib.suppress(sqlite3.Error), IndexWriter(target) as index:
        index.embedder = open_embedder(index.pieces())
        gone = [removed_path] if removed_path else []
        index.apply(upserts, [removed_id] if removed_id else [], files=rows, files_gone=gone)
        if index.embedder is not None:
            index.embedder.close()
        _restamp(index, str(paths.nodes), rel_path or removed_path)


def folders_written(paths: KBPaths, rel_paths: list[str]) -> None:
    """Re-record the times of the folders a writer wrote generated files in (``index.md``).

    A file that is not a note changes nothing the index holds, but its folder's time; the
    next session start would otherwise walk every note to find that out.
    """
    target = index_path(str(paths.root))
    if not rel_paths or not os.path.exists(target):
        return
    with contextlib.suppress(sqlite3.Error), IndexWriter(target) as index:
        for rel in sorted(set(rel_paths)):
            _restamp(index, str(paths.nodes), rel)


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


def rebuild_index(paths: KBPaths, snapshot: Snapshot | None = None) -> Path:
    """Build the index from scratch (after deleting a corrupt one); return its path."""
    target = index_path(str(paths.root))
    for suffix in ("", "-journal", "-wal", "-shm"):
        Path(f"{target}{suffix}").unlink(missing_ok=True)
    reconcile(paths, snapshot=snapshot)
    return Path(target)
