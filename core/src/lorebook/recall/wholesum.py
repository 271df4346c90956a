"""The top-k search of :mod:`lorebook.recall.postings` with numpy, scoring every posting.

numpy takes longer to import (about 60 to 120 ms) than a whole prompt takes on the hook
path, so a hook in its own process never uses it. The warm hook process
(:mod:`lorebook.fastpath.server`) imports it once when it is installed; in its children, and
in any process that has numpy loaded already (``lorebook eval``),
:func:`lorebook.recall.index.top_k` hands a query with many postings here.

The result is the same dict as the pure-Python search gives, to the last bit: every
section's score is the same sum of the same terms, added in the same order (the words
sorted by their bounds, as there), each term computed with the same floating-point
operations in the same order; a note is scored by its best section, ties going to the
section the Python search meets first; and the same notes are returned (the k-th best
score and ties, none at or below 0). A hypothesis test compares the two.
"""

from __future__ import annotations

from lorebook.recall import bm25
from lorebook.recall.postings import SECTION_BITS, QueryTerm, by_bound, covered

TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import ModuleType
    from typing import Any

    Array = Any  # a numpy array (numpy is optional: no numpy types at run time)


def top_k(
    terms: list[QueryTerm], stats: bm25.CorpusStats, k: int, np: ModuleType
) -> dict[int, tuple[float, float]]:
    """The ``k`` best notes (and ties at the k-th score): note number -> (score, covered)."""
    order = by_bound(terms)
    lists = [np.frombuffer(t.postings.keys, dtype=np.uint32) for t in order]
    keys, first, where = np.unique(np.concatenate(lists), return_index=True, return_inverse=True)
    acc = np.zeros(len(keys))
    norm_k = bm25.K1 * (1 - bm25.B)
    norm_len = bm25.K1 * bm25.B / stats.avgdl
    start = 0
    for term, listed in zip(order, lists, strict=True):
        values = np.frombuffer(term.postings.values, dtype=np.uint16).astype(np.float64)
        tf, length = values[0::2], values[1::2]
        scale = term.count * term.idf * (bm25.K1 + 1)
        acc[where[start : start + len(listed)]] += scale * tf / (tf + norm_k + norm_len * length)
        start += len(listed)
    return _best_notes(terms, keys, first, acc, k, np)


def _best_notes(
    terms: list[QueryTerm], keys: Array, first: Array, acc: Array, k: int, np: ModuleType
) -> dict[int, tuple[float, float]]:
    """Each note's best section (ties: the first met), the notes at the k-th best or above."""
    nums = keys >> SECTION_BITS  # sorted, as the keys are: each note's sections side by side
    starts = np.flatnonzero(np.r_[True, nums[1:] != nums[:-1]])
    ends = np.r_[starts[1:], len(keys)]
    best = np.maximum.reduceat(acc, starts)
    chosen = np.flatnonzero(best > 0)
    if len(chosen) >= k:
        kth = np.partition(best[chosen], len(chosen) - k)[len(chosen) - k]
        chosen = chosen[best[chosen] >= kth]
    found = {}
    for note in chosen.tolist():
        start, score = int(starts[note]), best[note]
        tied = np.flatnonzero(acc[start : ends[note]] == score) + start
        at = int(tied[np.argmin(first[tied])]) if len(tied) > 1 else int(tied[0])
        section_key = int(keys[at])
        found[section_key >> SECTION_BITS] = (float(score), covered(terms, section_key))
    return found
