"""How far a capture has read a transcript: the chained hash and the line count of its bytes.

A staged log's header records, for the transcript bytes read so far, their sha256 chained
over every capture (``transcript_hash``) and how many lines they hold
(``transcript_lines``). Both are computed from the new bytes only, in one pass over them;
for a large delta that pass runs in a thread while the transcript is parsed (hashlib lets
go of the GIL), so it costs the capture almost no wall time. The line count lets a reader
whose turns are numbered by line (the JSONL hosts) resume at a byte offset without
counting the lines of everything before it. Standard library only.
"""

from __future__ import annotations

import hashlib

from lorebook.hostkit import jsonl

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

CHUNK = 1 << 20
THREAD_BYTES = 16 << 20
"""A delta at least this large is hashed and counted by a thread, beside the read."""

Progress = tuple[str, "int | None"]
"""(chained hash, lines in the bytes hashed; None when the transcript is not a file)."""


def chain_hash(previous: str, ref: str, start: int, end: int) -> Progress:
    """sha256 over the previous hash and the transcript bytes [start, end), and their lines.

    A transcript that is not a file (a database row) is hashed by its name and range.
    """
    digest = hashlib.sha256(previous.encode("ascii"))
    lines: int | None = 0
    try:
        with open(ref, "rb") as handle:
            handle.seek(start)
            left = end - start
            while left > 0:
                chunk = handle.read(min(CHUNK, left))
                if not chunk:
                    break
                digest.update(chunk)
                lines += jsonl.newlines(chunk)  # type: ignore[operator]
                left -= len(chunk)
    except OSError:
        digest.update(f"{ref}:{start}:{end}".encode())
        lines = None
    return digest.hexdigest(), lines


def chain_hash_soon(previous: str, ref: str, start: int, end: int) -> Callable[[], Progress]:
    """:func:`chain_hash`, to be taken later; a large delta's is computed meanwhile."""
    if end - start < THREAD_BYTES:
        return lambda: chain_hash(previous, ref, start, end)
    import threading

    out: list[Progress] = []
    worker = threading.Thread(target=lambda: out.append(chain_hash(previous, ref, start, end)))
    worker.start()

    def result() -> Progress:
        worker.join()
        return out[0] if out else chain_hash(previous, ref, start, end)

    return result


def lines_before(ref: str, offset: int) -> int | None:
    """The lines of a transcript file before ``offset`` (None: not a file)."""
    try:
        with open(ref, "rb") as handle:
            return jsonl.lines_before(handle, offset)[0]
    except OSError:
        return None
