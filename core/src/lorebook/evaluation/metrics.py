"""The measures ``lorebook eval retrieval`` reports, with binary relevance.

For one query, ``ranked`` is what a system returned, best first (for the hook as it injects,
the notes it put in the prompt), and ``expected`` the ids the query needs:

- ``recall_any@k``: 1 when at least one expected id is among the first ``k``, else 0;
- ``recall_all@k``: 1 when every expected id is among the first ``k``, else 0;
- ``MRR``: the mean of 1 / (rank of the first expected id in the whole returned list),
  0 when none is returned;
- ``nDCG@10``: LongMemEval's definition, the one ``reference-bm25.json`` uses:
  DCG = rel_1 + sum over positions i = 2..10 of rel_i / log2(i), with rel_i = 1 when the note
  at position i is expected; divided by the DCG of the ideal ranking, min(|expected|, 10)
  expected notes first. (Positions 1 and 2 weigh the same in this definition.)

Answerable queries are averaged; a *false refusal* is an answerable query for which the
system returned nothing. Refusal queries (nothing expected) count how many got nothing:
*refusals kept*. Multi-hop queries are reported apart (their ``recall_all@k``), never mixed in.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from lorebook.evaluation.queries import Query

NDCG_K = 10
MAIN_K = 3
"""recall_any@3 is reported at every ``--k``: three notes is what the hook serves by default."""

Measures = dict[str, float | int | None]


def recall_any(ranked: Sequence[str], expected: Sequence[str], k: int) -> float:
    """1.0 when some expected id is among the first ``k`` of ``ranked``."""
    top = set(ranked[:k])
    return 1.0 if any(e in top for e in expected) else 0.0


def recall_all(ranked: Sequence[str], expected: Sequence[str], k: int) -> float:
    """1.0 when every expected id is among the first ``k`` of ``ranked``."""
    top = set(ranked[:k])
    return 1.0 if all(e in top for e in expected) else 0.0


def reciprocal_rank(ranked: Sequence[str], expected: Sequence[str]) -> float:
    """1 / the rank of the first expected id in ``ranked``; 0.0 when there is none."""
    wanted = set(expected)
    for at, note_id in enumerate(ranked, start=1):
        if note_id in wanted:
            return 1.0 / at
    return 0.0


def dcg(relevances: Sequence[float]) -> float:
    """rel_1 + sum over i >= 2 of rel_i / log2(i) (positions counted from 1)."""
    return sum(rel if at == 1 else rel / math.log2(at) for at, rel in enumerate(relevances, 1))


def ndcg(ranked: Sequence[str], expected: Sequence[str], k: int = NDCG_K) -> float:
    """DCG of the first ``k`` of ``ranked`` over the ideal DCG (expected ids first)."""
    wanted = set(expected)
    ideal = dcg([1.0] * min(len(wanted), k))
    if ideal == 0:
        return 0.0
    return dcg([1.0 if note_id in wanted else 0.0 for note_id in ranked[:k]]) / ideal


def collapse(ranked: Sequence[str], key: Callable[[str], str]) -> list[str]:
    """``ranked`` mapped through ``key``, keeping each value where it is first seen."""
    seen: dict[str, None] = {}
    for note_id in ranked:
        seen.setdefault(key(note_id), None)
    return list(seen)


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def summarise(rows: Sequence[tuple[Query, Sequence[str]]], k: int) -> Measures:
    """Every measure over ``rows`` of (query, what the system returned for it)."""
    answerable = [(q, r) for q, r in rows if q.group == "answerable"]
    refusals = [r for q, r in rows if q.group == "refusal"]
    multi_hop = [(q, r) for q, r in rows if q.group == "multi-hop"]
    measures: Measures = {"answerable": len(answerable)}
    measures[f"recall_any@{MAIN_K}"] = _mean(
        [recall_any(r, q.expected, MAIN_K) for q, r in answerable]
    )
    measures[f"recall_any@{k}"] = _mean([recall_any(r, q.expected, k) for q, r in answerable])
    measures[f"recall_all@{k}"] = _mean([recall_all(r, q.expected, k) for q, r in answerable])
    measures["mrr"] = _mean([reciprocal_rank(r, q.expected) for q, r in answerable])
    measures[f"ndcg@{NDCG_K}"] = _mean([ndcg(r, q.expected) for q, r in answerable])
    measures["false_refusals"] = sum(1 for _, r in answerable if not r)
    measures["refusals"] = len(refusals)
    measures["refusals_kept"] = sum(1 for r in refusals if not r)
    measures["multi_hop"] = len(multi_hop)
    measures[f"multi_hop_recall_all@{k}"] = _mean(
        [recall_all(r, q.expected, k) for q, r in multi_hop]
    )
    return measures
