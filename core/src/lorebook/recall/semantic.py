"""The semantic signal: static word-piece embeddings, so other words still find a note.

The vectors are WordLlama's (MIT): a 32,000 x 256 table, one vector per piece of the
Llama 2 tokenizer, shipped inside the ``wordllama`` wheel (``pip install
'lorebook[semantic]'``). A text's embedding is the mean of its pieces' vectors, as
WordLlama computes it; similarity is the cosine. Nothing here imports ``wordllama`` or a
tokenizer library, and nothing is downloaded: the package's two data files are read
directly, once per machine, into a piece table (SQLite, under the user cache folder) and
its flat copy (:mod:`lorebook.recall.piecefile`), which the hooks map to look up the
pieces of a prompt's words. Only an index writer embedding many notes at once
(:class:`Embedder` with ``bulk=True``) uses numpy, when it is installed; the vectors are
the same bits either way (:meth:`Embedder.embed`).

Pieces never cross a space (the tokenizer's pieces mark a word start with ``▁`` and
hold no inner one), so a text is cut at whitespace and each chunk, prefixed with ``▁``,
is segmented on its own: greedily, longest known piece first, the same way for notes and
prompts. (WordLlama applies the tokenizer's BPE merges; greedy longest match picks the
same pieces for most words and needs no merge table at hook time.)

The hook path uses standard library only.
"""

from __future__ import annotations

import json
import math
import os
import struct
import zlib
from array import array
from bisect import bisect_left
from functools import reduce
from operator import add, mul

from lorebook.recall.db import sqlite3
from lorebook.recall.piecefile import open_piece_file, write_piece_file

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Any

    from lorebook.recall.piecefile import PieceFile

MODEL = "l2_supercat_256"
TOKENIZER_FILE = "l2_supercat_tokenizer_config.json"
DIM = 256
MAX_PIECE = 16
"""Longest piece, in characters, looked up (the vocabulary's longest useful pieces)."""
MAX_CHUNK = 48
"""A whitespace chunk longer than this (a URL, a hash) is cut: its tail adds only noise."""
WORD_START = "\u2581"
HALF_ROW = f"<{DIM}e"
"""One stored piece vector: float16, as the model ships it (half the size of float32)."""
TABLE_FORMAT = 3
"""Part of a piece table's file name: 2 added ``piece_hashes``, 3 ``prefix_hashes`` (see
:meth:`Embedder.pieces`)."""


def model_files() -> tuple[str, str] | None:
    """(tokenizer JSON, weights) of the installed ``wordllama`` package, or None.

    Finds the package without importing it (importing it may try to download).
    """
    import importlib.util

    try:
        spec = importlib.util.find_spec("wordllama")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    root = next(iter(spec.submodule_search_locations))
    tokenizer = os.path.join(root, "tokenizers", TOKENIZER_FILE)
    weights = os.path.join(root, "weights", f"{MODEL}.safetensors")
    if os.path.isfile(tokenizer) and os.path.isfile(weights):
        return tokenizer, weights
    return None


def _read_weights(path: str) -> tuple[bytes, int, int]:
    """The raw float16 matrix of a one-tensor safetensors file: (bytes, rows, columns)."""
    with open(path, "rb") as handle:
        (header_len,) = struct.unpack("<Q", handle.read(8))
        header = json.loads(handle.read(header_len))
        data = handle.read()
    (tensor,) = (v for k, v in header.items() if k != "__metadata__")
    if tensor.get("dtype") != "F16" or len(tensor.get("shape", ())) != 2:
        raise ValueError(f"{path}: expected one 2-D F16 tensor, got {tensor!r}")
    rows, cols = tensor["shape"]
    start, end = tensor["data_offsets"]
    return data[start:end], rows, cols


def build_piece_table(target: str, tokenizer: str, weights: str) -> None:
    """Write the piece table (piece -> float32 vector) from the model's files, atomically."""
    with open(tokenizer, encoding="utf-8") as handle:
        vocab: dict[str, int] = json.load(handle)["model"]["vocab"]
    data, rows, cols = _read_weights(weights)
    if cols != DIM or rows < max(vocab.values()) + 1:
        raise ValueError(f"{weights}: shape {rows}x{cols} does not fit the vocabulary")
    width = cols * 2
    tmp = f"{target}.{os.getpid()}.tmp"
    os.makedirs(os.path.dirname(target), exist_ok=True)
    kept = {
        piece: i
        for piece, i in vocab.items()
        if not (piece.startswith("<") and piece.endswith(">"))  # specials, bytes
    }
    db = sqlite3.connect(tmp)
    try:
        db.execute("CREATE TABLE pieces (piece TEXT PRIMARY KEY, vec BLOB NOT NULL)")
        db.executemany(
            "INSERT OR REPLACE INTO pieces VALUES (?, ?)",
            ((piece, data[i * width : (i + 1) * width]) for piece, i in kept.items()),
        )
        prefixes = {piece[:end] for piece in kept for end in range(1, len(piece) + 1)}
        for name, strings in (("piece_hashes", kept), ("prefix_hashes", prefixes)):
            db.execute(f"CREATE TABLE {name} (crcs BLOB NOT NULL)")
            crcs = array("I", sorted({piece_hash(s) for s in strings}))
            db.execute(f"INSERT INTO {name} VALUES (?)", (crcs.tobytes(),))
        db.commit()
    finally:
        db.close()
    os.replace(tmp, target)


def piece_hash(piece: str) -> int:
    """The CRC-32 of a piece's UTF-8 bytes (the table keeps every piece's, to filter by)."""
    return zlib.crc32(piece.encode())


def _holds(hashes: array[int] | memoryview, crc: int) -> bool:
    at = bisect_left(hashes, crc)
    return at < len(hashes) and hashes[at] == crc


def chunks(text: str) -> list[str]:
    """The whitespace chunks of ``text``, each marked as a word start."""
    return [WORD_START + c[:MAX_CHUNK] for c in text.split()]


def segment(chunk: str, known: Iterable[str] | set[str]) -> list[str]:
    """Cut one chunk into pieces, greedily longest first; characters no piece holds are skipped."""
    pieces: list[str] = []
    i = 0
    n = len(chunk)
    while i < n:
        for j in range(min(n, i + MAX_PIECE), i, -1):
            if chunk[i:j] in known:
                pieces.append(chunk[i:j])
                i = j
                break
        else:
            i += 1
    return pieces


def _candidates(chunk: str) -> Iterable[str]:
    n = len(chunk)
    for i in range(n):
        for j in range(i + 1, min(n, i + MAX_PIECE) + 1):
            yield chunk[i:j]


def normalise(vec: list[float]) -> list[float]:
    """``vec`` scaled to unit length (a zero vector stays zero).

    The squares are added in order, as :func:`_unit` adds them (``sum`` of floats adds
    with compensation from Python 3.12 on: other bits).
    """
    norm = math.sqrt(reduce(add, map(mul, vec, vec), 0.0))
    return [x / norm for x in vec] if norm else vec


class Embedder:
    """Embeds texts from the piece table; caches the pieces it has read.

    For a prompt it reads only the pieces its words can hold, from the table's flat file
    when there is one (:mod:`lorebook.recall.piecefile`), else from the table.
    ``bulk=True`` (index writers, many notes at once) reads the whole table, and sums with
    numpy when it is installed (``wordllama`` requires it): the same vectors, orders of
    magnitude faster.
    """

    def __init__(self, table: str, *, bulk: bool = False) -> None:
        self.table = table
        flat = None if bulk else open_piece_file(table)
        if flat is not None and flat.dim != DIM:
            flat.close()
            flat = None
        self.flat: PieceFile | None = flat
        self.db = None if self.flat else sqlite3.connect(f"file:{table}?mode=ro", uri=True)
        self.vectors: dict[str, array[float] | None] = {}
        self.known: set[str] = set()
        self.segments: dict[str, list[str]] = {}
        """Chunk -> its pieces, for chunks already cut (words recur across notes)."""
        self.matrix: Any = None
        self.numpy: Any = None
        self.rows: dict[str, int] = {}
        self.hashes: dict[str, array[int] | memoryview | None] = {}
        """Table name -> its sorted :func:`piece_hash` values (read on first need)."""
        if bulk:
            self._load_all()

    def close(self) -> None:
        """Close the piece table."""
        if self.db is not None:
            self.db.close()
        if self.flat is not None:
            self.flat.close()

    def _load_all(self) -> None:
        assert self.db is not None  # a bulk embedder reads the table
        rows = self.db.execute("SELECT piece, vec FROM pieces").fetchall()
        self.known = {piece for piece, _ in rows}
        try:
            import numpy
        except ImportError:
            for piece, blob in rows:
                self.vectors[piece] = array("d", struct.unpack(HALF_ROW, blob))
            return
        self.numpy = numpy
        self.rows = {piece: i for i, (piece, _) in enumerate(rows)}
        half = numpy.frombuffer(b"".join(blob for _, blob in rows), dtype="<f2")
        self.matrix = half.reshape(len(rows), DIM).astype(numpy.float64)

    def _load(self, wanted: set[str]) -> None:
        missing = sorted(p for p in wanted if p not in self.vectors)
        if self.flat is not None:
            for piece in missing:
                at = self.flat.find(piece)
                if at >= 0:
                    self.vectors[piece] = self.flat.vector(at)
                    self.known.add(piece)
                else:
                    self.vectors[piece] = None
            return
        assert self.db is not None
        for start in range(0, len(missing), 900):
            part = missing[start : start + 900]
            marks = ",".join("?" * len(part))
            for piece, blob in self.db.execute(
                f"SELECT piece, vec FROM pieces WHERE piece IN ({marks})", part
            ):
                self.vectors[piece] = array("d", struct.unpack(HALF_ROW, blob))
                self.known.add(piece)
        for piece in missing:
            self.vectors.setdefault(piece, None)

    def _hashes(self, table: str = "piece_hashes") -> array[int] | memoryview | None:
        """The sorted hashes ``table`` keeps (None: a table built before it was kept)."""
        if self.flat is not None:
            return self.flat.crcs if table == "piece_hashes" else self.flat.prefixes
        assert self.db is not None
        if table not in self.hashes:
            try:
                row = self.db.execute(f"SELECT crcs FROM {table}").fetchone()
            except sqlite3.Error:
                self.hashes[table] = None
            else:
                crcs = self.hashes[table] = array("I")
                crcs.frombytes(row[0] if row else b"")
        return self.hashes[table]

    def _may_be_pieces(self, candidates: Iterable[str]) -> set[str]:
        """The candidates whose hash the table holds (all of them without hashes)."""
        hashes = self._hashes()
        if hashes is None:
            return set(candidates)
        return {c for c in candidates if _holds(hashes, zlib.crc32(c.encode()))}

    def _cut_by_hashes(self, chunks: list[str]) -> dict[str, list[str]] | None:
        """Each chunk cut greedily as :func:`segment` would, from the hashes alone.

        At each position the cut grows while what it spans is the prefix of some piece
        and keeps the longest that is a piece; a chance hash match is caught when the
        piece is then looked up and not found. None without the hashes.
        """
        pieces, prefixes = self._hashes(), self._hashes("prefix_hashes")
        if pieces is None or prefixes is None:
            return None
        cuts: dict[str, list[str]] = {}
        for chunk in chunks:
            cut, i, n = [], 0, len(chunk)
            while i < n:
                best = 0
                for j in range(i + 1, min(n, i + MAX_PIECE) + 1):
                    crc = zlib.crc32(chunk[i:j].encode())
                    if not _holds(prefixes, crc):
                        break
                    if _holds(pieces, crc):
                        best = j
                if best:
                    cut.append(chunk[i:best])
                i = best or i + 1
            cuts[chunk] = cut
        return cuts

    def _load_unknown(self, unknown: list[str]) -> None:
        """Read the pieces the chunks that are not whole pieces are cut into."""
        cuts = self._cut_by_hashes(unknown)
        if cuts is None:
            self._load(self._may_be_pieces(c for chunk in unknown for c in _candidates(chunk)))
            return
        self._load({piece for cut in cuts.values() for piece in cut})
        doubtful = [c for c, cut in cuts.items() if any(p not in self.known for p in cut)]
        if doubtful:  # a hash matched by chance: look up every candidate of those chunks
            self._load(self._may_be_pieces(c for chunk in doubtful for c in _candidates(chunk)))

    def pieces(self, text: str) -> dict[str, int]:
        """How often each piece occurs in ``text``.

        A word that is not itself a piece is cut into pieces. The table keeps the hash of
        every piece and of every piece's prefix, so the cut is found from the hashes and
        only its pieces are looked up (a pasted traceback: ~200 instead of ~3,900
        substrings); the pieces are exactly those of looking every substring up.
        """
        counts: dict[str, int] = {}
        for chunk in chunks(text):
            counts[chunk] = counts.get(chunk, 0) + 1
        if self.matrix is None and not self.rows:
            # Most words are one piece: look the whole chunks up first.
            self._load(set(counts))
            self._load_unknown([chunk for chunk in counts if chunk not in self.known])
        found: dict[str, int] = {}
        cache = self.segments
        for chunk, times in counts.items():
            pieces = cache.get(chunk)
            if pieces is None:
                pieces = cache[chunk] = segment(chunk, self.known)
            for piece in pieces:
                found[piece] = found.get(piece, 0) + times
        return found

    def embed(self, text: str) -> list[float]:
        """The unit-length mean of the pieces' vectors (all zeros for a text with none).

        The pieces' vectors, each weighted by how often it occurs, are summed in float64.
        Every way of summing below gives the same bits: the model's values are float16, so
        each product and every partial sum of a text's pieces is exact in float64, in any
        order. The length is then taken by adding the squares in order, in every way alike
        (a test checks the bits).
        """
        counts = self.pieces(text)
        if self.matrix is not None:
            if not counts:
                return [0.0] * DIM
            ids = [self.rows[p] for p in counts]
            total = self.numpy.dot(list(counts.values()), self.matrix[ids])
            return _unit(self.numpy, total)
        found = [
            (vec, times) for piece, times in counts.items() if (vec := self.vectors.get(piece))
        ]
        if not found:
            return [0.0] * DIM
        try:
            import simsimd
        except ImportError:
            rows = [vec for vec, times in found for _ in range(times)]
            return normalise([sum(column) for column in zip(*rows, strict=True)])
        wsum: Any = simsimd.wsum  # in compiled code, in float64 (a prompt has ~150 pieces)
        summed: Any = array("d", bytes(8 * DIM))
        for vec, times in found:
            summed = wsum(summed, vec, "float64", alpha=1.0, beta=float(times))
        sums = array("d")
        sums.frombytes(memoryview(summed).cast("B"))
        return normalise(sums.tolist())


def _unit(numpy: Any, total: Any) -> list[float]:
    """``total`` (a numpy vector) scaled to unit length, exactly as :func:`normalise` scales it.

    ``numpy.add.accumulate`` adds the squares one after another, as :func:`normalise` does
    (``numpy.linalg.norm`` rounds otherwise).
    """
    norm = math.sqrt(float(numpy.add.accumulate(total * total)[-1]))
    return list((total / norm).tolist()) if norm else [0.0] * DIM


def embed_note(embedder: Embedder, head: str, body: str) -> bytes:
    """A note's vector: the mean of its head's and its body's unit vectors, as float32 bytes."""
    head_vec = embedder.embed(head)
    body_vec = embedder.embed(body) if body.strip() else head_vec
    return array("f", normalise([h + b for h, b in zip(head_vec, body_vec, strict=True)])).tobytes()


def piece_table_folder() -> str:
    """Where this machine keeps piece tables: ``$LOREBOOK_CACHE_DIR`` or the user cache."""
    from lorebook.constants import ENV_CACHE_DIR

    folder = os.environ.get(ENV_CACHE_DIR)
    if folder:
        return os.path.join(folder, "semantic")
    import platformdirs

    return os.path.join(platformdirs.user_cache_dir("lorebook"), "semantic")


def ensure_piece_table() -> str | None:
    """The piece table for the installed model, built on first use; None without the model.

    Its flat file (:mod:`lorebook.recall.piecefile`) is written too when missing or damaged
    (and left out where the folder takes no new file: it only makes the hooks faster).

    Named after the table format and the weights file's size and modification time, so a
    reinstalled or upgraded ``wordllama`` gets a table of its own. Not for the hook path (it
    may take a fraction of a second to build).
    """
    files = model_files()
    if files is None:
        return None
    tokenizer, weights = files
    stat = os.stat(weights)
    name = f"{MODEL}-{TABLE_FORMAT}-{stat.st_size}-{stat.st_mtime_ns}.sqlite"
    target = os.path.join(piece_table_folder(), name)
    if not os.path.exists(target):
        build_piece_table(target, tokenizer, weights)
    flat = open_piece_file(target)
    if flat is not None:
        flat.close()
    else:
        import contextlib  # not at the top: the hook path does without it

        with contextlib.suppress(OSError):  # a folder that takes no new file: the hooks
            write_piece_file(target, DIM)  # then read the table itself
    return target


def open_embedder(table: str, *, bulk: bool = False) -> Embedder | None:
    """An embedder over an existing piece table, or None when it is missing or unreadable."""
    if not table or not os.path.exists(table):
        return None
    try:
        return Embedder(table, bulk=bulk)
    except sqlite3.Error:
        return None
