"""Packed posting lists and an exact top-k search over them (MaxScore).

Each word's postings are one blob: the sorted section keys (``note number << 8 |
section``) and, beside each, the term frequency and the section's length. A word also
records the largest term frequency and the shortest section it occurs in, which bound
what it can add to any section's BM25 score (BM25 grows with tf and shrinks with length).

:func:`maxscore` reads the words most able to change the ranking in full, then, once the
words left cannot lift a section the top ``k`` have not seen above the k-th best, only
looks up the sections still in contention in the remaining lists (binary search). A very
common word therefore costs a few look-ups, not a pass over its list. The scores are
exactly those of scoring every section (a hypothesis test compares them).

Where numpy is loaded already (the warm hook process's children), a query with many
postings is scored whole in compiled code instead (:mod:`lorebook.recall.wholesum`, which
:func:`lorebook.recall.index.top_k` chooses), to the same bits. Runs on the hook path:
standard library only.
"""

from __future__ import annotations

import heapq
from array import array
from bisect import bisect_left

from lorebook.recall import bm25

SECTION_BITS = 8
"""Low bits of a key that hold the section number: a note has at most 256 sections (about
40,000 words), and an index at most 16 million notes (keys are 32-bit)."""
LIST_WALK = 8
""":func:`score_notes` walks a word's whole list when it holds at most this many postings
per note asked about (a test per posting is cheaper than a binary search per note)."""
MAX_VALUE = 0xFFFF
"""Term frequencies and section lengths are stored as 16-bit counts (larger ones clamp)."""


def key(num: int, sec: int) -> int:
    """The sort key of section ``sec`` of note number ``num``."""
    return (num << SECTION_BITS) | sec


class PostingList:
    """One word's postings: parallel arrays of 32-bit keys and 16-bit (tf, length) pairs."""

    __slots__ = ("keys", "values")

    def __init__(self, keys: array[int], values: array[int]) -> None:
        self.keys = keys
        self.values = values
        """tf and section length, two entries per key."""

    @classmethod
    def decode(cls, blob: bytes) -> PostingList:
        """Read a blob written by :meth:`encode`."""
        keys = array("I")
        count = len(blob) // (keys.itemsize + 2 * array("H").itemsize)
        keys.frombytes(blob[: count * keys.itemsize])
        values = array("H")
        values.frombytes(blob[count * keys.itemsize :])
        return cls(keys, values)

    def encode(self) -> bytes:
        """The blob stored in the index."""
        return self.keys.tobytes() + self.values.tobytes()

    def bounds(self) -> tuple[int, int]:
        """(largest tf, shortest section length) over the list."""
        return max(self.values[0::2], default=0), min(self.values[1::2], default=0)

    def find(self, section_key: int) -> int:
        """Position of ``section_key`` in the list, or -1."""
        i = bisect_left(self.keys, section_key)
        return i if i < len(self.keys) and self.keys[i] == section_key else -1


def merge(old: PostingList | None, drop: set[int], add: list[tuple[int, int, int]]) -> PostingList:
    """``old`` without the notes in ``drop``, plus ``add`` (key, tf, length) entries."""
    entries: list[tuple[int, int, int]] = []
    if old is not None:
        entries = [
            (k, old.values[2 * i], old.values[2 * i + 1])
            for i, k in enumerate(old.keys)
            if (k >> SECTION_BITS) not in drop
        ]
    entries += add
    entries.sort()
    keys = array("I", [e[0] for e in entries])
    values = array("H", [min(v, MAX_VALUE) for e in entries for v in e[1:]])
    return PostingList(keys, values)


class QueryTerm:
    """A distinct query word: its weight and how much it can add to one section."""

    __slots__ = ("bound", "count", "idf", "postings", "term", "weight")

    def __init__(
        self, term: str, count: int, idf: float, weight: float, bound: float, postings: PostingList
    ) -> None:
        self.term = term
        self.count = count
        """How often the query holds it (BM25Okapi sums over query tokens, repeats included)."""
        self.idf = idf
        self.weight = weight
        """Its share of the query's information (for coverage): its unfloored idf, or 0."""
        self.bound = bound
        """An upper bound of ``count * contribution`` to any one section."""
        self.postings = postings


def contribution(stats: bm25.CorpusStats, idf: float, tf: int, length: int) -> float:
    """What one occurrence of a query word adds to a section's BM25Okapi score."""
    norm = bm25.K1 * (1 - bm25.B + bm25.B * length / stats.avgdl)
    return idf * (tf * (bm25.K1 + 1) / (tf + norm))


def _add_term(
    term: QueryTerm,
    stats: bm25.CorpusStats,
    acc: dict[int, float],
    best: dict[int, float],
    threshold: float,
) -> None:
    """Add every posting of ``term`` to the sections' scores and to the notes' best ones.

    ``best`` gets only the notes whose score passes ``threshold`` (below it, a note cannot
    raise the k-th best), so most postings of a common word cost one comparison; what a
    section covers of the query is found for the few sections returned (:func:`covered`).
    """
    values = term.postings.values
    norm_k = bm25.K1 * (1 - bm25.B)
    norm_len = bm25.K1 * bm25.B / stats.avgdl
    scale = term.count * term.idf * (bm25.K1 + 1)
    get, top = acc.get, best.get
    for k, tf, length in zip(term.postings.keys, values[0::2], values[1::2], strict=True):
        score = get(k, 0.0) + scale * tf / (tf + norm_k + norm_len * length)
        acc[k] = score
        if score > threshold:
            num = k >> SECTION_BITS
            if score > top(num, 0.0):
                best[num] = score


def by_bound(terms: list[QueryTerm]) -> list[QueryTerm]:
    """The words in the order the search adds them: the most able to lift a section first."""
    return sorted(terms, key=lambda t: (-t.bound, t.term))


def maxscore(
    terms: list[QueryTerm], stats: bm25.CorpusStats, k: int
) -> dict[int, tuple[float, float]]:
    """The top-k search in pure Python: reads whole lists, then probes (module's text).

    :func:`lorebook.recall.index.top_k` uses it where numpy is not loaded.
    """
    order = by_bound(terms)
    remaining = [0.0] * (len(order) + 1)
    for i in range(len(order) - 1, -1, -1):
        remaining[i] = remaining[i + 1] + order[i].bound
    acc: dict[int, float] = {}
    best: dict[int, float] = {}
    threshold = 0.0
    split = len(order)
    for i, term in enumerate(order):
        if threshold > 0 and remaining[i] < threshold:
            split = i  # no section unseen so far can reach the top k any more
            break
        _add_term(term, stats, acc, best, threshold)
        if len(best) >= k:  # the k-th best note so far (best holds every note above the last)
            threshold = max(threshold, heapq.nlargest(k, best.values())[-1])
    if split < len(order):
        acc, threshold = _probe(order[split:], remaining[split:], stats, acc, threshold, k)
    return {
        num: (score, covered(terms, section_key))
        for num, (score, section_key) in _best_sections(acc, threshold).items()
    }


def _probe(
    terms: list[QueryTerm],
    remaining: list[float],
    stats: bm25.CorpusStats,
    acc: dict[int, float],
    threshold: float,
    k: int,
) -> tuple[dict[int, float], float]:
    """Add the remaining words to the sections still in contention, by look-ups only.

    Walks whichever is shorter, the word's list (a dictionary look-up a posting) or the
    sections (a binary search a section). Returns those sections' scores and the k-th
    best note score.
    """
    norm_k = bm25.K1 * (1 - bm25.B)
    norm_len = bm25.K1 * bm25.B / stats.avgdl
    for i, term in enumerate(terms):
        acc = {s: score for s, score in acc.items() if score + remaining[i] >= threshold}
        keys, values = term.postings.keys, term.postings.values
        scale = term.count * term.idf * (bm25.K1 + 1)
        if len(keys) <= len(acc):
            shared = [(at, key) for at, key in enumerate(keys) if key in acc]
        else:
            found = [(bisect_left(keys, key), key) for key in acc]
            shared = [(at, key) for at, key in found if at < len(keys) and keys[at] == key]
        for at, key in shared:
            tf = values[2 * at]
            acc[key] += scale * tf / (tf + norm_k + norm_len * values[2 * at + 1])
        best: dict[int, float] = {}
        for section_key, score in acc.items():
            num = section_key >> SECTION_BITS
            if score > best.get(num, 0.0):
                best[num] = score
        if len(best) >= k:
            threshold = max(threshold, heapq.nlargest(k, best.values())[-1])
    return acc, threshold


def _best_sections(acc: dict[int, float], threshold: float) -> dict[int, tuple[float, int]]:
    """Note number -> (score, key) of its best section, for the notes at ``threshold`` or more."""
    best: dict[int, tuple[float, int]] = {}
    for section_key, score in acc.items():
        if score < threshold or score <= 0:
            continue
        num = section_key >> SECTION_BITS
        if num not in best or score > best[num][0]:
            best[num] = (score, section_key)
    return best


def covered(terms: list[QueryTerm], section_key: int) -> float:
    """The summed weight of the query words section ``section_key`` holds (binary searches)."""
    return sum(t.weight for t in terms if t.postings.find(section_key) >= 0)


def score_notes(
    terms: list[QueryTerm], stats: bm25.CorpusStats, nums: list[int]
) -> dict[int, tuple[float, float]]:
    """Exact (best-section score, covered) of the given notes, by look-ups only.

    For each word, walks whichever is cheaper: its list, testing each posting's note, or
    the notes, one binary search each to the first of their sections.
    """
    wanted = set(nums)
    ordered = sorted(wanted)
    norm_k = bm25.K1 * (1 - bm25.B)
    norm_len = bm25.K1 * bm25.B / stats.avgdl
    acc: dict[int, float] = {}
    cover: dict[int, float] = {}
    for term in terms:
        keys, values = term.postings.keys, term.postings.values
        size = len(keys)
        if size <= LIST_WALK * len(ordered):
            found = [at for at, k in enumerate(keys) if k >> SECTION_BITS in wanted]
        else:
            found = []
            for num in ordered:
                at = bisect_left(keys, num << SECTION_BITS)
                while at < size and keys[at] >> SECTION_BITS == num:
                    found.append(at)
                    at += 1
        scale = term.count * term.idf * (bm25.K1 + 1)
        for at in found:
            section_key, tf = keys[at], values[2 * at]
            gain = scale * tf / (tf + norm_k + norm_len * values[2 * at + 1])
            acc[section_key] = acc.get(section_key, 0.0) + gain
            cover[section_key] = cover.get(section_key, 0.0) + term.weight
    return {num: (score, cover[key]) for num, (score, key) in _best_sections(acc, 0.0).items()}
