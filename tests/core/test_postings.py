"""The packed index's top-k search gives exactly what scoring every section would."""

from __future__ import annotations

import contextlib
import math
import random
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from lorebook.recall import bm25, index as index_module, postings
from lorebook.recall.index import IndexedNote
from lorebook.recall.postings import PostingList, key, merge
from lorebook.recall.writer import IndexWriter

VOCAB = [f"w{i}" for i in range(40)]
WAYS = ["maxscore", "wholesum"]

words = st.lists(
    st.integers(min_value=0, max_value=39).map(lambda i: VOCAB[min(i, i * i % 40)]),
    min_size=1,
    max_size=60,
)
notes_strategy = st.lists(
    st.tuples(words, st.lists(words, min_size=0, max_size=5)), min_size=1, max_size=25
)


def make_notes(raw: list[tuple[list[str], list[list[str]]]]) -> list[IndexedNote]:
    notes = []
    for i, (title, paragraphs) in enumerate(raw):
        body = "\n\n".join(" ".join(p) for p in paragraphs)
        notes.append(
            IndexedNote(
                id=f"n{i:02d}", path=f"n{i:02d}.md", mtime_ns=0, size=0, status="active",
                kind="gotcha", enforce="warn", title=" ".join(title[:6]), description="",
                body=body,
            )
        )  # fmt: skip
    return notes


def exhaustive(
    notes: list[IndexedNote], query: list[str], stats: bm25.CorpusStats
) -> dict[str, tuple[float, float]]:
    """Score every section of every note: each matching note's best section."""
    sections = {n.id: n.sections() for n in notes}
    df = Counter(t for secs in sections.values() for t in {w for s in secs for w in s})
    weights = {t: max(0.0, bm25.raw_idf(stats.corpus_size, df.get(t, 0))) for t in set(query)}
    total = sum(weights.values()) or 1.0
    best: dict[str, tuple[float, float]] = {}
    for note_id, secs in sections.items():
        for sec in secs:
            tf = Counter(sec)
            score = 0.0
            for token in query:
                if tf[token]:
                    idf = bm25.idf(stats.corpus_size, df[token], stats.average_idf)
                    norm = bm25.K1 * (1 - bm25.B + bm25.B * len(sec) / stats.avgdl)
                    score += idf * tf[token] * (bm25.K1 + 1) / (tf[token] + norm)
            covered = sum(weights[t] for t in set(query) if tf[t])
            if score > 0 and (note_id not in best or score > best[note_id][0]):
                best[note_id] = (score, covered / total)
    return best


def assert_exact(
    fast: dict[str, tuple[float, float]], slow: dict[str, tuple[float, float]]
) -> None:
    """Every note the fast search returns has the exhaustive score and coverage."""
    for note_id, (score, coverage) in fast.items():
        assert math.isclose(score, slow[note_id][0], rel_tol=1e-9, abs_tol=1e-9)
        assert math.isclose(coverage, slow[note_id][1], rel_tol=1e-9, abs_tol=1e-9)


@contextlib.contextmanager
def searched_by(way: str) -> Iterator[None]:
    """Make :func:`lorebook.recall.index.top_k` take ``way``: "maxscore" or "wholesum"."""
    if way == "wholesum":
        pytest.importorskip("numpy")
    saved = index_module.WHOLESUM_MIN
    index_module.WHOLESUM_MIN = 0 if way == "wholesum" else sys.maxsize
    try:
        yield
    finally:
        index_module.WHOLESUM_MIN = saved


def zipf_notes(
    rng: random.Random, vocab: list[str], count: int, *, paragraphs: tuple[int, int], heading: bool
) -> list[tuple[list[str], list[list[str]]]]:
    """``count`` raw notes of Zipf-like words: a few words are in most notes.

    With ``heading``, each paragraph starts a section of its own.
    """
    weights = [1 / (i + 1) for i in range(len(vocab))]
    first = ["#"] if heading else []
    return [
        (
            rng.choices(vocab, weights, k=rng.randint(2, 6)),
            [
                [*first, *rng.choices(vocab, weights, k=rng.randint(5, 40))]
                for _ in range(rng.randint(*paragraphs))
            ],
        )
        for _ in range(count)
    ]


@pytest.mark.parametrize("way", WAYS)
@settings(max_examples=80, deadline=None)
@given(raw=notes_strategy, query=words, k=st.integers(min_value=1, max_value=6))
def test_top_k_equals_scoring_every_section(
    tmp_path_factory: pytest.TempPathFactory,
    raw: list[tuple[list[str], list[list[str]]]],
    query: list[str],
    k: int,
    way: str,
) -> None:
    notes = make_notes(raw)
    path = str(tmp_path_factory.mktemp("postings") / "index.sqlite")
    with searched_by(way), IndexWriter(path) as index:
        index.apply(notes)
        stats = index.stats()
        assert stats is not None
        fast = index.search_with_coverage(query[:12], k=k)
    slow = exhaustive(notes, query[:12], stats)
    scores = sorted((s for s, _ in slow.values()), reverse=True)
    kth = scores[k - 1] if len(scores) >= k else 0.0
    must = {i for i, (s, _) in slow.items() if s > kth + 1e-9}
    may = {i for i, (s, _) in slow.items() if s >= kth - 1e-9}
    assert must <= set(fast) <= may
    assert_exact(fast, slow)


def test_updates_and_removals_keep_the_lists_exact(tmp_path: Path) -> None:
    notes = make_notes([(["alpha", "beta"], [["gamma"] * 3]), (["beta"], [["delta"]])])
    path = str(tmp_path / "index.sqlite")
    with IndexWriter(path) as index:
        index.apply(notes)
        changed = make_notes([(["alpha"], [["delta", "delta"]])])
        index.apply(changed, ["n01"])
        assert set(index.search(["delta"])) == {"n00"}
        assert index.search(["beta"]) == {}
        assert set(index.search(["alpha"])) == {"n00"}


def test_a_posting_list_round_trips_and_merges() -> None:
    first = merge(None, set(), [(key(2, 0), 3, 10), (key(1, 1), 1, 4), (key(1, 0), 2, 5)])
    assert list(first.keys) == [key(1, 0), key(1, 1), key(2, 0)]
    again = PostingList.decode(first.encode())
    assert list(again.keys) == list(first.keys)
    assert list(again.values) == [2, 5, 1, 4, 3, 10]
    assert again.bounds() == (3, 4)
    assert again.find(key(1, 1)) == 1
    assert again.find(key(3, 0)) == -1
    dropped = merge(again, {1}, [(key(0, 0), 1, 1)])
    assert list(dropped.keys) == [key(0, 0), key(2, 0)]


@settings(max_examples=40, deadline=None)
@given(
    raw=notes_strategy,
    query=st.lists(st.sampled_from(VOCAB), min_size=25, max_size=40, unique=True),
)
def test_a_long_query_returns_exact_scores_on_all_its_words(
    tmp_path_factory: pytest.TempPathFactory,
    raw: list[tuple[list[str], list[list[str]]]],
    query: list[str],
) -> None:
    notes = make_notes(raw)
    with IndexWriter(str(tmp_path_factory.mktemp("postings") / "index.sqlite")) as index:
        index.apply(notes)
        stats = index.stats()
        assert stats is not None
        fast = index.search_with_coverage(query, k=3)
    slow = exhaustive(notes, query, stats)
    assert fast or not slow
    assert_exact(fast, slow)


@pytest.mark.parametrize("way", WAYS)
def test_many_notes_with_common_words_give_the_exhaustive_top_k(tmp_path: Path, way: str) -> None:
    """Long lists of common words, so the k-th best rises while lists are read and probed."""
    rng = random.Random(11)
    vocab = [f"w{i}" for i in range(300)]
    weights = [1 / (i + 1) for i in range(300)]
    notes = make_notes(zipf_notes(rng, vocab, 400, paragraphs=(0, 3), heading=False))
    with searched_by(way), IndexWriter(str(tmp_path / "index.sqlite")) as index:
        index.apply(notes)
        stats = index.stats()
        assert stats is not None
        for _ in range(40):
            query = rng.choices(vocab, weights, k=rng.randint(2, 14))
            k = rng.choice([1, 3, 16])
            fast = index.search_with_coverage(query, k=k)
            slow = exhaustive(notes, query, stats)
            scores = sorted((s for s, _ in slow.values()), reverse=True)
            kth = scores[k - 1] if len(scores) >= k else 0.0
            assert {i for i, (s, _) in slow.items() if s > kth + 1e-9} <= set(fast)
            assert set(fast) <= {i for i, (s, _) in slow.items() if s >= kth - 1e-9}
            assert_exact(fast, slow)


@pytest.mark.parametrize("walk", [0, 10**9], ids=["binary-search-per-note", "walk-every-list"])
def test_rescoring_on_every_word_is_exact_either_way_it_reads_a_list(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, walk: int
) -> None:
    """A query of more words than the top-k reads rescores its notes on all of them."""
    from lorebook.recall import postings
    from lorebook.recall.index import QUERY_TERMS

    monkeypatch.setattr(postings, "LIST_WALK", walk)
    rng = random.Random(5)
    vocab = [f"w{i}" for i in range(120)]
    notes = make_notes(zipf_notes(rng, vocab, 300, paragraphs=(1, 4), heading=True))
    with IndexWriter(str(tmp_path / "index.sqlite")) as index:
        index.apply(notes)
        stats = index.stats()
        assert stats is not None
        for _ in range(10):
            query = rng.sample(vocab, QUERY_TERMS + 10)
            fast = index.search_with_coverage(query, k=5)
            slow = exhaustive(notes, query, stats)
            assert len(fast) >= 5
            assert_exact(fast, slow)


@settings(max_examples=120, deadline=None)
@given(
    raw=notes_strategy,
    repeats=st.lists(st.integers(min_value=0, max_value=4), max_size=6),
    query=words,
    k=st.integers(min_value=1, max_value=6),
)
def test_numpy_and_maxscore_give_the_same_bits(
    tmp_path_factory: pytest.TempPathFactory,
    raw: list[tuple[list[str], list[list[str]]]],
    repeats: list[int],
    query: list[str],
    k: int,
) -> None:
    """The same notes, scores and coverage, to the last bit: ties between notes and
    between a note's sections (a paragraph repeated under its own heading) included."""
    numpy = pytest.importorskip("numpy")
    from lorebook.recall import wholesum

    tied = [
        (
            title,
            [["#", *p] for p in paragraphs + [paragraphs[r % len(paragraphs)] for r in repeats]],
        )
        if paragraphs
        else (title, paragraphs)
        for title, paragraphs in raw
    ]
    notes = make_notes(tied + tied[:2])  # two notes twice: ties between notes
    with IndexWriter(str(tmp_path_factory.mktemp("postings") / "index.sqlite")) as index:
        index.apply(notes)
        stats = index.stats()
        assert stats is not None
        terms, _ = index.query_terms(query[:24], stats)
    if terms:
        expected = postings.maxscore(terms, stats, k)
        assert wholesum.top_k(terms, stats, k, numpy) == expected
