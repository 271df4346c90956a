"""Nearest notes by embedding: sign codes to choose, int8 vectors to compare exactly.

Every note's unit vector is kept quantised to int8 with one scale (:func:`quantize`, 260
bytes a note) and as a 256-bit sign code (one bit a dimension: is it positive); the codes
of every note are packed in note-number order in one row of the index. A prompt's code is
compared with every note's (Hamming distance, the angle it approximates), the
:data:`RERANK` closest are compared exactly (an index of that many notes or fewer is
compared exactly with every note). With simsimd (part of ``lorebook[semantic]``) both
comparisons run in compiled code; without it, in plain Python.

Runs on the hook path: standard library only (simsimd is a compiled module without numpy).
"""

from __future__ import annotations

import heapq
import struct
from array import array

from lorebook.recall.semantic import DIM

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from lorebook.recall.index import NoteIndex

CODE_BYTES = DIM // 8
RERANK = 256
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
        cut = sorted(distances)[RERANK - 1]  # the RERANK-th closest, and every tie with it
        chosen = [nums[i] for i, d in enumerate(distances) if d <= cut]
    exact = cosines(index, query, chosen)
    return dict(heapq.nlargest(k, exact.items(), key=lambda item: (item[1], -item[0])))


def cosines(index: NoteIndex, query: list[float], nums: list[int]) -> dict[int, float]:
    """Cosines of ``query`` with the vectors of these notes (to within int8 rounding)."""
    vectors = index.note_vectors(nums)
    order = sorted(vectors)
    if not order:
        return {}
    mine = quantize(array("f", query).tobytes())
    q_scale, q_ints = _split(mine)
    scales = [_split(vectors[n])[0] for n in order]
    ints = b"".join(vectors[n][SCALE_BYTES:] for n in order)
    raw = _int8_dots(q_ints, ints, len(order))
    return {n: raw[i] / (q_scale * scales[i]) for i, n in enumerate(order)}


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


def _split(stored: bytes) -> tuple[float, bytes]:
    (scale,) = struct.unpack_from("<f", stored)
    return scale, stored[SCALE_BYTES:]


def _int8_dots(query: bytes, rows: bytes, count: int) -> list[float]:
    try:
        import simsimd
    except ImportError:
        from operator import mul

        mine = array("b", query)
        every = array("b", rows)
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
