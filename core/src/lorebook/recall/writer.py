"""Writing the note index: notes in, packed posting lists and vectors out, one transaction.

Runs on the hook path too (the session-start hook reconciles the index): standard library
only; numpy is used by the embedder, not here.
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections import Counter

from lorebook.recall import bm25
from lorebook.recall.document import DOC_COLUMNS, IndexedNote, note_from_row, pack_body
from lorebook.recall.postings import SECTION_BITS, PostingList, key, merge

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable

    from lorebook.recall.semantic import Embedder

INDEX_VERSION = "11"
INDEX_NAME = "index.sqlite"
PRIOR_DOCS = 16
"""Documents of average length, holding no query term, added to the corpus BM25 sees.

BM25's idf cannot rank a small corpus: with two notes, a term found in one of them has an
idf of exactly 0, and a knowledge base of five notes scores every match below any useful
floor. These virtual documents are a fixed prior that keeps idf meaningful while the
knowledge base is small and fades as it grows (16 among 10,000 notes change nothing).
Scores are still BM25Okapi, computed exactly on the notes plus these documents."""

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS docs (
    num INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, path TEXT NOT NULL,
    mtime_ns INTEGER NOT NULL, size INTEGER NOT NULL, len INTEGER NOT NULL,
    status TEXT NOT NULL, kind TEXT NOT NULL, enforce TEXT NOT NULL, title TEXT NOT NULL,
    description TEXT NOT NULL, body BLOB NOT NULL, extra TEXT NOT NULL,
    sections INTEGER NOT NULL, vec BLOB
);
CREATE TABLE IF NOT EXISTS terms (
    term TEXT NOT NULL UNIQUE, df INTEGER NOT NULL, max_tf INTEGER NOT NULL,
    min_len INTEGER NOT NULL, postings BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS anchors (
    kind TEXT NOT NULL, pattern TEXT NOT NULL, id TEXT NOT NULL,
    prefix TEXT NOT NULL DEFAULT '', suffix TEXT NOT NULL DEFAULT ''
);
CREATE INDEX IF NOT EXISTS anchors_by_id ON anchors (id);
CREATE TABLE IF NOT EXISTS vectors (
    first INTEGER PRIMARY KEY, nums BLOB NOT NULL, inverse BLOB NOT NULL, ints BLOB NOT NULL
);
"""
"""``terms`` holds one packed posting list per word (:mod:`lorebook.recall.postings`) with
its bounds; ``docs.vec`` each note's unit vector (int8 with a scale); ``vectors`` every
note's vector again, packed in note-number order, a few thousand notes a row, so a prompt
compares itself with all of them in compiled code (see :mod:`lorebook.recall.dense`)."""

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


class _Changes:
    """Per word: the notes whose postings go, and the postings that come."""

    __slots__ = ("add", "drop")

    def __init__(self) -> None:
        self.drop: set[int] = set()
        self.add: list[tuple[int, int, int]] = []


class IndexWriter:
    """Opens the index file, migrates a foreign version, and applies changes."""

    def __init__(
        self, path: str, *, readonly: bool = False, embedder: Embedder | None = None
    ) -> None:
        self.path = path
        self.embedder = embedder
        """Embeds notes as they are written (None: the index is lexical only)."""
        if readonly:
            if not os.path.exists(path):
                raise FileNotFoundError(f"no note index at {path}; it is built at session start")
            self.db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=2.0)
        else:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            self.db = sqlite3.connect(path, timeout=10.0)
            self.db.execute("PRAGMA page_size = 8192")  # fewer half-empty pages of note rows
            self._migrate()
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

    def __enter__(self) -> IndexWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.db.close()

    def apply(self, upserts: Iterable[IndexedNote] = (), removals: Iterable[str] = ()) -> None:
        """Add or replace notes and remove ids, in one transaction."""
        notes = list({n.id: n for n in upserts}.values())
        gone = sorted(set(removals) - {n.id for n in notes})
        changes: dict[str, _Changes] = {}
        with self.db:
            self.db.execute("PRAGMA cache_size = -65536")  # 64 MB for the job
            known = self._known([n.id for n in notes] + gone)
            for note_id in gone:
                if note_id in known:
                    self._forget(note_id, *known[note_id], changes)
            next_num = self._next_num()
            for note in notes:
                if note.id in known:
                    num, terms = known[note.id]
                    self._forget(note.id, num, terms, changes)
                else:
                    num, next_num = next_num, next_num + 1
                self._insert(note, num, changes)
            self._write_terms(changes)
            self._refresh_stats()

    def _known(self, ids: list[str]) -> dict[str, tuple[int, list[str]]]:
        """Number and distinct words of the indexed notes among ``ids``."""
        found: dict[str, tuple[int, list[str]]] = {}
        wanted = sorted(set(ids))
        for start in range(0, len(wanted), 500):
            chunk = wanted[start : start + 500]
            marks = ",".join("?" * len(chunk))
            for row in self.db.execute(
                f"SELECT num, {DOC_COLUMNS} FROM docs WHERE id IN ({marks})", chunk
            ):
                old = note_from_row(row[1:])
                terms = sorted({t for part in old.sections()[: 1 << SECTION_BITS] for t in part})
                found[old.id] = (row[0], terms)
        return found

    def _next_num(self) -> int:
        (top,) = self.db.execute("SELECT COALESCE(MAX(num), 0) FROM docs").fetchone()
        return int(top) + 1

    def _forget(
        self, note_id: str, num: int, terms: list[str], changes: dict[str, _Changes]
    ) -> None:
        for term in terms:
            changes.setdefault(term, _Changes()).drop.add(num)
        self.db.execute("DELETE FROM anchors WHERE id = ?", (note_id,))
        self.db.execute("DELETE FROM docs WHERE num = ?", (num,))

    def _insert(self, note: IndexedNote, num: int, changes: dict[str, _Changes]) -> None:
        sections = [Counter(part) for part in note.sections()[: 1 << SECTION_BITS]]
        for sec, counts in enumerate(sections):
            length = sum(counts.values())
            section_key = key(num, sec)
            for term, tf in counts.items():
                change = changes.get(term)
                if change is None:
                    change = changes[term] = _Changes()
                change.add.append((section_key, tf, length))
        extra = {
            "tags": list(note.tags),
            "superseded_by": list(note.superseded_by),
            "refuted_because": note.refuted_because,
            "anchors": note.anchors,
        }
        vec = None
        if self.embedder is not None:
            from lorebook.recall.dense import quantize
            from lorebook.recall.semantic import embed_note

            vec = quantize(embed_note(self.embedder, note.head(), note.body))
        self.db.execute(
            "INSERT INTO docs (num, id, path, mtime_ns, size, len, status, kind, enforce, title, "
            "description, body, extra, sections, vec) "
            f"VALUES ({', '.join('?' * 15)})",
            (num, note.id, note.path, note.mtime_ns, note.size,
             sum(sum(c.values()) for c in sections), note.status, note.kind, note.enforce,
             note.title, note.description, pack_body(note.body), json.dumps(extra), len(sections),
             vec),
        )  # fmt: skip
        self.db.executemany(
            "INSERT INTO anchors (kind, pattern, id, prefix, suffix) VALUES (?, ?, ?, ?, ?)",
            [
                (kind, p, note.id, *(glob_literals(p) if kind == "files" else ("", "")))
                for kind, patterns in note.anchors.items()
                for p in patterns
            ],
        )

    def _write_terms(self, changes: dict[str, _Changes]) -> None:
        words = sorted(changes)
        old: dict[str, PostingList] = {}
        for start in range(0, len(words), 500):
            chunk = words[start : start + 500]
            marks = ",".join("?" * len(chunk))
            for term, blob in self.db.execute(
                f"SELECT term, postings FROM terms WHERE term IN ({marks})", chunk
            ):
                old[term] = PostingList.decode(blob)
        gone, kept = [], []
        for term in words:
            merged = merge(old.get(term), changes[term].drop, changes[term].add)
            if not merged.keys:
                gone.append((term,))
                continue
            df = len({k >> SECTION_BITS for k in merged.keys})
            max_tf, min_len = merged.bounds()
            kept.append((term, df, max_tf, min_len, merged.encode()))
        self.db.executemany("DELETE FROM terms WHERE term = ?", gone)
        self.db.executemany(
            "INSERT INTO terms (term, df, max_tf, min_len, postings) VALUES (?, ?, ?, ?, ?) "
            "ON CONFLICT (term) DO UPDATE SET df = excluded.df, max_tf = excluded.max_tf, "
            "min_len = excluded.min_len, postings = excluded.postings",
            kept,
        )

    def _refresh_stats(self) -> None:
        size, total, sections = self.db.execute(
            "SELECT COUNT(*), COALESCE(SUM(len), 0), COALESCE(SUM(sections), 0) FROM docs"
        ).fetchone()
        histogram = self.db.execute("SELECT df, COUNT(*) FROM terms GROUP BY df").fetchall()
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
        ]
        self.db.executemany("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", rows)
        self._pack_vectors()

    def _meta(self, name: str) -> str:
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", (name,)).fetchone()
        return str(row[0]) if row else ""

    def _pack_vectors(self) -> None:
        """Every note's vector again, packed by :func:`lorebook.recall.dense.pack`."""
        from lorebook.recall.dense import pack

        self.db.execute("DELETE FROM vectors")
        rows = self.db.execute("SELECT num, vec FROM docs WHERE vec IS NOT NULL ORDER BY num")
        self.db.executemany(
            "INSERT INTO vectors (first, nums, inverse, ints) VALUES (?, ?, ?, ?)", pack(rows)
        )
