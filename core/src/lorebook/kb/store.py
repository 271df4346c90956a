"""The markdown store: notes as files under ``.lorebook/nodes/<folder>/<id>.md``."""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from lorebook.errors import NoteFormatError, UnsafePathError
from lorebook.kb.catalog import Problem
from lorebook.kb.fsutil import atomic_write_text, kb_lock
from lorebook.kb.notes import (
    content_hash,
    parse_note,
    read_note_text,
    render_links,
    render_note,
)
from lorebook.kb.paths import KBPaths, resolve_inside, validate_relpath
from lorebook.models.note import Note
from lorebook.store import NoteExistsError, NoteNotFoundError

INDEX_NAME = "index.md"


@dataclass(frozen=True, slots=True)
class StoredNote:
    """A note with where it lives (relative to ``nodes/``) and its current link section."""

    note: Note
    path: PurePosixPath
    links: str | None

    @property
    def folder(self) -> str:
        """The note's folder relative to ``nodes/`` ("" at the root)."""
        parent = self.path.parent.as_posix()
        return "" if parent == "." else parent


@dataclass(slots=True)
class Snapshot:
    """Every note of the knowledge base, read once, with what could not be read."""

    notes: dict[str, StoredNote] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)
    duplicates: dict[str, list[str]] = field(default_factory=dict)
    mismatched: list[StoredNote] = field(default_factory=list)
    hashes: dict[str, str] = field(default_factory=dict)
    """sha256 of every readable note file (link section excluded), by path under nodes/."""
    stamps: dict[str, tuple[int, int]] = field(default_factory=dict)
    """(mtime_ns, size) of every file read, taken before it was read, by path."""
    by_path: dict[str, StoredNote] = field(default_factory=dict)
    """Every note parsed, duplicates included, by path under nodes/."""
    failed: dict[str, str] = field(default_factory=dict)
    """The error of every file that could not be read or parsed, by path under nodes/."""

    def locate(self, note_id: str) -> PurePosixPath | None:
        """Return where the note with this id lives, or None."""
        stored = self.notes.get(note_id)
        return None if stored is None else stored.path


def walk_note_files(nodes: Path) -> Iterator[tuple[PurePosixPath, Path | None, str | None]]:
    """Yield (relative path, file, problem) for every markdown file under ``nodes/``.

    Generated ``index.md`` files and dot-files are skipped; symlinks are never followed
    and are reported as problems. Order is sorted by path, so output is deterministic.
    """
    if not nodes.is_dir():
        return
    for dirpath, dirnames, filenames in os.walk(nodes, followlinks=False):
        base = Path(dirpath)
        rel_dir = PurePosixPath(base.relative_to(nodes).as_posix())
        kept = []
        for name in sorted(dirnames):
            if name.startswith("."):
                continue
            if (base / name).is_symlink():
                yield rel_dir / name, None, "is a symbolic link; lorebook does not follow it"
                continue
            kept.append(name)
        dirnames[:] = kept
        for name in sorted(filenames):
            if name.startswith(".") or not name.endswith(".md") or name == INDEX_NAME:
                continue
            rel = rel_dir / name if rel_dir.as_posix() != "." else PurePosixPath(name)
            path = base / name
            if path.is_symlink():
                yield rel, None, "is a symbolic link; lorebook does not follow it"
                continue
            yield rel, path, None


def _note_entries(nodes: str) -> Iterator[tuple[str, os.DirEntry[str] | None, str | None]]:
    """:func:`walk_note_files` by ``os.scandir``: (path under nodes/, entry, problem).

    The same files in the same order; each entry carries the stat the walk made, so the
    snapshot's stamps cost no extra system call.
    """
    stack: list[tuple[str, str]] = [(nodes, "")]
    while stack:
        folder, prefix = stack.pop()
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except (FileNotFoundError, NotADirectoryError):
            continue
        dirs = []
        for entry in entries:  # as os.walk sorts them: a link to a folder is a folder
            if not entry.name.startswith(".") and entry.is_dir():
                if entry.is_symlink():
                    yield f"{prefix}{entry.name}", None, _SYMLINK
                else:
                    dirs.append((entry.path, f"{prefix}{entry.name}/"))
        for entry in entries:
            name = entry.name
            if name.startswith(".") or not name.endswith(".md") or name == INDEX_NAME:
                continue
            if entry.is_dir():
                continue
            yield (
                f"{prefix}{name}",
                None if entry.is_symlink() else entry,
                (_SYMLINK if entry.is_symlink() else None),
            )
        stack.extend(reversed(dirs))


_SYMLINK = "is a symbolic link; lorebook does not follow it"


def load_snapshot(paths: KBPaths) -> Snapshot:
    """Read every note once; invalid files become problems, not exceptions."""
    snap = Snapshot()
    seen: dict[str, list[str]] = {}
    base = paths.rel(paths.nodes)
    for where, entry, problem in _note_entries(str(paths.nodes)):
        label = f"{base}/{where}"
        if problem is not None or entry is None:
            snap.problems.append(Problem(label, f"{label} {problem}"))
            continue
        try:
            stat = entry.stat(follow_symlinks=False)  # before the read: a change shows later
            snap.stamps[where] = (stat.st_mtime_ns, stat.st_size)
            text = read_note_text(entry.path, source=label)
            snap.hashes[where] = content_hash(text)
            note, links = parse_note(text, source=label)
        except (NoteFormatError, OSError) as exc:
            snap.problems.append(Problem(label, str(exc)))
            snap.failed[where] = str(exc)
            continue
        stored = snap.by_path[where] = StoredNote(note, PurePosixPath(where), links)
        if where.rpartition("/")[2][:-3] != note.id:
            snap.mismatched.append(stored)
        seen.setdefault(note.id, []).append(label)
        snap.notes.setdefault(note.id, stored)
    snap.duplicates = {k: v for k, v in seen.items() if len(v) > 1}
    snap.notes = dict(sorted(snap.notes.items()))
    return snap


class MarkdownStore:
    """The repository knowledge base as a :class:`~lorebook.store.NoteStore`.

    Every write holds the knowledge base lock and replaces files atomically, so concurrent
    hooks and commands never tear a note or lose one.
    """

    name = "markdown"

    def __init__(self, repo: Path, *, paths: KBPaths | None = None, name: str = "markdown") -> None:
        """Open the store of ``repo``; ``paths`` gives another layout (the personal store)."""
        self.paths = paths or KBPaths(Path(repo))
        self.name = name

    # --- reading ----------------------------------------------------------------------

    def _scan(self) -> dict[str, PurePosixPath]:
        """Map id -> path from file names alone (a stat walk, no file is read)."""
        found: dict[str, PurePosixPath] = {}
        for rel, path, problem in walk_note_files(self.paths.nodes):
            if problem is None and path is not None:
                found.setdefault(rel.stem, rel)
        return found

    def locate(self, note_id: str) -> PurePosixPath | None:
        """Return the note's path relative to ``nodes/``, or None."""
        return self._scan().get(note_id)

    def get(self, note_id: str) -> Note:
        """Return the note with this id (see :class:`~lorebook.store.NoteStore`)."""
        rel = self.locate(note_id)
        if rel is None:
            raise NoteNotFoundError(note_id)
        label = f"{self.paths.rel(self.paths.nodes)}/{rel.as_posix()}"
        text = read_note_text(self.paths.nodes / rel, source=label)
        return parse_note(text, source=label)[0]

    def ids_present(self, wanted: list[str]) -> set[str]:
        """The ids among ``wanted`` that name a note file (a stat walk, no file is read)."""
        return set(wanted) & set(self._scan())

    def ids(self) -> list[str]:
        """Return every note id, sorted."""
        return sorted(self._scan())

    def iter_notes(self) -> Iterator[Note]:
        """Yield every valid note in id order (invalid files are lint's business)."""
        for stored in load_snapshot(self.paths).notes.values():
            yield stored.note

    # --- writing ----------------------------------------------------------------------

    def _target(self, folder: str, note_id: str) -> tuple[PurePosixPath, Path]:
        validate_relpath(note_id, what="note id")
        rel = PurePosixPath(f"{note_id}.md")
        if folder:
            rel = validate_relpath(folder, what="folder") / rel
        return rel, resolve_inside(self.paths.nodes, rel, what="note path")

    def _write(self, note: Note, rel: PurePosixPath, path: Path) -> None:
        scan = self._scan()
        scan[note.id] = rel
        links = render_links(note, rel, scan.get)
        atomic_write_text(path, render_note(note, links))
        from lorebook.recall.sync import index_written

        index_written(self.paths, rel.as_posix())

    def add(self, note: Note, *, folder: str | None = None) -> str:
        """Write a new note to ``folder`` (default: the folder named after its kind)."""
        folder = note.kind if folder is None else folder.rstrip("/")
        self.paths.nodes.mkdir(parents=True, exist_ok=True)
        rel, path = self._target(folder, note.id)
        with kb_lock(self.paths.lock):
            existing = self.locate(note.id)
            if existing is not None or path.exists():
                where = existing or rel
                raise NoteExistsError(
                    f"a note with id {note.id!r} exists already: "
                    f"{self.paths.rel(self.paths.nodes)}/{where.as_posix()}"
                )
            self._write(note, rel, path)
        return self.paths.rel(path)

    def update(self, note: Note) -> None:
        """Rewrite the note with the same id where it lives."""
        with kb_lock(self.paths.lock):
            rel = self.locate(note.id)
            if rel is None:
                raise NoteNotFoundError(note.id)
            folder = rel.parent.as_posix()
            rel, path = self._target("" if folder == "." else folder, note.id)
            self._write(note, rel, path)

    def remove(self, note_id: str) -> None:
        """Delete the note with this id."""
        with kb_lock(self.paths.lock):
            rel = self.locate(note_id)
            if rel is None:
                raise NoteNotFoundError(note_id)
            path = resolve_inside(self.paths.nodes, rel, what="note path")
            path.unlink()
            from lorebook.recall.sync import index_written

            index_written(self.paths, None, removed_id=note_id, removed_path=rel.as_posix())


def open_store(repo: Path) -> MarkdownStore:
    """Build the markdown store for a repository (the store provider's factory)."""
    store = MarkdownStore(repo)
    if store.paths.nodes.is_symlink():
        raise UnsafePathError(f"{store.paths.rel(store.paths.nodes)} is a symbolic link")
    return store


__all__ = [
    "MarkdownStore",
    "Problem",
    "Snapshot",
    "StoredNote",
    "content_hash",
    "load_snapshot",
    "open_store",
    "walk_note_files",
]
