"""What one index write gathers before it writes: each word's postings, packed.

A write of many notes adds millions of postings; each is kept as one 64-bit int until the
word's list is written, and the cyclic garbage collector is paused while they are built.
Runs on the hook path (the session-start hook writes the index): standard library only.
"""

from __future__ import annotations

import gc
import sys
from array import array
from contextlib import contextmanager

from lorebook.recall.postings import MAX_VALUE, PostingList, merge

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator

PAUSE_GC_NOTES = 1000
"""Writes of this many notes or more run with the garbage collector paused (:func:`paused_gc`)."""


@contextmanager
def paused_gc() -> Iterator[None]:
    """Run the block without the cyclic garbage collector, then put it back as it was.

    Building an index of many notes allocates millions of objects and no reference cycles
    worth collecting; the collector's passes over the whole heap took 4 s of a 100,000-note
    rebuild (and touched every page a forked child shares with its parent).
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


class WordChanges:
    """One word in one write: the notes whose postings go, and the postings that come."""

    __slots__ = ("added", "drop")

    def __init__(self) -> None:
        self.drop: set[int] = set()
        self.added = array("Q")
        """Each added posting as one 64-bit int, ``key << 32 | length << 16 | tf``: one
        append a posting, not three, and 8 bytes, not a 40-byte int in a list (a 100,000-note
        rebuild adds 13 million)."""

    def merged(self, old: PostingList | None) -> PostingList:
        """``old`` without the dropped notes, with the added postings, sorted by key."""
        added = self.added
        if old is None and all(map(int.__lt__, added, added[1:])):
            return unpacked(added)  # a fresh build: keys already in order
        add = [(p >> 32, p & MAX_VALUE, (p >> 16) & MAX_VALUE) for p in added]
        return merge(old, self.drop, add)


def unpacked(added: array[int]) -> PostingList:
    """The posting list of packed postings (see :attr:`WordChanges.added`), in their order."""
    if sys.byteorder != "little":
        pairs = [v for p in added for v in (p & MAX_VALUE, (p >> 16) & MAX_VALUE)]
        return PostingList(array("I", [p >> 32 for p in added]), array("H", pairs))
    # Little-endian, each 64-bit posting is two 32-bit halves: (length << 16 | tf), then
    # the key; the first halves, read as 16-bit numbers, are the tf, length pairs.
    halves = memoryview(added).cast("B").cast("I")
    keys, values = array("I"), array("H")
    keys.frombytes(halves[1::2].tobytes())
    values.frombytes(halves[0::2].tobytes())
    return PostingList(keys, values)
