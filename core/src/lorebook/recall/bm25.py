"""Okapi BM25, exactly as rank-bm25's ``BM25Okapi`` computes it, without numpy.

``BM25Okapi`` (k1=1.5, b=0.75, epsilon=0.25): idf(t) = ln(N - n_t + 0.5) - ln(n_t + 0.5);
a negative idf is replaced by epsilon times the average idf over every term of the corpus;
score(d, q) = sum over query tokens (repeats included) of
idf(t) * tf * (k1 + 1) / (tf + k1 * (1 - b + b * len(d) / avgdl)).
A test compares our scores with rank-bm25's on the same tokens. (SQLite's ``bm25()`` is a
different formula.) numpy is not imported: the hook fast path cannot afford it.
"""

from __future__ import annotations

import math

TYPE_CHECKING = False  # the hook path imports neither typing nor dataclasses (inspect)
if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

K1 = 1.5
B = 0.75
EPSILON = 0.25


def raw_idf(corpus_size: int, doc_freq: int) -> float:
    """The idf of a term held by ``doc_freq`` of ``corpus_size`` documents, before flooring."""
    return math.log(corpus_size - doc_freq + 0.5) - math.log(doc_freq + 0.5)


def average_idf(corpus_size: int, df_histogram: Iterable[tuple[int, int]]) -> float:
    """Average raw idf over every term, from (document frequency, number of terms) pairs."""
    total = 0.0
    terms = 0
    for doc_freq, count in df_histogram:
        total += raw_idf(corpus_size, doc_freq) * count
        terms += count
    return total / terms if terms else 0.0


def idf(corpus_size: int, doc_freq: int, avg_idf: float) -> float:
    """The idf BM25Okapi uses: the raw idf, or epsilon * average idf where that is negative."""
    value = raw_idf(corpus_size, doc_freq)
    return EPSILON * avg_idf if value < 0 else value


class CorpusStats:
    """What BM25 needs about the whole corpus."""

    __slots__ = ("average_idf", "avgdl", "corpus_size")

    def __init__(self, corpus_size: int, avgdl: float, average_idf: float) -> None:
        self.corpus_size = corpus_size
        self.avgdl = avgdl
        self.average_idf = average_idf


def score(
    query: list[str],
    stats: CorpusStats,
    doc_freqs: Mapping[str, int],
    postings: Mapping[str, Mapping[str, int]],
    doc_lens: Mapping[str, int],
) -> dict[str, float]:
    """Score every document holding at least one query token (the others score 0).

    Args:
        query: Query tokens, repeats included.
        stats: Corpus size, average document length, average idf.
        doc_freqs: Document frequency of each query token present in the corpus.
        postings: For each query token, document id -> term frequency.
        doc_lens: Length of each document that appears in ``postings``.
    """
    scores: dict[str, float] = {}
    for token in query:
        docs = postings.get(token)
        if not docs:
            continue
        weight = idf(stats.corpus_size, doc_freqs[token], stats.average_idf)
        if not weight:
            continue
        for doc_id, tf in docs.items():
            norm = K1 * (1 - B + B * doc_lens[doc_id] / stats.avgdl)
            scores[doc_id] = scores.get(doc_id, 0.0) + weight * (tf * (K1 + 1) / (tf + norm))
    return scores
