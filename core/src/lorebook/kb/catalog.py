"""What the generated files know of each note, kept in the note index so writers need not re-read.

ENTRY.md, GRAPH.md and the folder indexes show a few fields of every note (id, type,
title, description, kind, status, edges, origins) and hash every note's content. The
index keeps those per note file in its ``kb_files`` table (with the file's problem when
it cannot be read), written in the same transaction as the note's postings; a
:class:`Catalog` built from those rows stands in for a :class:`~lorebook.kb.store.Snapshot`
when the generated files are rendered, so ``note add`` into 10,000 notes reads rows, not
10,000 files. Both give the same bytes (a test compares them).
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import TYPE_CHECKING, Protocol, overload

from lorebook.models.note import edges_of

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from lorebook.kb.paths import KBPaths
    from lorebook.models.note import Note


@dataclass(frozen=True, slots=True)
class Problem:
    """A file lorebook could not read as a note."""

    path: str
    message: str


@dataclass(slots=True)  # not frozen: a frozen dataclass costs twice as much to build
class Facts:
    """The fields of a note the generated files show (named as :class:`Note` names them)."""

    id: str
    type: str
    title: str
    description: str
    kind: str
    status: str
    relates_to: tuple[str, ...] = ()
    depends_on: tuple[str, ...] = ()
    supersedes: tuple[str, ...] = ()
    superseded_by: tuple[str, ...] = ()
    derived_from: tuple[str, ...] = ()

    def edges(self) -> dict[str, list[str]]:
        """The note's outgoing edges by frontmatter key, as :meth:`Note.edges` gives them."""
        return edges_of(self)


_LISTS = ("relates_to", "depends_on", "supersedes", "superseded_by", "derived_from")


def facts_row(note: Note, links: str | None) -> tuple[str | None, ...]:
    """The ``kb_files`` values of a note with its link section: id, type, lists, links.

    Its title, description, kind and status are the ``docs`` row's (not kept twice).
    """
    lists = [list(getattr(note, name)) for name in _LISTS]
    return (note.id, note.type, json.dumps(lists) if any(lists) else None, links)


_SELECT = (
    "SELECT f.path, f.mtime_ns, f.size, f.hash, f.problem, f.id, f.type, COALESCE(d.title, ''), "
    "COALESCE(d.description, ''), COALESCE(d.kind, ''), COALESCE(d.status, ''), f.lists, "
    "f.links FROM kb_files AS f LEFT JOIN docs AS d ON d.id = f.id"
)
"""Every note file with what the generated files show of it (from ``docs`` by id: two
files with one id, which the generated files refuse anyway, share one row there)."""


def _facts(
    note_id: str, note_type: str, title: str, description: str, kind: str, status: str,
    lists: str | None,
) -> Facts:  # fmt: skip
    if lists is None:
        return Facts(note_id, note_type, title, description, kind, status)
    more = [tuple(values) for values in json.loads(lists)]
    return Facts(note_id, note_type, title, description, kind, status, *more)


def facts_of(note: Note) -> Facts:
    """The facts of a note, as :func:`facts_row` records them."""
    lists = (tuple(getattr(note, name)) for name in _LISTS)
    return Facts(note.id, note.type, note.title, note.description, note.kind, note.status, *lists)


@dataclass(slots=True)
class Listed:
    """A note of the catalog: its facts, where it lives under ``nodes/``, its link section."""

    note: Facts
    rel: str
    """Its path under ``nodes/`` (POSIX)."""
    links: str | None

    @property
    def path(self) -> PurePosixPath:
        """Its path under ``nodes/``."""
        return PurePosixPath(self.rel)

    @property
    def folder(self) -> str:
        """The note's folder relative to ``nodes/`` ("" at the root)."""
        return self.rel.rpartition("/")[0]


def stem(rel: str) -> str:
    """The file name of ``rel`` without its ``.md``: the id the file's name gives."""
    return rel.rpartition("/")[2].removesuffix(".md")


def walk_order(rel: str) -> tuple[tuple[int, str], ...]:
    """Sort key of a path under ``nodes/`` in the order the note walk visits files.

    In each folder its files come first, then its subfolders, each sorted by name.
    """
    parts = rel.split("/")
    return (*((1, p) for p in parts[:-1]), (0, parts[-1]))


@dataclass(slots=True)
class Catalog:
    """Every note as the index recorded it: the same fields a Snapshot offers renderers."""

    notes: dict[str, Listed] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)
    duplicates: dict[str, list[str]] = field(default_factory=dict)
    mismatched: list[Listed] = field(default_factory=list)
    hashes: dict[str, str] = field(default_factory=dict)
    files: list[str] = field(default_factory=list)
    """Every note file's path under ``nodes/``, readable or not (in no particular order)."""

    def locate(self, note_id: str) -> PurePosixPath | None:
        """Return where the note with this id lives, or None."""
        listed = self.notes.get(note_id)
        return None if listed is None else listed.path

    def add(self, listed: Listed, digest: str) -> None:
        """Take in a note just written (the index records it the same way)."""
        self.files.append(listed.rel)
        self.hashes[listed.rel] = digest
        self.notes[listed.note.id] = listed
        self.notes = dict(sorted(self.notes.items()))


@overload
def load_catalog(paths: KBPaths, db: sqlite3.Connection) -> Catalog: ...
@overload
def load_catalog(
    paths: KBPaths, db: sqlite3.Connection, on_disk: Mapping[str, tuple[int, int]]
) -> Catalog | None: ...
def load_catalog(
    paths: KBPaths, db: sqlite3.Connection, on_disk: Mapping[str, tuple[int, int]] | None = None
) -> Catalog | None:
    """The catalog the index ``db`` holds (as :func:`load_snapshot` would read the files).

    ``on_disk``: each note file's (mtime_ns, size) as just walked; then None when the index
    recorded other files, or one at another stamp (it is not current: reconcile it first).
    The same rows answer both, so a writer reads the ``kb_files`` table once.
    """
    rows = db.execute(_SELECT).fetchall()
    if on_disk is not None and len(rows) != len(on_disk):
        return None
    catalog = Catalog()
    prefix = paths.rel(paths.nodes)
    twins: dict[str, list[Listed]] = {}
    for row in rows:
        rel, mtime, size, digest, problem, note_id, kind_of, title, text, kind, status = row[:11]
        if on_disk is not None and on_disk.get(rel) != (mtime, size):
            return None
        lists, links = row[11:]
        catalog.files.append(rel)
        if digest is not None:
            catalog.hashes[rel] = digest.hex()
        if problem is not None or note_id is None:
            catalog.problems.append(Problem(f"{prefix}/{rel}", problem or f"{prefix}/{rel}"))
            continue
        listed = Listed(_facts(note_id, kind_of, title, text, kind, status, lists), rel, links)
        if stem(rel) != note_id:
            catalog.mismatched.append(listed)
        first = catalog.notes.setdefault(note_id, listed)
        if first is not listed:
            twins.setdefault(note_id, [first]).append(listed)
    # Only where order shows (which of two files with one id counts, lists of problems)
    # is the walk's order needed: sorting every row costs more than the rest of the load.
    for note_id, found in twins.items():
        found.sort(key=lambda listed: walk_order(listed.rel))
        catalog.notes[note_id] = found[0]
        catalog.duplicates[note_id] = [f"{prefix}/{listed.rel}" for listed in found]
    catalog.problems.sort(key=lambda problem: walk_order(problem.path))
    catalog.mismatched.sort(key=lambda listed: walk_order(listed.rel))
    catalog.notes = dict(sorted(catalog.notes.items()))
    return catalog


class NoteView(Protocol):
    """What the generated files read of a note: a :class:`Note` or its :class:`Facts`."""

    @property
    def id(self) -> str: ...  # noqa: D102
    @property
    def type(self) -> str: ...  # noqa: D102
    @property
    def title(self) -> str: ...  # noqa: D102
    @property
    def description(self) -> str: ...  # noqa: D102
    @property
    def kind(self) -> str: ...  # noqa: D102
    @property
    def status(self) -> str: ...  # noqa: D102
    @property
    def relates_to(self) -> Sequence[str]: ...  # noqa: D102
    @property
    def depends_on(self) -> Sequence[str]: ...  # noqa: D102
    @property
    def supersedes(self) -> Sequence[str]: ...  # noqa: D102
    @property
    def superseded_by(self) -> Sequence[str]: ...  # noqa: D102
    @property
    def derived_from(self) -> Sequence[str]: ...  # noqa: D102
    def edges(self) -> dict[str, list[str]]: ...  # noqa: D102


class StoredView(Protocol):
    """A note with where it lives: a :class:`StoredNote` or a :class:`Listed`."""

    @property
    def note(self) -> NoteView: ...  # noqa: D102
    @property
    def path(self) -> PurePosixPath: ...  # noqa: D102
    @property
    def links(self) -> str | None: ...  # noqa: D102
    @property
    def folder(self) -> str: ...  # noqa: D102


class NotesView(Protocol):
    """Every note, read from the files (a Snapshot) or from the index (a Catalog)."""

    @property
    def notes(self) -> Mapping[str, StoredView]: ...  # noqa: D102
    @property
    def hashes(self) -> Mapping[str, str]: ...  # noqa: D102
    def locate(self, note_id: str) -> PurePosixPath | None: ...  # noqa: D102
