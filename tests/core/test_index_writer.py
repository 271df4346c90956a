"""The index writer's packed postings unpack to the posting lists the index stores."""

from __future__ import annotations

import sys
from array import array

import pytest
from hypothesis import given, settings, strategies as st

from lorebook.recall import changes
from lorebook.recall.postings import MAX_VALUE, PostingList

postings = st.lists(
    st.tuples(st.integers(0, 2**32 - 1), st.integers(0, MAX_VALUE), st.integers(0, MAX_VALUE)),
    max_size=30,
    unique_by=lambda p: p[0],
).map(sorted)


@settings(max_examples=200, deadline=None)
@given(postings, st.sampled_from(["little", "big"]))
def test_packed_postings_unpack_to_keys_and_tf_length_pairs(
    entries: list[tuple[int, int, int]], byteorder: str
) -> None:
    added = array("Q", [key << 32 | length << 16 | tf for key, tf, length in entries])
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(sys, "byteorder", byteorder)  # both ways of unpacking
        unpacked = changes.unpacked(added)
    expected = PostingList(
        array("I", [k for k, _, _ in entries]),
        array("H", [v for _, tf, length in entries for v in (tf, length)]),
    )
    assert unpacked.encode() == expected.encode()
    change = changes.WordChanges()
    change.added = array("Q", reversed(added))  # out of order: sorted by the general merge
    assert change.merged(None).encode() == expected.encode()


def test_the_collector_is_paused_for_the_block_and_put_back_as_it_was() -> None:
    import gc

    assert gc.isenabled()
    with changes.paused_gc():
        assert not gc.isenabled()
        with changes.paused_gc():  # nested: the outer pause still holds after the inner one
            pass
        assert not gc.isenabled()
    assert gc.isenabled()
    gc.disable()
    try:
        with changes.paused_gc():
            pass
        assert not gc.isenabled()  # it was off before: it stays off
    finally:
        gc.enable()
    with pytest.raises(ValueError, match="boom"), changes.paused_gc():
        raise ValueError("boom")
    assert gc.isenabled()
