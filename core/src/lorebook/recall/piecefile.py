"""The piece table as one flat file for the prompt hook: no SQLite, no copies.

A prompt's embedding needs the vectors of a few dozen pieces (:mod:`lorebook.recall.semantic`).
Read from the SQLite piece table, they cost a fresh process a connection and its schema,
and, for any word that is not itself a piece, a copy of the table's 340 KB of hashes.
Mapped from this file, a prompt ranks about 0.4 ms sooner (typical) to 0.9 ms (a pasted
traceback) at 10,000 notes. The file holds the same pieces, derived from the table, laid
out for look-ups in place (native byte order):

    magic, piece count N, prefix-hash count P, dimension       (8 bytes, 3 x uint32)
    the pieces' CRC-32s, ascending                              (N x uint32)
    where each piece's UTF-8 bytes start in the text, then its end  (N + 1 x uint32)
    the CRC-32s of every prefix of every piece, ascending       (P x uint32)
    the pieces' UTF-8 bytes, in the order of their CRC-32s
    padding to 4 bytes, then each piece's vector                (N x dimension x float64)

The look-up parts are mapped. A piece is found by a binary search of its CRC-32, then a
comparison of its bytes (two pieces may share a CRC-32); its vector, the model's float16
widened exactly to the float64 the embedding sums in, is read with one ``pread`` and used
as it is (widening a pasted prompt's ~130 vectors cost a warm hook 1.2 ms of its 10). The
file is written beside the table, ``<table stem>.pieces``, atomically, by every command that
ensures the table (:func:`lorebook.recall.semantic.ensure_piece_table`); until then, or when
it is damaged or of an older layout, the hook reads the table as before.

Runs on the hook path: standard library only.
"""

from __future__ import annotations

import mmap
import os
import struct
import zlib
from array import array
from bisect import bisect_left

from lorebook.recall.db import sqlite3

MAGIC = b"LBPIECE2"
HEADER = struct.Struct("=8sIII")
"""Native byte order, as are the parts: the file is this machine's cache, never shared."""
SUFFIX = ".pieces"


def piece_file_path(table: str) -> str:
    """The flat file derived from the piece table at ``table``: beside it."""
    return os.path.splitext(table)[0] + SUFFIX


class PieceFile:
    """A piece file: :meth:`find` a piece, read its :meth:`vector`; :meth:`close` it.

    The look-up parts are mapped; each vector is read with one ``pread`` (a mapped vector
    would bring its neighbours into the process's resident memory too: some 15 MB for a
    pasted traceback's pieces).
    """

    __slots__ = ("count", "crcs", "dim", "ends", "fd", "prefixes", "text", "vectors_at")

    def __init__(
        self, fd: int, data: memoryview, count: int, prefixes: int, dim: int, vectors_at: int
    ) -> None:
        at = HEADER.size
        self.fd = fd
        self.count = count
        self.dim = dim
        self.crcs = data[at : at + 4 * count].cast("I")
        """Every piece's CRC-32, ascending (a sequence of ints, read in place)."""
        at += 4 * count
        self.ends = data[at : at + 4 * (count + 1)].cast("I")
        at += 4 * (count + 1)
        self.prefixes = data[at : at + 4 * prefixes].cast("I")
        """The CRC-32 of every prefix of every piece, ascending."""
        at += 4 * prefixes
        self.text = data[at:]
        self.vectors_at = vectors_at
        """Where the vectors start in the file."""

    def find(self, piece: str) -> int:
        """The position of ``piece`` (-1: no such piece)."""
        raw = piece.encode()
        crc = zlib.crc32(raw)
        crcs, ends, text = self.crcs, self.ends, self.text
        at = bisect_left(crcs, crc)
        while at < self.count and crcs[at] == crc:
            if text[ends[at] : ends[at + 1]] == raw:
                return at
            at += 1
        return -1

    def vector(self, at: int) -> array[float]:
        """The vector of the piece at position ``at``, as float64."""
        width = 8 * self.dim
        values = array("d")
        values.frombytes(_read_at(self.fd, width, self.vectors_at + at * width))
        return values

    def close(self) -> None:
        """Close the file (the mapping goes with the last view of it)."""
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1


def open_piece_file(table: str) -> PieceFile | None:
    """Open the flat file of the piece table at ``table``; None when it is missing or damaged."""
    try:
        fd = os.open(piece_file_path(table), os.O_RDONLY | getattr(os, "O_BINARY", 0))
    except OSError:
        return None
    try:
        size = os.fstat(fd).st_size
        head = _read_at(fd, HEADER.size, 0)
        if len(head) < HEADER.size:
            raise ValueError("short")
        magic, count, prefixes, dim = HEADER.unpack(head)
        texts = HEADER.size + 4 * (2 * count + 1 + prefixes)  # where the pieces' bytes start
        (text,) = struct.unpack("=I", _read_at(fd, 4, texts - 4 * (prefixes + 1)))
        lookups = texts + text + (-text) % 4
        if magic != MAGIC or size != lookups + 8 * dim * count:
            raise ValueError("not a piece file of this version")
        mapped = mmap.mmap(fd, lookups, access=mmap.ACCESS_READ)
    except (OSError, ValueError, struct.error):
        os.close(fd)
        return None
    return PieceFile(fd, memoryview(mapped)[: texts + text], count, prefixes, dim, lookups)


def _read_at(fd: int, size: int, offset: int) -> bytes:
    """``size`` bytes at ``offset`` (``os.pread`` where there is one: not on Windows)."""
    if hasattr(os, "pread"):
        return os.pread(fd, size, offset)
    os.lseek(fd, offset, os.SEEK_SET)
    return os.read(fd, size)


def write_piece_file(table: str, dim: int) -> str:
    """Write the flat file of the piece table at ``table`` (atomically); return its path.

    The prefix hashes are the table's own (``prefix_hashes``, sorted, as
    :func:`lorebook.recall.semantic.build_piece_table` writes them).

    Raises:
        sqlite3.Error: the table cannot be read (or keeps no prefix hashes).
        ValueError: a stored vector is not ``dim`` float16 values.
    """
    db = sqlite3.connect(f"file:{table}?mode=ro", uri=True)
    try:
        rows = db.execute("SELECT piece, vec FROM pieces").fetchall()
        prefixes = array("I")
        prefixes.frombytes(db.execute("SELECT crcs FROM prefix_hashes").fetchone()[0])
    finally:
        db.close()
    entries = sorted((zlib.crc32(piece.encode()), piece.encode(), vec) for piece, vec in rows)
    ends, text, vectors = array("I", [0]), bytearray(), array("d")
    half = struct.Struct(f"<{dim}e")
    for _, raw, vec in entries:
        if len(vec) != half.size:
            raise ValueError(f"{table}: a vector of {len(vec)} bytes, not {half.size}")
        text += raw
        ends.append(len(text))
        vectors.extend(half.unpack(vec))
    crcs = array("I", [crc for crc, _, _ in entries])
    target = piece_file_path(table)
    tmp = f"{target}.{os.getpid()}.tmp"
    try:
        with open(tmp, "wb") as handle:
            handle.write(HEADER.pack(MAGIC, len(entries), len(prefixes), dim))
            for part in (crcs, ends, prefixes):
                handle.write(part.tobytes())
            handle.write(bytes(text) + bytes((-len(text)) % 4))
            handle.write(vectors.tobytes())
        os.replace(tmp, target)
    except BaseException:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise
    return target
