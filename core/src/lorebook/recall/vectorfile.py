"""Every note's vector in one flat file beside the index, read by memory mapping.

A prompt compares its vector with every note's (:func:`lorebook.recall.dense.nearest`).
Read from SQLite rows, those bytes cost a fresh process a page read and a copy each: 8 ms
for 10,000 notes (2.6 MB), ten times that for 100,000. Mapped from one file they cost
nothing until compared, and the comparison reads them in place.

The file, ``index.sqlite.vectors-<token>`` beside ``index.sqlite``, holds (little-endian):
the magic :data:`MAGIC`, the note count and the dimension (uint32 each), every note number
(uint32, ascending), the inverse of each note's int8 scale (float32), then each note's
:data:`~lorebook.recall.semantic.DIM` int8 values. The index's ``meta`` row ``vectors``
names the file. A writer writes a new file under a new name inside its transaction and
names it there, so a reader sees either the old file or the new one, whole; after the
commit it removes the file it replaced. The file is written under a temporary name and
renamed once on disk, so no vectors name ever holds a short file. Files a killed writer
left are removed by the next writer, under the index's write lock (no other writer can be
midway then).

Runs on the hook path: standard library only.
"""

from __future__ import annotations

import contextlib
import mmap
import os
import struct
from array import array
from bisect import bisect_left

from lorebook.recall.semantic import DIM

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

MAGIC = b"LBVEC\x00\x01\x00"
HEADER = struct.Struct("<8sII")
PREFIX = ".vectors-"
"""What follows the index file's name in a vectors file's name."""


def file_path(index_path: str, name: str) -> str:
    """Where the vectors file ``name`` of the index at ``index_path`` lies: beside it."""
    return os.path.join(os.path.dirname(index_path), name)


class VectorFile:
    """A mapped vectors file: ``nums``, ``inverse`` and ``ints`` views over its parts."""

    __slots__ = ("count", "ints", "inverse", "mapped", "nums", "released", "values_at")

    def __init__(self, data: memoryview, count: int) -> None:
        at = HEADER.size
        self.count = count
        self.mapped = data.obj if isinstance(data.obj, mmap.mmap) else None
        """The mapping ``data`` views (None: the file was read into memory)."""
        self.values_at = at + 8 * count
        self.released = -(-self.values_at // mmap.PAGESIZE) * mmap.PAGESIZE
        """Where the values not yet dropped by :meth:`release` begin (a page boundary)."""
        self.nums = data[at : at + 4 * count]
        """Note numbers, uint32 (bytes)."""
        self.inverse = data[at + 4 * count : at + 8 * count]
        """Each note's ``1 / scale``, float32 (bytes)."""
        self.ints = data[self.values_at :]
        """Each note's int8 values, ``count`` rows of ``DIM``."""

    def release(self, end: int) -> None:
        """Drop the values of the notes before position ``end`` from this process's memory.

        A prompt compares every note once: at 100,000 notes the 25 MB of values it read
        would otherwise stay counted in the hook process's resident memory to its end. The
        pages stay in the kernel's file cache, and a later read maps them again: the values
        read are the same. Whole pages only, each once. Nothing happens where the file was
        read into memory, or where the platform has no ``MADV_DONTNEED``.
        """
        advice = getattr(mmap, "MADV_DONTNEED", None)
        if self.mapped is None or advice is None:
            return
        last = (self.values_at + DIM * end) // mmap.PAGESIZE * mmap.PAGESIZE
        if last > self.released:
            with contextlib.suppress(OSError, ValueError):
                self.mapped.madvise(advice, self.released, last - self.released)
            self.released = last


def _checked(path: str, size: int, header: bytes) -> int:
    """The note count of a vectors file of ``size`` bytes that begins with ``header``.

    Raises:
        ValueError: it is empty or not a vectors file of this version.
    """
    if size < HEADER.size:
        raise ValueError(f"{path}: not a lorebook vectors file of this version")
    magic, count, dim = HEADER.unpack_from(header)
    if magic != MAGIC or dim != DIM or size != HEADER.size + count * (8 + DIM):
        raise ValueError(f"{path}: not a lorebook vectors file of this version")
    return int(count)


def open_vectors(index_path: str, name: str) -> VectorFile | None:
    """Map the vectors file ``name`` of the index at ``index_path`` (None: the index names none).

    Raises:
        OSError: the file cannot be opened (removed by a newer writer: read ``meta`` again).
        ValueError: the file is empty or not a vectors file of this version.
    """
    if not name:
        return None
    path = file_path(index_path, name)
    with open(path, "rb") as handle:
        size = os.fstat(handle.fileno()).st_size
        if size < HEADER.size:
            raise ValueError(f"{path}: not a lorebook vectors file of this version")
        mapped = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
    try:
        count = _checked(path, size, mapped[: HEADER.size])
    except ValueError:
        mapped.close()
        raise
    return VectorFile(memoryview(mapped), count)


def read_vectors(index_path: str, name: str) -> VectorFile:
    """The vectors file ``name`` read whole into memory (a writer's copy: nothing stays mapped).

    Raises:
        OSError: the file cannot be read.
        ValueError: it is not a vectors file of this version.
    """
    path = file_path(index_path, name)
    with open(path, "rb") as handle:
        data = handle.read()
    return VectorFile(memoryview(data), _checked(path, len(data), data[: HEADER.size]))


def write_vectors(index_path: str, rows: Iterable[tuple[int, bytes]]) -> str:
    """Write ``(note number, stored vector)`` rows, ascending, to a new file; its name.

    A stored vector is a float32 scale and ``DIM`` int8 values
    (:func:`lorebook.recall.dense.quantize`). The file is flushed to disk before the name
    is returned, so the index may name it.
    """
    from lorebook.recall.dense import pack

    chunks = list(pack(rows))
    return _write(
        index_path,
        b"".join(chunk[1] for chunk in chunks),
        b"".join(chunk[2] for chunk in chunks),
        b"".join(chunk[3] for chunk in chunks),
    )


def write_changed(index_path: str, old: VectorFile, changes: Mapping[int, bytes | None]) -> str:
    """Write ``old`` with ``changes`` applied to a new file; its name.

    ``changes`` maps a note number to its new stored vector, or to None for a note that
    has none any more (removed, or written without the model). The notes left alone are
    copied as they are, a run of them at a time: a note added to 100,000 costs a copy of
    the file, not a pass over every note's row. The bytes are those :func:`write_vectors`
    writes from every row once changed (a test compares them).
    """
    from lorebook.recall.dense import split_stored

    nums = array("I")
    nums.frombytes(old.nums)
    parts: tuple[list[bytes | memoryview], ...] = ([], [], [])
    views, widths = (old.nums, old.inverse, old.ints), (4, 4, DIM)
    at = 0
    for num in sorted(changes):
        i = bisect_left(nums, num, at)
        for part, view, width in zip(parts, views, widths, strict=True):
            part.append(view[width * at : width * i])
        at = i + 1 if i < len(nums) and nums[i] == num else i
        stored = changes[num]
        if stored is not None:
            scale, values = split_stored(stored)
            parts[0].append(array("I", [num]).tobytes())
            parts[1].append(array("f", [1 / scale]).tobytes())
            parts[2].append(values)
    for part, view, width in zip(parts, views, widths, strict=True):
        part.append(view[width * at :])
    return _write(index_path, *(b"".join(part) for part in parts))


def _write(index_path: str, nums: bytes, inverse: bytes, ints: bytes) -> str:
    """Write the parts to a new file, flushed to disk (:func:`lorebook.safeopen.write_atomic`).

    A writer killed midway leaves only its temporary file (a dot-file no reader opens),
    never a short file under a vectors name; the next writer's :func:`sweep_vectors`
    removes it.
    """
    from lorebook.safeopen import write_atomic

    name = os.path.basename(index_path) + PREFIX + os.urandom(8).hex()
    header = HEADER.pack(MAGIC, len(nums) // 4, DIM)
    write_atomic(file_path(index_path, name), header, nums, inverse, ints)
    return name


def remove_vectors(index_path: str, name: str) -> None:
    """Remove the vectors file ``name`` of the index at ``index_path``, if it is there."""
    if name:
        try:  # noqa: SIM105 (contextlib stays off the hook path)
            os.unlink(file_path(index_path, name))
        except FileNotFoundError:
            pass


def sweep_vectors(index_path: str, keep: Iterable[str]) -> None:
    """Remove every vectors file of the index at ``index_path`` but those in ``keep``.

    Temporary files of vectors files go too. Only a writer holding the index's write lock
    calls this: no other writer is then between writing its file and naming it.
    """
    folder = os.path.dirname(index_path) or "."
    prefix = os.path.basename(index_path) + PREFIX
    kept = set(keep)
    try:
        names = os.listdir(folder)
    except OSError:
        return
    for name in names:
        named = name.startswith(prefix) and name not in kept
        if named or (name.startswith("." + prefix) and name.endswith(".tmp")):
            remove_vectors(index_path, name)
