"""The ranker: BM25 exactly as rank-bm25's BM25Okapi, over a code-aware tokenisation."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st
from rank_bm25 import BM25Okapi

from lorebook.recall import bm25
from lorebook.recall.index import PRIOR_DOCS, IndexedNote, NoteIndex
from lorebook.recall.tokenize import tokenize
from lorebook.recall.writer import IndexWriter

words = st.sampled_from(
    ["uv", "pytest", "cache", "tags", "billing", "main", "push", "lore", "sqlite", "x"]
)
corpora = st.lists(st.lists(words, min_size=1, max_size=12), min_size=1, max_size=12)


def _direct_scores(corpus: list[list[str]], query: list[str]) -> list[float]:
    from collections import Counter

    postings: dict[str, dict[str, int]] = {}
    df: Counter[str] = Counter()
    for i, doc in enumerate(corpus):
        for term, tf in Counter(doc).items():
            postings.setdefault(term, {})[str(i)] = tf
            df[term] += 1
    size = len(corpus)
    stats = bm25.CorpusStats(
        corpus_size=size,
        avgdl=sum(map(len, corpus)) / size,
        average_idf=bm25.average_idf(size, Counter(df.values()).items()),
    )
    lens = {str(i): len(doc) for i, doc in enumerate(corpus)}
    scores = bm25.score(query, stats, df, postings, lens)
    return [scores.get(str(i), 0.0) for i in range(size)]


@settings(max_examples=200, deadline=None)
@given(corpus=corpora, query=st.lists(words, min_size=1, max_size=6))
def test_scores_equal_rank_bm25_bm25okapi(corpus: list[list[str]], query: list[str]) -> None:
    expected = BM25Okapi(corpus).get_scores(query)
    assert _direct_scores(corpus, query) == pytest.approx(list(expected), rel=1e-12, abs=1e-12)


def _indexed(i: int, text: str) -> IndexedNote:
    return IndexedNote(
        id=f"practice-n{i}", path=f"x/practice-n{i}.md", mtime_ns=0, size=0, status="active",
        kind="gotcha", enforce="none", title="", description="", body=text,
    )  # fmt: skip


@settings(max_examples=40, deadline=None)
@given(corpus=corpora, query=st.lists(words, min_size=1, max_size=6), data=st.data())
def test_the_persisted_index_scores_like_rank_bm25_after_updates(
    tmp_path_factory: pytest.TempPathFactory,
    corpus: list[list[str]],
    query: list[str],
    data: st.DataObject,
) -> None:
    path = tmp_path_factory.mktemp("idx") / "index.sqlite"
    docs = {i: " ".join(doc) for i, doc in enumerate(corpus)}
    with IndexWriter(str(path)) as index:
        index.apply([_indexed(i, text) for i, text in docs.items()])
        # Incremental changes must leave the same statistics as a build from scratch.
        removed = data.draw(st.sets(st.sampled_from(sorted(docs)), max_size=len(docs) - 1))
        index.apply(removals=[f"practice-n{i}" for i in removed])
        for i in removed:
            docs.pop(i)
        scores = index.search(tokenize(" ".join(query)))
    kept = sorted(docs)
    corpus = [tokenize(docs[i]) for i in kept]
    # The index adds PRIOR_DOCS virtual documents of average length holding one padding token.
    pad = max(1, round(sum(map(len, corpus)) / len(corpus)))
    with_prior = corpus + [["\x00pad"] * pad for _ in range(PRIOR_DOCS)]
    expected = BM25Okapi(with_prior).get_scores(tokenize(" ".join(query)))[: len(kept)]
    got = [scores.get(f"practice-n{i}", 0.0) for i in kept]
    assert got == pytest.approx(list(expected), rel=1e-9, abs=1e-9)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "Run uv run pytest, never bare pytest",
            ["run", "uv", "run", "pytest", "never", "bare", "pytest"],
        ),
        ("edit src/pay/billing.py", ["edit", "src", "pay", "billing", "py", "src/pay/billing.py"]),
        (
            "getUserName and HTTPServer",
            ["get", "user", "name", "getusername", "http", "server", "httpserver"],
        ),
        ("snake_case_var", ["snake", "case", "var", "snake_case_var"]),
        ("os.path.join", ["os", "path", "join", "os.path.join"]),
        ("What is the weather like?", ["weather"]),
    ],
)
def test_code_aware_tokenisation(text: str, expected: list[str]) -> None:
    assert tokenize(text) == expected


def test_index_survives_reopen_and_reports_files(tmp_path: Path) -> None:
    path = str(tmp_path / "i.sqlite")
    with IndexWriter(path) as index:
        index.apply([_indexed(1, "cache tags tenant")])
    with NoteIndex(path) as index:
        assert index.files() == {"x/practice-n1.md": ("practice-n1", 0, 0)}
        assert set(index.search(["tenant"])) == {"practice-n1"}
