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
import sys
from collections.abc import Iterable, Iterator

from lorebook.recall import bm25
from lorebook.recall.db import sqlite3
from lorebook.recall.document import DOC_COLUMNS, IndexedNote, body_sections, note_from_row
from lorebook.recall.postings import (
    PostingList,
    QueryTerm,
    contribution,
    maxscore,
    score_notes,
)

__all__ = [
    "INDEX_NAME",
    "PRIOR_DOCS",
    "IndexedNote",
    "NoteIndex",
    "body_sections",
    "index_path",
]

TYPE_CHECKING = False  # the hook path avoids importing typing (and dataclasses, pathlib)
if TYPE_CHECKING:
    from typing import TypeAlias

    from lorebook.recall.vectorfile import VectorFile

    Chunk: TypeAlias = bytes | memoryview
    """A part of a chunk of packed vectors: bytes, or a view of the mapped vectors file."""

INDEX_VERSION = "17"
INDEX_NAME = "index.sqlite"
PRIOR_DOCS = 16
"""Documents of average length, holding no query term, added to the corpus BM25 sees.

BM25's idf cannot rank a small corpus: with two notes, a term found in one of them has an
idf of exactly 0, and a knowledge base of five notes scores every match below any useful
floor. These virtual documents are a fixed prior that keeps idf meaningful while the
knowledge base is small and fades as it grows (16 among 10,000 notes change nothing).
Scores are still BM25Okapi, computed exactly on the notes plus these documents."""

LEXICAL_CANDIDATES = 16
"""How many notes the lexical search returns for a prompt (and ties at the last score)."""
QUERY_TERMS = 24
"""The lexical search picks its best notes by the prompt's rarest words, at most this many."""


TOTALS_KEY = "totals"
"""The ``meta`` row keeping :class:`Totals`, so a write need not count the whole index."""


class Totals:
    """What the corpus statistics are computed from, kept up to date by every write."""

    __slots__ = ("histogram", "notes", "sections", "statuses", "tokens")

    def __init__(
        self,
        notes: int,
        tokens: int,
        sections: int,
        histogram: dict[int, int],
        statuses: dict[str, int],
    ) -> None:
        self.notes = notes
        self.tokens = tokens
        self.sections = sections
        self.histogram = histogram
        """Document frequency -> how many words have it."""
        self.statuses = statuses
        """Status -> how many notes have it (the session-start status line reads it)."""

    @classmethod
    def loads(cls, text: str) -> Totals | None:
        """The recorded totals (None: recorded by a writer that kept no statuses)."""
        recorded = json.loads(text)
        if len(recorded) != 5:
            return None
        notes, tokens, sections, pairs, statuses = recorded
        return cls(notes, tokens, sections, {df: n for df, n in pairs}, statuses)

    def dumps(self) -> str:
        pairs = sorted([df, n] for df, n in self.histogram.items() if n)
        statuses = {s: n for s, n in sorted(self.statuses.items()) if n}
        return json.dumps([self.notes, self.tokens, self.sections, pairs, statuses])


class NoteIndex:
    """A read-only connection to one index file. Use as a context manager.

    :class:`lorebook.recall.writer.IndexWriter` writes the file (the prompt hook reads
    it without importing the writer).
    """

    def __init__(self, path: str) -> None:
        self.path = path
        if not os.path.exists(path):
            raise FileNotFoundError(f"no note index at {path}; it is built at session start")
        self.db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=2.0)

    def __exit__(self, *exc: object) -> None:
        self.db.close()

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
                f"SELECT {DOC_COLUMNS} FROM docs WHERE id IN ({marks})", chunk
            ):
                found[row[0]] = note_from_row(row)
        return found

    def ids(self, nums: Iterable[int]) -> dict[int, str]:
        """Map note numbers to ids."""
        wanted = sorted(set(nums))
        found: dict[int, str] = {}
        for start in range(0, len(wanted), 500):
            chunk = wanted[start : start + 500]
            marks = ",".join("?" * len(chunk))
            rows = self.db.execute(f"SELECT num, id FROM docs WHERE num IN ({marks})", chunk)
            found.update(rows)
        return found

    def __enter__(self) -> NoteIndex:
        return self

    def query_terms(
        self, query: list[str], stats: bm25.CorpusStats
    ) -> tuple[list[QueryTerm], float]:
        """The query's words found in the index, and the query's whole idf mass.

        Each distinct token weighs its unfloored idf (a token no note holds weighs the idf
        of a document frequency of 0, the most a token can weigh).
        """
        counts: dict[str, int] = {}
        for token in query:
            counts[token] = counts.get(token, 0) + 1
        marks = ",".join("?" * len(counts))
        rows = self.db.execute(
            f"SELECT term, df, max_tf, min_len, postings FROM terms WHERE term IN ({marks})",
            sorted(counts),
        ).fetchall()
        found = {row[0]: row for row in rows}
        total = sum(
            max(0.0, bm25.raw_idf(stats.corpus_size, found[t][1] if t in found else 0))
            for t in counts
        )
        terms = []
        for term, df, max_tf, min_len, blob in rows:
            idf = bm25.idf(stats.corpus_size, df, stats.average_idf)
            bound = counts[term] * contribution(stats, idf, max_tf, min_len)
            weight = max(0.0, bm25.raw_idf(stats.corpus_size, df))
            terms.append(
                QueryTerm(term, counts[term], idf, weight, bound, PostingList.decode(blob))
            )
        return terms, total or 1.0

    def search_with_coverage(
        self, query: list[str], *, k: int = LEXICAL_CANDIDATES, also: Iterable[str] = ()
    ) -> dict[str, tuple[float, float]]:
        """(score, query coverage) of the ``k`` best notes, and of the notes in ``also``.

        A note's score is the BM25Okapi score of its best section (idf over notes, length
        normalised against the average section; see :func:`body_sections`); coverage is
        the share of the query's idf mass that section holds. A note sharing one common
        word with a long prompt scores above zero but covers little of it.

        The best notes are found by :func:`top_k`, exactly as
        scoring every note would find them, over the query's :data:`QUERY_TERMS` rarest
        words (a pasted log of 150 words has many common ones, which decide nothing but
        would cost a pass over their lists); every note returned is then scored exactly,
        on all of the query's words.
        """
        stats = self.stats()
        if stats is None or not query:
            return {}
        terms, total = self.query_terms(query, stats)
        if not terms:
            return {}
        rarest = sorted(terms, key=lambda t: (-t.idf, t.term))[:QUERY_TERMS]
        found = top_k(rarest, stats, k)
        extra = [n for n in self.nums(also) if n not in found]
        if len(rarest) < len(terms):
            found = score_notes(terms, stats, [*found, *extra])
        elif extra:
            found.update(score_notes(terms, stats, extra))
        names = self.ids(found)
        return {names[n]: (s, c / total) for n, (s, c) in found.items() if n in names}

    def search(self, query: list[str], *, k: int = LEXICAL_CANDIDATES) -> dict[str, float]:
        """The lexical score of the ``k`` best notes (their best section's BM25)."""
        return {i: s for i, (s, _) in self.search_with_coverage(query, k=k).items()}

    def nums(self, ids: Iterable[str]) -> list[int]:
        """The note numbers of these ids (unknown ids are left out)."""
        wanted = sorted(set(ids))
        found: list[int] = []
        for start in range(0, len(wanted), 500):
            chunk = wanted[start : start + 500]
            marks = ",".join("?" * len(chunk))
            found += [n for (n,) in self.db.execute(
                f"SELECT num FROM docs WHERE id IN ({marks})", chunk
            )]  # fmt: skip
        return found

    def vector_chunks(self) -> Iterator[tuple[Chunk, Chunk, Chunk]]:
        """Every note's packed vector, :data:`~lorebook.recall.dense.CHUNK` notes at a time.

        Each chunk: note numbers as uint32, inverse scales as float32, int8 values (see
        :func:`lorebook.recall.dense.pack`), in note-number order, read in place from the
        vectors file (:mod:`lorebook.recall.vectorfile`). Should that file be gone (removed
        by hand), the notes' rows give the same chunks, slowly, until the next write.
        """
        from lorebook.recall.dense import CHUNK, pack
        from lorebook.recall.semantic import DIM

        mapped = self._vector_file()
        if mapped is None:
            rows = self.db.execute("SELECT num, vec FROM docs WHERE vec IS NOT NULL ORDER BY num")
            for _, nums, inverse, ints in pack(rows):
                yield nums, inverse, ints
            return
        for start in range(0, mapped.count, CHUNK):
            end = min(start + CHUNK, mapped.count)
            yield (
                mapped.nums[4 * start : 4 * end],
                mapped.inverse[4 * start : 4 * end],
                mapped.ints[DIM * start : DIM * end],
            )
            mapped.release(end)  # compared: their pages leave the resident set

    def _vector_file(self) -> VectorFile | None:
        """The mapped vectors file the index names, or None when it is missing."""
        from lorebook.recall.vectorfile import open_vectors

        for _ in range(2):  # a newer writer may have removed the file just named: ask again
            try:
                return open_vectors(self.path, self._meta("vectors"))
            except FileNotFoundError:
                continue
        return None

    def note_vectors(self, nums: Iterable[int]) -> dict[int, bytes]:
        """The stored unit vectors of these notes (see :func:`lorebook.recall.dense.quantize`)."""
        wanted = sorted(set(nums))
        found: dict[int, bytes] = {}
        for start in range(0, len(wanted), 500):
            chunk = wanted[start : start + 500]
            marks = ",".join("?" * len(chunk))
            rows = self.db.execute(
                f"SELECT num, vec FROM docs WHERE vec IS NOT NULL AND num IN ({marks})", chunk
            )
            found.update((n, bytes(v)) for n, v in rows)
        return found

    def status_counts(self) -> dict[str, int]:
        """How many notes have each status, as every write records it (no scan of docs)."""
        recorded = self._meta(TOTALS_KEY)
        totals = Totals.loads(recorded) if recorded else None
        if totals is None:
            return dict(self.db.execute("SELECT status, COUNT(*) FROM docs GROUP BY status"))
        return {status: n for status, n in totals.statuses.items() if n}

    def unreviewed_count(self) -> int:
        """How many active notes no person has reviewed (:mod:`lorebook.reviewstate`)."""
        query = "SELECT COUNT(*) FROM docs WHERE status = 'active' AND NOT reviewed"
        return int(self.db.execute(query).fetchone()[0])

    def _meta(self, name: str) -> str:
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", (name,)).fetchone()
        return str(row[0]) if row else ""

    def vectors_missing(self) -> bool:
        """Whether the vectors file the index names is gone (the next write repacks it)."""
        from lorebook.recall.vectorfile import file_path

        name = self._meta("vectors")
        return bool(name) and not os.path.exists(file_path(self.path, name))

    def pieces(self) -> str:
        """The piece table the notes were embedded with ("" for a lexical-only index)."""
        row = self.db.execute("SELECT value FROM meta WHERE key = 'pieces'").fetchone()
        return str(row[0]) if row else ""

    def file_anchors(self, files: list[str]) -> list[tuple[str, str]]:
        """(glob, note id) of the file anchors whose literal ends fit one of ``files``."""
        found: list[tuple[str, str]] = []
        for path in files:
            found += self.db.execute(
                "SELECT pattern, id FROM anchors WHERE kind = 'files' "
                "AND substr(?, 1, length(prefix)) = prefix "
                "AND (suffix = '' OR substr(?, -length(suffix)) = suffix) ORDER BY id",
                (path, path),
            ).fetchall()
        return list(dict.fromkeys(found))

    def anchors(self, kind: str) -> Iterator[tuple[str, str]]:
        """Yield (pattern, note id) for one kind of anchor: files, tools, errors or commands."""
        yield from self.db.execute(
            "SELECT pattern, id FROM anchors WHERE kind = ? ORDER BY id", (kind,)
        )


WHOLESUM_MIN = 2_000
""":func:`top_k` scores every posting with numpy, where it is loaded, from this many on
(below, reading fewer postings in Python is as fast)."""


def top_k(
    terms: list[QueryTerm], stats: bm25.CorpusStats, k: int
) -> dict[int, tuple[float, float]]:
    """The ``k`` best notes (and ties at the k-th score): note number -> (score, covered).

    A note's score is its best section's BM25Okapi score; ``covered`` is the summed weight
    of the query words that section holds. Where numpy is loaded already (the warm hook
    process, ``lorebook eval``) and the words hold :data:`WHOLESUM_MIN` postings or more,
    :func:`lorebook.recall.wholesum.top_k` gives the same result by scoring every posting
    in compiled code.
    """
    np = sys.modules.get("numpy")
    if np is not None and sum(len(t.postings.keys) for t in terms) >= WHOLESUM_MIN:
        from lorebook.recall import wholesum

        return wholesum.top_k(terms, stats, k, np)
    return maxscore(terms, stats, k)


def index_path(kb_root: str) -> str:
    """Where a knowledge base keeps its index."""
    return os.path.join(kb_root, ".cache", INDEX_NAME)
