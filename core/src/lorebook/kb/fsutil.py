"""Atomic writes and the knowledge base lock.

A reader never sees a torn file: content goes to a temporary file in the same folder,
is flushed to disk, then renamed over the target (``os.replace`` is atomic on POSIX and
Windows). Writers that must see a consistent set of notes hold the knowledge base lock,
a portable file lock (``filelock``), so concurrent hooks and commands never lose a note.
"""

from __future__ import annotations

import contextlib
import os
import secrets
from collections.abc import Iterator
from pathlib import Path

from lorebook.errors import LorebookError

LOCK_TIMEOUT_SECONDS = 60.0


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically, creating the parent folder if needed."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    try:
        with open(tmp, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
        raise


def atomic_write_text(path: Path, text: str) -> None:
    r"""Write ``text`` as UTF-8 with ``\\n`` line endings, atomically."""
    atomic_write_bytes(path, text.encode("utf-8"))


def write_if_changed(path: Path, text: str) -> bool:
    """Write ``text`` atomically unless the file holds exactly it; return True if written."""
    data = text.encode("utf-8")
    try:
        if path.read_bytes() == data:
            return False
    except FileNotFoundError:
        pass
    atomic_write_bytes(path, data)
    return True


@contextlib.contextmanager
def kb_lock(lock_path: Path, *, timeout: float = LOCK_TIMEOUT_SECONDS) -> Iterator[None]:
    """Hold the knowledge base lock for the duration of the block.

    Raises:
        LorebookError: another process held the lock for ``timeout`` seconds.
    """
    from filelock import FileLock, Timeout

    lock_path.parent.mkdir(parents=True, exist_ok=True)
    lock = FileLock(str(lock_path), timeout=timeout)
    try:
        lock.acquire()
    except Timeout:
        raise LorebookError(
            f"another lorebook process has held {lock_path} for {timeout:.0f} s",
            hint="wait for it to finish; if none is running, delete the lock file",
        ) from None
    try:
        yield
    finally:
        lock.release()
