"""Bounds on what lorebook reads and echoes: sizes, regular files, error values.

Every value that reaches an error message goes through :func:`clip`, so a 300 MB field
never becomes a 300 MB message; every file a pull request or a host can hand us is read
through :func:`read_bounded`, which refuses a FIFO, a device or a file over its limit
before reading a byte more than the limit. Standard library only (the hook path uses it).
"""

from __future__ import annotations

import os
import stat

CLIP_CHARS = 80
MAX_NOTE_BYTES = 512 * 1024
"""A note file larger than this is refused (knowledge is short; the budget is 9,000 chars)."""
MAX_SESSION_ID = 256
"""Longest session id a payload may carry (real hosts use UUIDs or 20-40 characters)."""


class TooLargeError(ValueError):
    """A file or value is over its bound (the message names it and the bound)."""


def clip(value: object, limit: int = CLIP_CHARS, *, quote: bool = True) -> str:
    """``repr(value)`` (or ``str`` when ``quote`` is false) cut to about ``limit`` characters."""
    size = f"{len(value):,} chars" if isinstance(value, str | bytes) else "cut"
    if isinstance(value, str | bytes) and len(value) > limit * 4:
        value = value[: limit * 4]  # never build the repr of a huge string
    text = repr(value) if quote else str(value)
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({size})"


def open_regular(path: str | os.PathLike[str]) -> int:
    """Open ``path`` read-only without blocking; refuse anything but a regular file.

    A FIFO named as a transcript would otherwise block the reader for ever.

    Raises:
        OSError: it cannot be opened, or it is not a regular file.
    """
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise OSError(f"{os.fspath(path)} is not a regular file")
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_bounded(path: str | os.PathLike[str], limit: int) -> bytes:
    """Read a regular file of at most ``limit`` bytes.

    Raises:
        TooLargeError: the file is larger than ``limit``.
        OSError: it cannot be read, or it is not a regular file.
    """
    fd = open_regular(path)
    with os.fdopen(fd, "rb") as handle:
        data = handle.read(limit + 1)
    if len(data) > limit:
        raise TooLargeError(f"{os.fspath(path)} is larger than {limit:,} bytes")
    return data


def read_text_bounded(path: str | os.PathLike[str], limit: int) -> str:
    """:func:`read_bounded`, decoded as UTF-8 (``UnicodeDecodeError`` when it is not)."""
    return read_bounded(path, limit).decode("utf-8")
