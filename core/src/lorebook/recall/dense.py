"""Nearest notes by embedding: exact cosines for a small index, sign codes first for a large one.

Every note's unit vector is kept as float32 (for exact cosines) and as a 256-bit sign code
(one bit a dimension: is it positive), packed in note-number order in one row of the index.
Up to :data:`lorebook.recall.writer.EXACT_VECTORS` notes a prompt's vector is compared
with every float vector; above it, the Hamming distance of the codes (the angle they
approximate) picks :data:`RERANK` notes, whose float vectors then give exact cosines. With
simsimd (part of ``lorebook[semantic]``) both comparisons run in compiled code; without
it, in plain Python.

Runs on the hook path: standard library only (simsimd is a compiled module without numpy).
"""

from __future__ import annotations

import heapq
import struct
from array import array

from lorebook.recall.semantic import DIM, HALF_ROW, dots

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from lorebook.recall.index import NoteIndex

CODE_BYTES = DIM // 8
RERANK = 512
"""How many notes the sign codes choose for exact cosines (an index this small or smaller
is compared exactly with every note)."""


_SIGN_DIGITS = bytes.maketrans(bytes(range(256)), bytes(49 - (b >> 7) for b in range(256)))
"""Maps the high byte of a little-endian float32 to ``1`` when its sign bit is clear."""


def sign_code(vec: bytes) -> bytes:
    """The 256-bit sign code of a float32 vector: bit i set when component i's sign is +."""
    digits = vec[3::4].translate(_SIGN_DIGITS)  # the byte holding each float's sign bit
    return int(digits[::-1], 2).to_bytes(CODE_BYTES, "little")


def _hamming(query: bytes, codes: bytes) -> list[float]:
    rows = len(codes) // CODE_BYTES
    try:
        import simsimd
    except ImportError:
        mine = int.from_bytes(query, "little")
        return [
            float((mine ^ int.from_bytes(codes[i * CODE_BYTES : (i + 1) * CODE_BYTES], "little"))
                  .bit_count())
            for i in range(rows)
        ]  # fmt: skip
    cdist: Any = simsimd.cdist  # its stubs do not know the bin8 type
    result: Any = memoryview(
        cdist(
            memoryview(query).cast("B", [1, CODE_BYTES]),
            memoryview(codes).cast("B", [rows, CODE_BYTES]),
            metric="hamming",
            dtype="bin8",
        )
    ).tolist()
    return [float(x) for x in result[0]]


def nearest(index: NoteIndex, query: list[float], k: int) -> dict[int, float]:
    """The ``k`` notes most similar to ``query`` (a unit vector): note number -> cosine."""
    raw_nums, codes = index.vector_pack()
    nums = array("I")
    nums.frombytes(raw_nums)
    if not nums:
        return {}
    if len(nums) <= RERANK:
        chosen = list(nums)
    else:
        distances = _hamming(sign_code(array("f", query).tobytes()), codes)
        best = heapq.nsmallest(RERANK, range(len(nums)), key=lambda i: (distances[i], nums[i]))
        chosen = [nums[i] for i in best]
    exact = cosines(index, query, chosen)
    return dict(heapq.nlargest(k, exact.items(), key=lambda item: (item[1], -item[0])))


def cosines(index: NoteIndex, query: list[float], nums: list[int]) -> dict[int, float]:
    """Exact cosines of ``query`` with the vectors of these notes."""
    vectors = index.note_vectors(nums)
    order = sorted(vectors)
    if not order:
        return {}
    floats = array("f")
    for n in order:
        floats.extend(struct.unpack(HALF_ROW, vectors[n]))
    sims = dots(query, floats.tobytes())
    return dict(zip(order, sims, strict=True))


def to_half(vec: bytes) -> bytes:
    """A float32 vector as float16 bytes (what the index keeps: half the size)."""
    values = array("f")
    values.frombytes(vec)
    return struct.pack(HALF_ROW, *values)
