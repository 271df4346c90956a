"""Writing the note index: notes in, packed posting lists and vectors out, one transaction.

Runs on the hook path too (the session-start hook reconciles the index): standard library
only; numpy is used by the embedder, not here.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from itertools import repeat
from operator import rshift

from lorebook.recall import bm25
from lorebook.recall.db import sqlite3
from lorebook.recall.document import DOC_COLUMNS, IndexedNote, note_from_row, pack_body
from lorebook.recall.index import INDEX_VERSION, PRIOR_DOCS, TOTALS_KEY, NoteIndex, Totals
from lorebook.recall.postings import MAX_VALUE, SECTION_BITS, PostingList, key
from lorebook.safeopen import SQLITE_FILES, refuse_links

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable

    from lorebook.recall.bulk import PendingBlobs
    from lorebook.recall.changes import WordChanges
    from lorebook.recall.semantic import Embedder

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS docs (
    num INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, path TEXT NOT NULL,
    mtime_ns INTEGER NOT NULL, size INTEGER NOT NULL, len INTEGER NOT NULL,
    status TEXT NOT NULL, kind TEXT NOT NULL, enforce TEXT NOT NULL, title TEXT NOT NULL,
    description TEXT NOT NULL, body BLOB NOT NULL, extra TEXT NOT NULL,
    sections INTEGER NOT NULL, vec BLOB, reviewed INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS docs_unreviewed ON docs (id) WHERE reviewed = 0;
CREATE TABLE IF NOT EXISTS terms (
    term TEXT NOT NULL UNIQUE, df INTEGER NOT NULL, max_tf INTEGER NOT NULL,
    min_len INTEGER NOT NULL, postings BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS anchors (
    kind TEXT NOT NULL, pattern TEXT NOT NULL, id TEXT NOT NULL,
    prefix TEXT NOT NULL DEFAULT '', suffix TEXT NOT NULL DEFAULT ''
);
CREATE INDEX IF NOT EXISTS anchors_by_id ON anchors (id);
CREATE TABLE IF NOT EXISTS kb_files (
    path TEXT PRIMARY KEY, mtime_ns INTEGER NOT NULL, size INTEGER NOT NULL,
    hash BLOB, problem TEXT, id TEXT, type TEXT, lists TEXT, links TEXT
) WITHOUT ROWID;
"""
"""``terms`` holds one packed posting list per word (:mod:`lorebook.recall.postings`) with
its bounds; ``docs.vec`` each note's unit vector (int8 with a scale), kept again, every
note in number order, in the flat file ``meta`` names (:mod:`lorebook.recall.vectorfile`),
so a prompt compares itself with all of them in place (see :mod:`lorebook.recall.dense`);
``docs.reviewed`` whether a person reviewed the note as it is (:mod:`lorebook.reviewstate`;
0 unless shown, and the few unreviewed ones indexed apart, so a session start finds them);
``kb_files`` every note file as the generated files see it (its content hash, its problem
if it cannot be read, and what ENTRY.md, GRAPH.md and the folder indexes show of it: see
:mod:`lorebook.kb.catalog`), so a writer regenerates them without re-reading every note."""

KB_FILES_COLUMNS = (
    "path", "mtime_ns", "size", "hash", "problem", "id", "type", "lists", "links"
)  # fmt: skip

WILDCARDS = "*?"


def glob_literals(pattern: str) -> tuple[str, str]:
    """The literal text a path must start and end with to match a file glob.

    Stored beside each file anchor, so a pre-tool hook asks the index for the few globs
    whose literals fit the file at hand and compiles only those (``src/**/*.ts`` needs a
    path starting ``src/`` and ending ``.ts``).
    """
    cuts = [i for i, c in enumerate(pattern) if c in WILDCARDS]
    if not cuts:
        return pattern, pattern
    last = cuts[-1]
    if pattern[last - 1 : last + 2] == "**/":
        last += 1  # `**/` may match nothing at all: `**/src` matches `src`
    return pattern[: cuts[0]], pattern[last + 1 :]


class _Known:
    """An indexed note about to change: its number, distinct words, tokens, sections, status."""

    __slots__ = ("num", "sections", "status", "terms", "tokens")

    def __init__(self, num: int, terms: list[str], tokens: int, sections: int, status: str) -> None:
        self.num = num
        self.terms = terms
        self.tokens = tokens
        self.sections = sections
        self.status = status


class IndexWriter(NoteIndex):
    """A writable connection to one index file. Use as a context manager.

    Creates the file, drops an index of another version, and applies changes; reads as
    :class:`~lorebook.recall.index.NoteIndex` does.
    """

    def __init__(self, path: str, *, embedder: Embedder | None = None) -> None:
        self.path = path
        self.embedder = embedder
        """Embeds notes as they are written (None: the index is lexical only)."""
        refuse_links(path, SQLITE_FILES)  # SQLite would write through a committed link
        self.db = sqlite3.connect(path, timeout=10.0)
        try:
            self._migrate()
        except sqlite3.DatabaseError:  # not a database, or a damaged one: the index is a cache
            self.db.close()
            for end in (end for end in SQLITE_FILES if os.path.exists(path + end)):
                os.unlink(path + end)
            self.db = sqlite3.connect(path, timeout=10.0)
        self.db.execute("PRAGMA page_size = 8192")  # fewer half-empty pages of note rows
        self.db.executescript(_SCHEMA)

    def _migrate(self) -> None:
        """Drop an index written by another version; reconcile then rebuilds it."""
        tables = {
            name
            for (name,) in self.db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        }
        if "meta" not in tables:
            return
        row = self.db.execute("SELECT value FROM meta WHERE key = 'version'").fetchone()
        if row is None or row[0] != INDEX_VERSION:
            with self.db:
                for name in sorted(tables):
                    self.db.execute(f'DROP TABLE IF EXISTS "{name}"')
        elif "kb_files" in tables:
            columns = [c[1] for c in self.db.execute("PRAGMA table_info(kb_files)")]
            if columns != list(KB_FILES_COLUMNS):
                with self.db:  # another layout: its rows are refilled by the next reconcile
                    self.db.execute("DROP TABLE kb_files")

    def __enter__(self) -> IndexWriter:
        return self

    def apply(
        self,
        upserts: Iterable[IndexedNote] = (),
        removals: Iterable[str] = (),
        *,
        files: Iterable[tuple[str | int | bytes | None, ...]] = (),
        files_gone: Iterable[str] = (),
    ) -> None:
        """Add or replace notes and remove ids, in one transaction.

        ``files`` are rows of the ``kb_files`` table (:data:`KB_FILES_COLUMNS`, see
        :data:`lorebook.recall.sync.FileRow`) to write beside them, ``files_gone`` the
        paths whose rows go.
        """
        from contextlib import nullcontext  # the write path only: prompts never import them

        from lorebook.recall.changes import PAUSE_GC_NOTES, paused_gc
        from lorebook.recall.vectorfile import remove_vectors

        notes = list({n.id: n for n in upserts}.values())
        gone = sorted(set(removals) - {n.id for n in notes})
        replaced: list[str] = []
        with paused_gc() if len(notes) >= PAUSE_GC_NOTES else nullcontext():
            self._apply_all(notes, gone, list(files), list(files_gone), replaced)
        if replaced:
            remove_vectors(self.path, replaced[0])

    def _apply_all(
        self,
        notes: list[IndexedNote],
        gone: list[str],
        files: list[tuple[str | int | bytes | None, ...]],
        files_gone: list[str],
        replaced: list[str],
    ) -> None:
        from lorebook.recall.vectorfile import remove_vectors

        blobs = self._blobs(notes)
        try:
            self._apply(notes, gone, blobs, files, files_gone, replaced)
        except BaseException:
            if len(replaced) == 2:
                remove_vectors(self.path, replaced[1])  # written, never named
            raise
        finally:
            if not isinstance(blobs, tuple):
                blobs.cancel()  # a child still computing them when the write failed

    def _apply(
        self,
        notes: list[IndexedNote],
        gone: list[str],
        blobs: tuple[list[bytes], list[bytes | None]] | PendingBlobs,
        files: list[tuple[str | int | bytes | None, ...]],
        files_gone: list[str],
        replaced: list[str],
    ) -> None:
        changes: dict[str, WordChanges] = {}
        with self.db:
            self.db.execute("PRAGMA cache_size = -65536")  # 64 MB for the job
            totals = self._totals()
            known = self._known([n.id for n in notes] + gone)
            for note_id in gone:
                if note_id in known:
                    self._forget(note_id, known[note_id], changes, totals)
            next_num = first_new = self._next_num()
            rows, nums = [], []
            for note in notes:
                if note.id in known:
                    num = known[note.id].num
                    self._forget(note.id, known[note.id], changes, totals)
                else:
                    num, next_num = next_num, next_num + 1
                rows.append(self._insert(note, num, changes, totals))
                nums.append(num)
            # The rows go in once bodies and vectors are there (maybe computed meanwhile).
            bodies, vectors = blobs if isinstance(blobs, tuple) else blobs.result()
            self.db.executemany(
                "INSERT INTO docs (num, id, path, mtime_ns, size, len, status, kind, enforce, "
                "title, description, extra, sections, reviewed, body, vec) "
                f"VALUES ({', '.join('?' * 16)})",
                [(*row, *pair) for row, *pair in zip(rows, bodies, vectors, strict=True)],
            )
            self._write_terms(changes, totals)
            self.db.executemany("DELETE FROM kb_files WHERE path = ?", [(p,) for p in files_gone])
            self.db.executemany(
                f"INSERT OR REPLACE INTO kb_files VALUES ({','.join('?' * len(KB_FILES_COLUMNS))})",
                files,
            )
            self._refresh_stats(totals)
            if known or next_num > first_new or self.vectors_missing():
                changed: dict[int, bytes | None] = {known[i].num: None for i in gone if i in known}
                changed.update(zip(nums, vectors, strict=True))
                self._pack_vectors(replaced, changed)

    def _blobs(
        self, notes: list[IndexedNote]
    ) -> tuple[list[bytes], list[bytes | None]] | PendingBlobs:
        """Each note's packed body and its vector as the index keeps it (:meth:`_vectors`).

        For many notes, with numpy, both are computed in a child process while this one
        builds the postings (:class:`lorebook.recall.bulk.PendingBlobs`).
        """
        if self.embedder is not None and self.embedder.matrix is not None:
            from lorebook.recall import bulk

            if len(notes) >= bulk.BACKGROUND_NOTES:
                return bulk.PendingBlobs(self.embedder, notes)
        return [pack_body(n.body) for n in notes], self._vectors(notes)

    def _vectors(self, notes: list[IndexedNote]) -> list[bytes | None]:
        """Each note's vector as the index keeps it (int8), or None without an embedder."""
        if self.embedder is None:
            return [None] * len(notes)
        if self.embedder.matrix is not None:
            from lorebook.recall.bulk import note_vectors, quantize_many

            return [*quantize_many(self.embedder, note_vectors(self.embedder, notes))]
        from lorebook.recall.dense import quantize
        from lorebook.recall.semantic import embed_note

        return [quantize(embed_note(self.embedder, n.head(), n.body)) for n in notes]

    def _known(self, ids: list[str]) -> dict[str, _Known]:
        """Number, distinct words and sizes of the indexed notes among ``ids``."""
        found: dict[str, _Known] = {}
        wanted = sorted(set(ids))
        for start in range(0, len(wanted), 500):
            chunk = wanted[start : start + 500]
            marks = ",".join("?" * len(chunk))
            for row in self.db.execute(
                f"SELECT num, len, sections, {DOC_COLUMNS} FROM docs WHERE id IN ({marks})", chunk
            ):
                old = note_from_row(row[3:])
                terms = sorted({t for part in old.sections()[: 1 << SECTION_BITS] for t in part})
                found[old.id] = _Known(row[0], terms, row[1], row[2], old.status)
        return found

    def _totals(self) -> Totals:
        """The corpus totals as recorded, or counted when the index records none yet."""
        recorded = self._meta(TOTALS_KEY)
        totals = Totals.loads(recorded) if recorded else None
        if totals is not None:
            return totals
        size, tokens, sections = self.db.execute(
            "SELECT COUNT(*), COALESCE(SUM(len), 0), COALESCE(SUM(sections), 0) FROM docs"
        ).fetchone()
        histogram = self.db.execute("SELECT df, COUNT(*) FROM terms GROUP BY df").fetchall()
        statuses = self.db.execute("SELECT status, COUNT(*) FROM docs GROUP BY status").fetchall()
        return Totals(size, tokens, sections, dict(histogram), dict(statuses))

    def _next_num(self) -> int:
        (top,) = self.db.execute("SELECT COALESCE(MAX(num), 0) FROM docs").fetchone()
        return int(top) + 1

    def _forget(
        self, note_id: str, old: _Known, changes: dict[str, WordChanges], totals: Totals
    ) -> None:
        from lorebook.recall.changes import WordChanges

        for term in old.terms:
            changes.setdefault(term, WordChanges()).drop.add(old.num)
        totals.notes -= 1
        totals.tokens -= old.tokens
        totals.sections -= old.sections
        totals.statuses[old.status] = totals.statuses.get(old.status, 0) - 1
        num = old.num
        self.db.execute("DELETE FROM anchors WHERE id = ?", (note_id,))
        self.db.execute("DELETE FROM docs WHERE num = ?", (num,))

    def _insert(
        self,
        note: IndexedNote,
        num: int,
        changes: dict[str, WordChanges],
        totals: Totals,
    ) -> tuple[object, ...]:
        """Add the note's postings and anchors; return its ``docs`` row, less body and vector."""
        from lorebook.recall.changes import WordChanges

        total = 0
        sections = note.sections()[: 1 << SECTION_BITS]
        get = changes.get
        for sec, part in enumerate(sections):
            length = len(part)
            total += length
            counts: Iterable[tuple[str, int]] = Counter(part).items()
            if length > MAX_VALUE:  # tf <= length: one bound clamps both
                counts = [(term, min(tf, MAX_VALUE)) for term, tf in counts]
                length = MAX_VALUE
            base = key(num, sec) << 32 | length << 16
            for term, tf in counts:
                change = get(term)
                if change is None:
                    change = changes[term] = WordChanges()
                change.added.append(base | tf)
        extra = {
            "tags": list(note.tags),
            "superseded_by": list(note.superseded_by),
            "refuted_because": note.refuted_because,
            "anchors": note.anchors,
            "sources": list(note.sources),
        }
        row = (num, note.id, note.path, note.mtime_ns, note.size, total, note.status,
               note.kind, note.enforce, note.title, note.description, json.dumps(extra),
               len(sections), int(note.reviewed))  # fmt: skip
        totals.notes += 1
        totals.tokens += total
        totals.sections += len(sections)
        totals.statuses[note.status] = totals.statuses.get(note.status, 0) + 1
        anchors = [
            (kind, p, note.id, *(glob_literals(p) if kind == "files" else ("", "")))
            for kind, patterns in note.anchors.items()
            for p in patterns
        ]
        if anchors:  # most notes have none: no statement to run
            self.db.executemany(
                "INSERT INTO anchors (kind, pattern, id, prefix, suffix) VALUES (?, ?, ?, ?, ?)",
                anchors,
            )
        return row

    def _write_terms(self, changes: dict[str, WordChanges], totals: Totals) -> None:
        words = sorted(changes)
        old: dict[str, PostingList] = {}
        histogram = totals.histogram
        for start in range(0, len(words), 500):
            chunk = words[start : start + 500]
            marks = ",".join("?" * len(chunk))
            for term, df, blob in self.db.execute(
                f"SELECT term, df, postings FROM terms WHERE term IN ({marks})", chunk
            ):
                old[term] = PostingList.decode(blob)
                histogram[df] -= 1
        gone, kept = [], []
        for term in words:
            merged = changes[term].merged(old.get(term))
            if not merged.keys:
                gone.append((term,))
                continue
            df = len(set(map(rshift, merged.keys, repeat(SECTION_BITS))))
            histogram[df] = histogram.get(df, 0) + 1
            max_tf, min_len = merged.bounds()
            kept.append((term, df, max_tf, min_len, merged.encode()))
        self.db.executemany("DELETE FROM terms WHERE term = ?", gone)
        self.db.executemany(
            "INSERT INTO terms (term, df, max_tf, min_len, postings) VALUES (?, ?, ?, ?, ?) "
            "ON CONFLICT (term) DO UPDATE SET df = excluded.df, max_tf = excluded.max_tf, "
            "min_len = excluded.min_len, postings = excluded.postings",
            kept,
        )

    def _refresh_stats(self, totals: Totals) -> None:
        size, total, sections = totals.notes, totals.tokens, totals.sections
        histogram = sorted((df, n) for df, n in totals.histogram.items() if n)
        # The prior: PRIOR_DOCS documents of average length made only of a token no query
        # holds (see PRIOR_DOCS). BM25Okapi is then computed exactly on notes + prior, with
        # a section's length measured against the average section.
        pad_len = max(1, round(total / sections)) if sections else 1
        corpus = size + PRIOR_DOCS
        avgdl = (total + PRIOR_DOCS * pad_len) / (sections + PRIOR_DOCS)
        avg_idf = bm25.average_idf(corpus, [*histogram, (PRIOR_DOCS, 1)]) if size else 0.0
        table = self.embedder.table if self.embedder is not None else self._meta("pieces")
        rows = [
            ("version", INDEX_VERSION),
            ("notes", str(size)),
            ("corpus_size", str(corpus)),
            ("avgdl", repr(avgdl)),
            ("average_idf", repr(avg_idf)),
            ("pieces", table),
            (TOTALS_KEY, totals.dumps()),
        ]
        self.db.executemany("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", rows)

    def _pack_vectors(self, names: list[str], changed: dict[int, bytes | None]) -> None:
        """Write every note's vector to a new vectors file and name it in ``meta``.

        ``changed`` holds the vectors this write changed (note number -> stored vector, or
        None for a note without one now): they are merged into a copy of the file the index
        names; when that file is missing or damaged, every vector is read from the rows.
        Adds to ``names`` the file replaced ("" for none) and, once written, the new one:
        the caller removes the first once the transaction commits, the second if it fails.
        Files a killed writer left are removed first (this transaction holds the write lock).
        """
        from lorebook.recall.vectorfile import (
            read_vectors,
            sweep_vectors,
            write_changed,
            write_vectors,
        )

        old = self._meta("vectors")
        sweep_vectors(self.path, keep=[old])
        names.append(old)
        try:
            current = read_vectors(self.path, old) if old else None
        except (OSError, ValueError):
            current = None
        if current is not None:
            names.append(write_changed(self.path, current, changed))
        else:
            rows = self.db.execute("SELECT num, vec FROM docs WHERE vec IS NOT NULL ORDER BY num")
            names.append(write_vectors(self.path, rows))
        self.db.execute(
            "INSERT OR REPLACE INTO meta (key, value) VALUES ('vectors', ?)", (names[-1],)
        )
