"""The dense search is exact: the notes it finds are those of comparing every note."""

from __future__ import annotations

import math
import random
from array import array

import pytest
from hypothesis import given, settings, strategies as st

from lorebook.recall import dense
from lorebook.recall.document import IndexedNote
from lorebook.recall.semantic import DIM
from lorebook.recall.writer import IndexWriter


@given(
    st.lists(st.floats(-1, 1, width=32), max_size=300),
    st.integers(1, 20),
    st.floats(-1.5, 1.5) | st.just(-math.inf),
)
def test_best_positions_hold_the_k_largest_and_every_tie(
    values: list[float], k: int, at_least: float
) -> None:
    found = set(dense.best_positions(array("f", values), k, at_least))
    exact = array("f", values)
    kth = sorted(exact, reverse=True)[k - 1] if len(exact) > k else -math.inf
    assert {i for i, v in enumerate(exact) if v >= max(kth, at_least)} <= found
    assert all(exact[i] >= at_least for i in found)


FLOORS = (
    st.floats(-1.5, 1.5)
    | st.sampled_from([0.0, -0.0, math.inf, -math.inf, 1e-45, -1e-45, 1e39, -1e39])
    | st.floats(width=32, allow_nan=False)
)


@given(st.lists(st.floats(-1, 1, width=32), max_size=1200), FLOORS)
def test_at_least_finds_every_value_reaching_the_floor_in_order(
    values: list[float], floor: float
) -> None:
    exact = array("f", values)
    expected = [i for i, v in enumerate(exact) if v >= floor]
    assert dense.at_least(exact, floor) == expected  # from the sign bytes, with simsimd
    assert dense.at_least_by_blocks(exact, floor) == expected


@given(st.lists(st.floats(width=32, allow_nan=False), min_size=1, max_size=50), FLOORS)
def test_at_least_holds_at_the_edges_of_float32(values: list[float], floor: float) -> None:
    """Signed zeros, infinities, denormals and huge values sit where the sign trick could slip."""
    exact = array("f", values)
    assert dense.at_least(exact, floor) == [i for i, v in enumerate(exact) if v >= floor]


def _unit(rng: random.Random) -> list[float]:
    vec = [rng.gauss(0, 1) for _ in range(DIM)]
    norm = math.sqrt(sum(x * x for x in vec))
    return [x / norm for x in vec]


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 40), st.integers(1, 12))
def test_nearest_equals_comparing_every_note(
    tmp_path_factory: pytest.TempPathFactory, seed: int, notes: int, k: int
) -> None:
    rng = random.Random(seed)
    vectors = {f"n{i}": dense.quantize(array("f", _unit(rng)).tobytes()) for i in range(notes)}
    path = tmp_path_factory.mktemp("dense") / "index.sqlite"
    rows = [IndexedNote(i, f"{i}.md", 0, 0, "active", "gotcha", "none", i, "", "x")
            for i in vectors]  # fmt: skip
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(dense, "CHUNK", 7)  # several rows, the last one short
        patch.setattr(dense, "BLOCK", 3)  # blocks skipped and looked into within a row
        patch.setattr(IndexWriter, "_vectors", lambda self, batch: [vectors[n.id] for n in batch])
        with IndexWriter(str(path)) as index:
            index.apply(rows)
            query = _unit(rng)
            every = dense.cosines(index, query, list(range(1, notes + 1)))
            top = sorted(every.items(), key=lambda item: (-item[1], item[0]))[:k]
            assert dense.nearest(index, query, k) == dict(top)
            assert len(list(index.vector_chunks())) == math.ceil(notes / 7)
