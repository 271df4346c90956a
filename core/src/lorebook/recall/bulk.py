"""Embedding many notes at once with numpy: what an index rebuild spends most time on.

:func:`lorebook.recall.semantic.embed_note` embeds one note at a time, in Python, as the
hooks do. An index writer embedding thousands of notes uses :func:`note_vectors`, which
computes the same vectors (the mean of the pieces' vectors of the head and of the body,
made unit length, summed, made unit length, as float32) for a batch of notes in a few
numpy operations: the words of each text are counted in C, each distinct word is cut into
pieces once, and the sums are gathered and reduced per text. Sums are taken in another
order than the one-note path takes them, so a vector may differ in its last float64 bits;
after rounding to float32 they are the same (a test compares both paths).

Imported only by index writers, and only when the embedder has loaded numpy. For many
notes, :class:`PendingBlobs` computes them (and deflates the notes' bodies) in a forked
child process while the writer builds the posting lists, so the two share the cores.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import warnings
from array import array
from collections import Counter
from typing import TYPE_CHECKING, Any

from lorebook.recall.document import pack_body
from lorebook.recall.semantic import DIM, MAX_CHUNK, WORD_START, segment

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from lorebook.recall.document import IndexedNote
    from lorebook.recall.semantic import Embedder

BATCH_TEXTS = 4096
"""Texts whose words are expanded to pieces in one numpy step."""


class _Words(dict[str, int]):
    """Word -> number, numbering each unseen word as it is first looked up."""

    def __missing__(self, word: str) -> int:
        number = self[word] = len(self)
        return number


class _Texts:
    """Every text's distinct words (as numbers) and their counts, concatenated."""

    def __init__(self) -> None:
        self.words = _Words()
        self.ids: list[int] = []
        self.counts: list[int] = []
        self.sizes: list[int] = []

    def add(self, text: str) -> None:
        counted = Counter(text.split())
        self.ids.extend(map(self.words.__getitem__, counted))
        self.counts.extend(counted.values())
        self.sizes.append(len(counted))


def _word_pieces(embedder: Embedder, words: dict[str, int]) -> list[list[int]]:
    """The piece rows of every word, in word-number order."""
    cache = embedder.segments
    table = embedder.rows
    found: list[list[int]] = []
    for word in words:  # insertion order is number order
        chunk = WORD_START + word[:MAX_CHUNK]
        pieces = cache.get(chunk)
        if pieces is None:
            pieces = cache[chunk] = segment(chunk, embedder.known)
        found.append([table[p] for p in pieces])
    return found


def _text_sums(embedder: Embedder, texts: _Texts) -> Any:
    """The sum of the piece vectors of each text (one row a text), a batch at a time.

    Each text's words are expanded to their pieces (in numpy), then one dot product of
    the counts with the pieces' rows sums the text, as the one-note path does.
    """
    np = embedder.numpy
    pieces = _word_pieces(embedder, texts.words)
    lengths = np.array([len(p) for p in pieces], dtype=np.int64)
    flat = np.array([row for p in pieces for row in p], dtype=np.int64)
    offsets = np.cumsum(lengths) - lengths
    ids = np.array(texts.ids, dtype=np.int64)
    counts = np.array(texts.counts, dtype=np.float64)
    ends = np.cumsum(np.array(texts.sizes, dtype=np.int64))
    sums = np.zeros((len(texts.sizes), DIM), dtype=np.float64)
    matrix, dot = embedder.matrix, np.dot
    for first in range(0, len(texts.sizes), BATCH_TEXTS):
        last = min(len(texts.sizes), first + BATCH_TEXTS)
        lo = int(ends[first - 1]) if first else 0
        words = ids[lo : int(ends[last - 1])]
        reps = lengths[words]
        placed = np.cumsum(reps)
        rows = flat[np.repeat(offsets[words] - (placed - reps), reps) + np.arange(placed[-1])]
        weights = np.repeat(counts[lo : int(ends[last - 1])], reps)
        # Where each text's pieces end among the batch's expanded pieces.
        cuts = np.concatenate(([0], placed))[ends[first:last] - lo].tolist()
        start = 0
        for text, end in enumerate(cuts, start=first):
            if end > start:
                sums[text] = dot(weights[start:end], matrix[rows[start:end]])
            start = end
    return sums


def _unit(np: Any, rows: Any) -> Any:
    norms = np.linalg.norm(rows, axis=1)
    safe = np.where(norms > 0, norms, 1.0)
    return np.where((norms > 0)[:, None], rows / safe[:, None], 0.0)


def note_vectors(embedder: Embedder, notes: Sequence[IndexedNote]) -> list[bytes]:
    """Each note's unit vector as float32 bytes, as :func:`embed_note` computes it."""
    np = embedder.numpy
    texts = _Texts()
    for note in notes:
        head = note.head()
        texts.add(head)
        texts.add(note.body if note.body.strip() else head)
    units = _unit(np, _text_sums(embedder, texts))
    joined = _unit(np, units[0::2] + units[1::2])
    vectors = joined.astype("<f4")
    return [row.tobytes() for row in vectors]


def quantize_many(embedder: Embedder, vectors: list[bytes]) -> list[bytes]:
    """:func:`lorebook.recall.dense.quantize` of each vector, computed together."""
    np = embedder.numpy
    if not vectors:
        return []
    values = np.frombuffer(b"".join(vectors), dtype="<f4").reshape(len(vectors), DIM)
    wide = values.astype(np.float64)
    top = np.abs(wide).max(axis=1)
    top = np.where(top > 0, top, 1.0)
    scale = 127 / top
    ints = np.clip(np.rint(wide * scale[:, None]), -127, 127).astype(np.int8)
    scales = scale.astype("<f4")
    return [scales[i].tobytes() + ints[i].tobytes() for i in range(len(vectors))]


VECTOR_BYTES = 4 + DIM
"""One quantized vector: its float32 scale, then DIM int8 values."""
CAN_FORK = sys.platform == "linux"
"""Whether a child process computes the blobs. Linux only: there a forked child may use
numpy (its BLAS resets its threads after a fork); on macOS a forked child that calls the
system's BLAS can crash or hang, and Windows has no fork. Elsewhere the parent computes
them itself, the same bytes."""
BACKGROUND_NOTES = 1000
"""From this many notes on, their blobs are computed in a forked child process."""

Blobs = tuple[list[bytes], list[bytes]]
"""Each note's packed body (:func:`lorebook.recall.document.pack_body`) and quantized
vector (:func:`quantize_many`), in the order of the notes."""


class PendingBlobs:
    """The :data:`Blobs` of ``notes``, computed in a child process when there are many.

    A child forked now deflates the bodies and computes the vectors while the caller goes
    on (an index rebuild builds its posting lists meanwhile); :meth:`result` collects them.
    Off Linux (:data:`CAN_FORK`), for fewer than :data:`BACKGROUND_NOTES` notes, or when the child
    fails, they are computed in this process: the same bytes either way. The child only
    computes and writes to its pipe (no database, no output) and ends with ``os._exit``.
    """

    def __init__(self, embedder: Embedder, notes: Sequence[IndexedNote]) -> None:
        self._compute: Callable[[], Blobs] = lambda: (
            [pack_body(note.body) for note in notes],
            quantize_many(embedder, note_vectors(embedder, notes)),
        )
        self._count = len(notes)
        self._child: tuple[int, int] | None = None
        if self._count >= BACKGROUND_NOTES and CAN_FORK:
            self._child = _fork(lambda: _encode(*self._compute()))

    def result(self) -> Blobs:
        """Each note's packed body and vector."""
        if self._child is None:
            return self._compute()
        pid, pipe = self._child
        self._child = None
        data: bytes | None = None
        try:
            data = _read_within(pipe, CHILD_SECONDS + self._count / 1000)
        finally:
            if data is None:  # stuck, or this process was interrupted: it will not be read
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
            status = _reap(pid)
        if data is None:
            return self._compute()
        found = _decode(data, self._count) if status in (0, None) else None
        return self._compute() if found is None else found  # a failed child: do it here

    def cancel(self) -> None:
        """Stop a child whose result is no longer wanted (the write failed)."""
        if self._child is None:
            return
        pid, pipe = self._child
        self._child = None
        os.close(pipe)
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
        _reap(pid)


CHILD_SECONDS = 120
"""How long a child may take, plus a millisecond a note, before it is taken for stuck
(killed, and the work done here): a child deadlocked at its fork never blocks a write."""


def _read_within(pipe: int, seconds: float) -> bytes | None:
    """Everything the child writes to ``pipe`` until it closes it; None after ``seconds``.

    The same deadline-bound read the hook gives its payload (:func:`lorebook.hookinput.read_stdin`).
    """
    import time

    from lorebook.hookinput import StdinTimeout, read_stdin

    with open(pipe, "rb", buffering=0) as handle:
        try:
            return read_stdin(handle, time.monotonic() + seconds, limit=sys.maxsize)
        except StdinTimeout:
            return None


def _reap(pid: int) -> int | None:
    """Wait for the child; its exit status, or None when something else reaped it first.

    A host's own SIGCHLD handler may do that; the data read then says whether it is whole.
    """
    try:
        return os.waitpid(pid, 0)[1]
    except ChildProcessError:
        return None


def _encode(bodies: list[bytes], vectors: list[bytes]) -> bytes:
    """The bodies' lengths (uint32), the bodies, then the vectors, as one blob."""
    return array("I", map(len, bodies)).tobytes() + b"".join(bodies) + b"".join(vectors)


def _decode(data: bytes, count: int) -> Blobs | None:
    """What :func:`_encode` wrote for ``count`` notes (None: not that, a child cut short)."""
    lengths = array("I")
    lengths.frombytes(data[: count * lengths.itemsize])
    at = count * lengths.itemsize
    if len(lengths) != count or len(data) != at + sum(lengths) + count * VECTOR_BYTES:
        return None
    bodies = []
    for length in lengths:
        bodies.append(data[at : at + length])
        at += length
    return bodies, [data[i : i + VECTOR_BYTES] for i in range(at, len(data), VECTOR_BYTES)]


def _fork(compute: Callable[[], bytes]) -> tuple[int, int]:
    """Start a child writing ``compute()`` to a pipe: (its pid, the pipe's read end)."""
    read_end, write_end = os.pipe()
    with warnings.catch_warnings():
        # Python 3.12+ warns when a process with other threads forks (their locks stay
        # held in the child). The child touches nothing another thread could hold: no
        # output, no database, only numpy, zlib and its own pipe.
        warnings.filterwarnings("ignore", ".*use of fork", DeprecationWarning)
        pid = os.fork()
    if pid == 0:  # the child
        code = 1
        try:
            os.close(read_end)
            data = compute()
            with open(write_end, "wb") as handle:
                handle.write(data)
            code = 0
        finally:
            os._exit(code)
    os.close(write_end)
    return pid, read_end
