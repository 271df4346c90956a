"""The persisted note index hooks rank from: ``.lorebook/.cache/index.sqlite``.

SQLite is storage only (the stdlib module, cheap to import); ranking is our BM25 in
:mod:`lorebook.recall.bm25`. A prompt hook reads just the postings of its query tokens, so
its cost does not grow with the size of the knowledge base. Every lorebook writer updates
the index as it writes a note, and the session-start hook reconciles it with the files on
disk by a stat walk, so a ``git pull`` is picked up without re-reading unchanged notes.
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections import Counter
from collections.abc import Iterable, Iterator

from lorebook.recall import bm25
from lorebook.recall.tokenize import tokenize

TYPE_CHECKING = False  # the hook path avoids importing typing (and dataclasses, pathlib)
if TYPE_CHECKING:
    from typing import Any

    from lorebook.recall.semantic import Embedder

INDEX_VERSION = "5"
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
    id TEXT PRIMARY KEY, path TEXT NOT NULL, mtime_ns INTEGER NOT NULL, size INTEGER NOT NULL,
    len INTEGER NOT NULL, status TEXT NOT NULL, kind TEXT NOT NULL, enforce TEXT NOT NULL,
    title TEXT NOT NULL, description TEXT NOT NULL, body TEXT NOT NULL, extra TEXT NOT NULL,
    vec BLOB
);
CREATE TABLE IF NOT EXISTS postings (
    term TEXT NOT NULL, id TEXT NOT NULL, sec INTEGER NOT NULL, tf INTEGER NOT NULL,
    len INTEGER NOT NULL, PRIMARY KEY (term, id, sec)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS postings_by_id ON postings (id);
CREATE TABLE IF NOT EXISTS df (term TEXT PRIMARY KEY, n INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS anchors (kind TEXT NOT NULL, pattern TEXT NOT NULL, id TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS vectors (ids TEXT NOT NULL, pack BLOB NOT NULL);
CREATE INDEX IF NOT EXISTS anchors_by_id ON anchors (id);
"""


class IndexedNote:
    """What the index keeps of one note (enough to rank it and render it)."""

    __slots__ = (
        "anchors",
        "body",
        "description",
        "enforce",
        "id",
        "kind",
        "mtime_ns",
        "path",
        "refuted_because",
        "size",
        "status",
        "superseded_by",
        "tags",
        "title",
    )  # fmt: skip

    def __init__(
        self,
        id: str,
        path: str,
        mtime_ns: int,
        size: int,
        status: str,
        kind: str,
        enforce: str,
        title: str,
        description: str,
        body: str,
        tags: tuple[str, ...] = (),
        superseded_by: tuple[str, ...] = (),
        refuted_because: str | None = None,
        anchors: dict[str, list[str]] | None = None,
    ) -> None:
        self.id = id
        self.path = path
        self.mtime_ns = mtime_ns
        self.size = size
        self.status = status
        self.kind = kind
        self.enforce = enforce
        self.title = title
        self.description = description
        self.body = body
        self.tags = tags
        self.superseded_by = superseded_by
        self.refuted_because = refuted_because
        self.anchors = anchors or {}

    def __repr__(self) -> str:
        return f"IndexedNote(id={self.id!r}, path={self.path!r}, status={self.status!r})"

    def head(self) -> str:
        """Title, tags and description: what the note is about, in its author's words."""
        return " ".join((self.title, " ".join(self.tags), self.description))

    def sections(self) -> list[list[str]]:
        """The documents BM25 scores, one per section of the body (see :func:`sections`)."""
        head = tokenize(self.title) * TITLE_WEIGHT
        head += tokenize(" ".join(self.tags)) * TAGS_WEIGHT
        head += tokenize(self.description) * DESCRIPTION_WEIGHT
        return [head + part for part in body_sections(self.body)]


TITLE_WEIGHT = 3
TAGS_WEIGHT = 2
DESCRIPTION_WEIGHT = 2
"""Field weights: each section's document repeats the note's title, tags and description
this many times (BM25's saturating term frequency makes a repeat worth less than a new
word, so the head weighs more than the body without drowning it)."""
SECTION_TOKENS = 160
"""A body longer than this many tokens is scored by its best section: paragraphs are
grouped up to this size (headings start a new section), so a 30 KB note competes with the
one part of it that matches, not with its whole vocabulary."""


def body_sections(body: str) -> list[list[str]]:
    """The body's tokens cut into sections of about :data:`SECTION_TOKENS` tokens.

    A markdown heading starts a new section; paragraphs are grouped until the next would
    pass the size; a single longer paragraph is cut into windows. An empty body is one
    empty section (the head alone is then the document).
    """
    result: list[list[str]] = []
    current: list[str] = []
    for block in _blocks(body):
        tokens = tokenize(block)
        starts_heading = block.lstrip().startswith("#")
        if current and (starts_heading or len(current) + len(tokens) > SECTION_TOKENS):
            result.append(current)
            current = []
        while len(tokens) > SECTION_TOKENS:
            result.append(tokens[:SECTION_TOKENS])
            tokens = tokens[SECTION_TOKENS:]
        current += tokens
    if current or not result:
        result.append(current)
    return result


def _blocks(body: str) -> list[str]:
    """Paragraphs of ``body``; a heading line is a block of its own."""
    blocks: list[str] = []
    current: list[str] = []
    for line in body.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            if current:
                blocks.append("\n".join(current))
                current = []
            if line.strip():
                current = [line]
            continue
        current.append(line)
    if current:
        blocks.append("\n".join(current))
    return blocks


def _note_from_row(row: tuple[Any, ...]) -> IndexedNote:
    extra = json.loads(row[11])
    return IndexedNote(
        id=row[0], path=row[1], mtime_ns=row[2], size=row[3], status=row[5], kind=row[6],
        enforce=row[7], title=row[8], description=row[9], body=row[10],
        tags=tuple(extra.get("tags", ())), superseded_by=tuple(extra.get("superseded_by", ())),
        refuted_because=extra.get("refuted_because"), anchors=extra.get("anchors", {}),
    )  # fmt: skip


_DOC_COLUMNS = (
    "id, path, mtime_ns, size, len, status, kind, enforce, title, description, body, extra"
)


class NoteIndex:
    """A connection to one index file. Use as a context manager."""

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

    def __enter__(self) -> NoteIndex:
        return self

    def __exit__(self, *exc: object) -> None:
        self.db.close()

    # --- writing ----------------------------------------------------------------------

    def _delete(self, note_id: str) -> None:
        terms = [
            (t,)
            for (t,) in self.db.execute(
                "SELECT DISTINCT term FROM postings WHERE id = ?", (note_id,)
            )
        ]
        self.db.executemany("UPDATE df SET n = n - 1 WHERE term = ?", terms)
        self.db.execute("DELETE FROM df WHERE n <= 0")
        self.db.execute("DELETE FROM postings WHERE id = ?", (note_id,))
        self.db.execute("DELETE FROM anchors WHERE id = ?", (note_id,))
        self.db.execute("DELETE FROM docs WHERE id = ?", (note_id,))

    def _insert(self, note: IndexedNote) -> None:
        sections = [Counter(part) for part in note.sections()]
        extra = {
            "tags": list(note.tags),
            "superseded_by": list(note.superseded_by),
            "refuted_because": note.refuted_because,
            "anchors": note.anchors,
            "sections": len(sections),
        }
        vec = None
        if self.embedder is not None:
            from lorebook.recall.semantic import embed_note

            vec = embed_note(self.embedder, note.head(), note.body)
        total = sum(sum(c.values()) for c in sections)
        self.db.execute(
            f"INSERT INTO docs ({_DOC_COLUMNS}, vec) VALUES ({', '.join('?' * 13)})",
            (note.id, note.path, note.mtime_ns, note.size, total, note.status, note.kind,
             note.enforce, note.title, note.description, note.body, json.dumps(extra), vec),
        )  # fmt: skip
        self.db.executemany(
            "INSERT INTO postings (term, id, sec, tf, len) VALUES (?, ?, ?, ?, ?)",
            [
                (term, note.id, sec, tf, sum(counts.values()))
                for sec, counts in enumerate(sections)
                for term, tf in counts.items()
            ],
        )
        distinct = {term for counts in sections for term in counts}
        self.db.executemany(
            "INSERT INTO df (term, n) VALUES (?, 1) ON CONFLICT (term) DO UPDATE SET n = n + 1",
            [(term,) for term in sorted(distinct)],
        )
        self.db.executemany(
            "INSERT INTO anchors (kind, pattern, id) VALUES (?, ?, ?)",
            [(kind, p, note.id) for kind, patterns in note.anchors.items() for p in patterns],
        )

    def _refresh_stats(self) -> None:
        size, total = self.db.execute("SELECT COUNT(*), COALESCE(SUM(len), 0) FROM docs").fetchone()
        (sections,) = self.db.execute(
            "SELECT COUNT(*) FROM (SELECT DISTINCT id, sec FROM postings)"
        ).fetchone()
        sections = max(sections, size)
        histogram = self.db.execute("SELECT n, COUNT(*) FROM df GROUP BY n").fetchall()
        # The prior: PRIOR_DOCS documents of average length made only of a token no query
        # holds (see PRIOR_DOCS). BM25Okapi is then computed exactly on notes + prior, with
        # a section's length measured against the average section.
        pad_len = max(1, round(total / sections)) if sections else 1
        corpus = size + PRIOR_DOCS
        avgdl = (total + PRIOR_DOCS * pad_len) / (sections + PRIOR_DOCS)
        avg_idf = bm25.average_idf(corpus, [*histogram, (PRIOR_DOCS, 1)]) if size else 0.0
        rows = [
            ("version", INDEX_VERSION),
            ("notes", str(size)),
            ("corpus_size", str(corpus)),
            ("avgdl", repr(avgdl)),
            ("average_idf", repr(avg_idf)),
            ("pieces", self.embedder.table if self.embedder is not None else ""),
        ]
        self.db.executemany("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", rows)
        if self.embedder is not None:
            self._pack_vectors()

    def _pack_vectors(self) -> None:
        """Keep every note vector in one row: a prompt reads them in one go."""
        rows = self.db.execute(
            "SELECT id, vec FROM docs WHERE vec IS NOT NULL ORDER BY id"
        ).fetchall()
        self.db.execute("DELETE FROM vectors")
        self.db.execute(
            "INSERT INTO vectors (ids, pack) VALUES (?, ?)",
            (json.dumps([note_id for note_id, _ in rows]), b"".join(vec for _, vec in rows)),
        )

    def apply(self, upserts: Iterable[IndexedNote] = (), removals: Iterable[str] = ()) -> None:
        """Add or replace notes and remove ids, in one transaction."""
        with self.db:
            for note_id in removals:
                self._delete(note_id)
            for note in upserts:
                self._delete(note.id)
                self._insert(note)
            self._refresh_stats()

    # --- reading ----------------------------------------------------------------------

    def files(self) -> dict[str, tuple[str, int, int]]:
        """Map path -> (id, mtime_ns, size) for every indexed note."""
        rows = self.db.execute("SELECT path, id, mtime_ns, size FROM docs")
        return {path: (note_id, mtime, size) for path, note_id, mtime, size in rows}

    def stats(self) -> bm25.CorpusStats | None:
        """Corpus statistics, or None for an empty or foreign index."""
        meta = dict(self.db.execute("SELECT key, value FROM meta").fetchall())
        if meta.get("version") != INDEX_VERSION or not int(meta.get("notes", "0")):
            return None
        return bm25.CorpusStats(
            corpus_size=int(meta["corpus_size"]),
            avgdl=float(meta["avgdl"]),
            average_idf=float(meta["average_idf"]),
        )

    def get(self, ids: Iterable[str]) -> dict[str, IndexedNote]:
        """Return the indexed notes with these ids."""
        wanted = list(dict.fromkeys(ids))
        found: dict[str, IndexedNote] = {}
        for start in range(0, len(wanted), 500):
            chunk = wanted[start : start + 500]
            marks = ",".join("?" * len(chunk))
            for row in self.db.execute(
                f"SELECT {_DOC_COLUMNS} FROM docs WHERE id IN ({marks})", chunk
            ):
                found[row[0]] = _note_from_row(row)
        return found

    def search(self, query: list[str]) -> dict[str, float]:
        """Return the lexical score of every matching note (its best section's BM25)."""
        return {note_id: score for note_id, (score, _) in self.search_with_coverage(query).items()}

    def search_with_coverage(self, query: list[str]) -> dict[str, tuple[float, float]]:
        """Return (score, query coverage) of every note matching the query.

        A note's score is the BM25Okapi score of its best section (idf over notes, length
        normalised against the average section; see :func:`body_sections`). Coverage is
        the share of the query's idf mass that section matches: each distinct query token
        weighs its idf (a token no note holds weighs the idf of a document frequency of 0,
        the most a token can weigh). A note sharing one common word with a long prompt
        scores above zero but covers little of it.
        """
        stats = self.stats()
        terms = sorted(set(query))
        if stats is None or not terms:
            return {}
        marks = ",".join("?" * len(terms))
        doc_freqs = dict(self.db.execute(f"SELECT term, n FROM df WHERE term IN ({marks})", terms))
        postings: dict[str, dict[str, int]] = {}
        lens: dict[str, int] = {}
        rows = self.db.execute(
            f"SELECT term, id, sec, tf, len FROM postings WHERE term IN ({marks})", terms
        )
        for term, note_id, sec, tf, length in rows:
            key = f"{note_id}\x00{sec}"
            postings.setdefault(term, {})[key] = tf
            lens[key] = length
        scores = bm25.score(query, stats, doc_freqs, postings, lens)
        weights = {t: max(0.0, bm25.raw_idf(stats.corpus_size, doc_freqs.get(t, 0))) for t in terms}
        total = sum(weights.values()) or 1.0
        matched: dict[str, float] = {}
        for term, docs in postings.items():
            for key in docs:
                matched[key] = matched.get(key, 0.0) + weights[term]
        best: dict[str, tuple[float, float]] = {}
        for key, score in scores.items():
            note_id = key.split("\x00", 1)[0]
            if note_id not in best or score > best[note_id][0]:
                best[note_id] = (score, matched[key] / total)
        return best

    def vectors(self) -> tuple[list[str], bytes]:
        """(ids, their unit vectors as consecutive float32 rows) of every embedded note."""
        row = self.db.execute("SELECT ids, pack FROM vectors").fetchone()
        if row is None:
            return [], b""
        return json.loads(row[0]), bytes(row[1])

    def pieces(self) -> str:
        """The piece table the notes were embedded with ("" for a lexical-only index)."""
        row = self.db.execute("SELECT value FROM meta WHERE key = 'pieces'").fetchone()
        return str(row[0]) if row else ""

    def anchors(self, kind: str) -> Iterator[tuple[str, str]]:
        """Yield (pattern, note id) for one kind of anchor: files, tools, errors or commands."""
        yield from self.db.execute(
            "SELECT pattern, id FROM anchors WHERE kind = ? ORDER BY id", (kind,)
        )


def index_path(kb_root: str) -> str:
    """Where a knowledge base keeps its index."""
    return os.path.join(kb_root, ".cache", INDEX_NAME)


def stat_notes(nodes: str) -> dict[str, tuple[int, int]]:
    """Map note path (relative to ``nodes/``, POSIX) -> (mtime_ns, size), by a stat walk."""
    found: dict[str, tuple[int, int]] = {}
    stack = [(nodes, "")]
    while stack:
        folder, prefix = stack.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            if entry.name.startswith("."):
                continue
            if entry.is_dir(follow_symlinks=False):
                stack.append((entry.path, f"{prefix}{entry.name}/"))
            elif (
                entry.name.endswith(".md")
                and entry.name != "index.md"
                and entry.is_file(follow_symlinks=False)
            ):
                st = entry.stat(follow_symlinks=False)
                found[f"{prefix}{entry.name}"] = (st.st_mtime_ns, st.st_size)
    return found
