"""Nearest notes by embedding: every note compared exactly, in compiled code.

Every note's unit vector is kept quantised to int8 with its own scale (:func:`quantize`,
260 bytes a note) on its row, and again in note-number order in the vectors file the
index names (:mod:`lorebook.recall.vectorfile`): the note numbers, the inverse of each
scale, and the int8 values, mapped into memory. A prompt's vector is compared with every
note of a chunk of :data:`CHUNK` notes in one call (the int8 dot products, then one
multiplication by the inverse scales), and the best of the chunk are found without a
Python step per note (:func:`best_positions`): a prompt reads 260 bytes a note in place,
never a row per note. With simsimd (part of ``lorebook[semantic]``) the arithmetic runs in
compiled code; without it, in plain Python.

Runs on the hook path: standard library only (simsimd is a compiled module without numpy).
"""

from __future__ import annotations

import heapq
import math
import struct
import sys
from array import array

from lorebook.recall.semantic import DIM

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator
    from typing import Any

    from lorebook.recall.index import NoteIndex

CHUNK = 4096
"""Notes compared in one call (1 MB of int8 values)."""
BLOCK = 256
""":func:`at_least` skips a block of this many values whose largest is below the floor."""
SAMPLE_STEP = 8
""":func:`best_positions` looks at every 8th value first to bound what the best can be."""


def pack(rows: Iterable[tuple[int, bytes]]) -> Iterator[tuple[int, bytes, bytes, bytes]]:
    """The chunks of ``(note number, stored vector)`` pairs in number order, packed.

    Each chunk is (first note number, note numbers as uint32, each note's inverse scale as
    float32, the notes' int8 values concatenated): what the vectors file holds, read from
    the notes' rows when that file is missing.
    """
    nums, inverse, ints = array("I"), array("f"), bytearray()
    for num, vec in rows:
        scale, values = split_stored(bytes(vec))
        nums.append(num)
        inverse.append(1 / scale)
        ints += values
        if len(nums) == CHUNK:
            yield nums[0], nums.tobytes(), inverse.tobytes(), bytes(ints)
            nums, inverse, ints = array("I"), array("f"), bytearray()
    if nums:
        yield nums[0], nums.tobytes(), inverse.tobytes(), bytes(ints)


def nearest(index: NoteIndex, query: list[float], k: int) -> dict[int, float]:
    """The ``k`` notes most similar to ``query`` (a unit vector): note number -> cosine.

    Exact (to within int8 rounding): every note is compared; ties go to the lower number.
    """
    q_scale, q_ints = split_stored(quantize(array("f", query).tobytes()))
    best: list[tuple[float, int]] = []
    floor = -math.inf  # the k-th best so far: a chunk whose best is lower adds nothing
    for raw_nums, raw_inverse, ints in index.vector_chunks():
        nums, inverse = array("I"), array("f")
        nums.frombytes(raw_nums)
        inverse.frombytes(raw_inverse)
        sims = _scaled_dots(q_ints, ints, inverse, 1 / q_scale)
        found = at_least(sims, floor) if len(best) >= k else best_positions(sims, k, floor)
        best += [(sims[i], -nums[i]) for i in found]
        if len(best) >= k:
            best = heapq.nlargest(k, best)
            floor = best[-1][0]
    return {-neg: sim for sim, neg in heapq.nlargest(k, best)}


def best_positions(values: array[float], k: int, floor: float = -math.inf) -> list[int]:
    """Positions of at least the ``k`` largest of ``values`` (ties too), of those ``>= floor``.

    The k-th largest of every 8th value is no larger than the k-th largest of all (a
    subset's k-th largest never is), so every value at least that large is kept: about
    8 k positions, found by :func:`at_least` (not a Python step per value).
    """
    if len(values) <= k:
        return [i for i, v in enumerate(values) if v >= floor]
    sample = values[::SAMPLE_STEP] if len(values) >= SAMPLE_STEP * k else values
    return at_least(values, max(floor, sorted(sample, reverse=True)[k - 1]))


def at_least(values: array[float], floor: float) -> list[int]:
    """Positions of the values at least ``floor``, in order.

    With simsimd, ``value - below`` is computed for every value in one call, ``below``
    being a float32 a little under ``floor``: a value reaching ``floor`` comes out positive,
    so its float32 sign bit is clear, and the sign bytes (every fourth byte of the result)
    are searched with :meth:`bytes.find` instead of being turned into Python floats. Each
    position found is then checked against ``floor`` exactly, so values just under it
    are dropped. Without simsimd, :func:`at_least_by_blocks`.
    """
    if not values:
        return []
    try:
        import simsimd
    except ImportError:
        return at_least_by_blocks(values, floor)
    wsum: Any = simsimd.wsum
    below = floor - max(abs(floor), 1.0) * 1e-6  # its float32 is below floor: see above
    if not -FLOAT32_MAX < below < FLOAT32_MAX:  # an infinite floor, or one beyond float32
        return at_least_by_blocks(values, floor)
    shifted = wsum(values, array("f", [1.0]) * len(values), "float32", alpha=1.0, beta=-below)
    signs = bytes(memoryview(shifted).cast("B"))[_SIGN_BYTE::4].translate(_SIGN_CLEAR)
    found: list[int] = []
    at = signs.find(1)
    while at >= 0:
        if values[at] >= floor:
            found.append(at)
        at = signs.find(1, at + 1)
    return found


FLOAT32_MAX = 3.4028234663852886e38
_SIGN_BYTE = 3 if sys.byteorder == "little" else 0
"""Which byte of a float32 holds its sign bit (the highest)."""
_SIGN_CLEAR = bytes(1 if byte < 0x80 else 0 for byte in range(256))
"""A sign byte -> 1 when the sign bit is clear (the value is positive or +0), else 0."""


def at_least_by_blocks(values: array[float], floor: float) -> list[int]:
    """:func:`at_least` in plain Python.

    Looks into a block of :data:`BLOCK` values only when its largest reaches ``floor``
    (:func:`max` over a view runs in compiled code): once the k best so far are known, most
    blocks of a chunk hold none of the notes that can still join them.
    """
    view = memoryview(values)
    found: list[int] = []
    for start in range(0, len(values), BLOCK):
        block = view[start : start + BLOCK]
        if max(block) >= floor:
            found += [start + i for i, v in enumerate(block) if v >= floor]
    return found


def _scaled_dots(
    query: bytes, ints: bytes | memoryview, inverse: array[float], factor: float
) -> array[float]:
    """``factor * dot(query, row) * inverse[row]`` for every int8 row of ``ints``."""
    count = len(inverse)
    try:
        import simsimd
    except ImportError:
        dots = _int8_dots(query, ints, count)
        return array("f", [d * inv * factor for d, inv in zip(dots, inverse, strict=True)])
    cdist: Any = simsimd.cdist
    fma: Any = simsimd.fma
    dots = cdist(
        memoryview(query).cast("b", [1, DIM]),
        memoryview(ints).cast("b", [count, DIM]),
        metric="dot",
        out_dtype="float32",
    )
    flat = memoryview(dots).cast("B").cast("f")
    scaled = fma(flat, inverse, inverse, "float32", alpha=factor, beta=0.0)
    out = array("f")
    out.frombytes(memoryview(scaled).cast("B"))
    return out


def cosines(index: NoteIndex, query: list[float], nums: list[int]) -> dict[int, float]:
    """Cosines of ``query`` with the vectors of these notes, computed as :func:`nearest` does."""
    vectors = index.note_vectors(nums)
    order = sorted(vectors)
    if not order:
        return {}
    q_scale, q_ints = split_stored(quantize(array("f", query).tobytes()))
    inverse = array("f", [1 / split_stored(vectors[n])[0] for n in order])
    ints = b"".join(vectors[n][SCALE_BYTES:] for n in order)
    sims = _scaled_dots(q_ints, ints, inverse, 1 / q_scale)
    return {n: sims[i] for i, n in enumerate(order)}


SCALE_BYTES = 4


def quantize(vec: bytes) -> bytes:
    """A float32 unit vector as the index keeps it: a float32 scale, then 256 int8 values.

    Each component is rounded to ``round(v * scale)`` with ``scale = 127 / max |v|``, so a
    note costs 260 bytes and a prompt's exact comparison is one int8 dot product.
    """
    values = array("f")
    values.frombytes(vec)
    top = max((abs(v) for v in values), default=0.0) or 1.0
    scale = 127 / top
    ints = array("b", [max(-127, min(127, round(v * scale))) for v in values])
    return struct.pack("<f", scale) + ints.tobytes()


def split_stored(stored: bytes) -> tuple[float, bytes]:
    """(scale, int8 values) of a vector as :func:`quantize` stores it."""
    (scale,) = struct.unpack_from("<f", stored)
    return scale, stored[SCALE_BYTES:]


def _int8_dots(query: bytes, rows: bytes | memoryview, count: int) -> list[float]:
    try:
        import simsimd
    except ImportError:
        from operator import mul

        mine = array("b", query)
        every = array("b")
        every.frombytes(rows)
        return [float(sum(map(mul, mine, every[i * DIM : (i + 1) * DIM]))) for i in range(count)]
    cdist: Any = simsimd.cdist
    result: Any = memoryview(
        cdist(
            memoryview(query).cast("b", [1, DIM]),
            memoryview(rows).cast("b", [count, DIM]),
            metric="dot",
        )
    ).tolist()
    return [float(x) for x in result[0]]
