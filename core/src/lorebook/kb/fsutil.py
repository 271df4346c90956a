"""Atomic writes and the knowledge base lock.

A reader never sees a torn file: content goes to a temporary file in the same folder,
is flushed to disk, then renamed over the target (``os.replace`` is atomic on POSIX and
Windows). Writers that must see a consistent set of notes hold the knowledge base lock
(:func:`kb_lock`: ``flock`` on POSIX, ``filelock`` elsewhere), so concurrent hooks and
commands never lose a note.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
from collections.abc import Iterator
from pathlib import Path

from lorebook import safeopen
from lorebook.errors import LorebookError

LOCK_TIMEOUT_SECONDS = 60.0
LOCK_POLL_SECONDS = 0.05


class WriteError(LorebookError, OSError):
    """A write failed: disk full, read-only, permission, or a symlink in the way.

    One line naming the file; nothing partial is left behind. Still an ``OSError`` for
    callers that tolerate a failed write (a read-only checkout).
    """


_HINTS = {
    errno.ENOSPC: "the disk is full: free some space and run the command again",
    errno.EDQUOT: "the disk quota is exceeded: free some space and run the command again",
    errno.EROFS: "the file system is read-only: run lorebook where it can write",
    errno.EACCES: "check the permissions of the folder",
    errno.EPERM: "check the permissions of the folder",
}


def write_error(path: Path, exc: OSError) -> WriteError:
    """A :class:`WriteError` for ``exc`` while writing ``path`` (the OS's reason, a hint)."""
    reason = exc.strerror or str(exc)
    error = WriteError(f"cannot write {path}: {reason}", hint=_HINTS.get(exc.errno or 0))
    error.errno = exc.errno
    return error


def refuse_symlinks(path: Path) -> None:
    """Raise when ``path``, or a folder between it and the ``.lorebook`` folder, is a symlink.

    A committed symlink (``_logs -> /home/you``) must never make lorebook write outside the
    repository. Paths outside a ``.lorebook`` folder have only the file itself checked.
    The writes themselves (:func:`atomic_write_bytes`, :func:`kb_lock`) reach their file
    through :mod:`lorebook.safeopen`, which follows no link; this check is for callers that
    hand a path to another library (SQLite).

    Raises:
        WriteError: naming the symlink.
    """
    base, names = safeopen.kb_chain(str(path))
    current = Path(base)
    for name in names:
        current = current / name
        if current.is_symlink():
            raise _symlink_error(path, str(current))


def _symlink_error(path: Path, link: str) -> WriteError:
    return WriteError(
        f"cannot write {path}: {link} is a symbolic link; lorebook does not follow "
        "symbolic links in the knowledge base",
        hint=f"remove the link ({link}) or replace it with a real folder",
    )


def as_write_error(path: Path, exc: OSError) -> WriteError:
    """``exc`` (raised while writing ``path``) as a one-line :class:`WriteError`."""
    if isinstance(exc, WriteError):
        return exc
    if isinstance(exc, safeopen.SymlinkRefused):
        return _symlink_error(path, exc.link)
    return write_error(path, exc)


_TEMP_NAME = re.compile(r"^\.(?P<name>.+)\.(?P<pid>\d+)\.[0-9a-f]{8}\.tmp$")


def pid_alive(pid: int) -> bool:
    """Whether a process with this id exists (ours counts; another user's too)."""
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


def sweep_dead_temps(path: Path) -> None:
    """Remove the temporary files a killed writer of ``path`` left (its process is gone).

    SIGKILL gives a writer no chance to clean up; the next write of the same file does.
    POSIX only: elsewhere a dead process cannot be told from a live one cheaply.
    """
    if os.name != "posix":
        return
    try:
        names = os.listdir(path.parent)
    except OSError:
        return
    prefix = f".{path.name}."
    for name in names:
        if name.startswith(prefix) and dead_writers_file(name) == path.name:
            with contextlib.suppress(OSError):
                os.unlink(path.parent / name)


def dead_writers_file(name: str) -> str | None:
    """The file a temporary file named ``name`` was written for, when its writer is dead.

    None when ``name`` is not a temporary file of :func:`temp_path` or its process lives.
    """
    match = _TEMP_NAME.match(name)
    if match is None or pid_alive(int(match["pid"])):
        return None
    return match["name"]


def temp_path(path: Path) -> Path:
    """A new temporary name beside ``path``, to write it under and rename into place.

    A dot-file every reader skips, naming the writer's process, so a sweep can tell a dead
    writer's (:func:`sweep_dead_temps`).
    """
    return path.with_name(safeopen.temp_name(path.name))


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically, creating the parent folder if needed.

    A temporary file a killed writer left for ``path`` is removed first.

    Raises:
        WriteError: the write failed or a symlink is in the way; no partial or temporary
            file is left, and the old content (if any) is intact.
    """
    sweep_dead_temps(path)
    try:
        safeopen.write_atomic(str(path), data)
    except OSError as exc:
        raise as_write_error(path, exc) from None


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

    On POSIX an exclusive ``flock`` on the lock file, polled every 50 ms (what ``filelock``
    does there, without importing it: some 20 ms of every capture at the stop hook);
    elsewhere ``filelock``. Either way the lock dies with its process.

    Raises:
        LorebookError: another process held the lock for ``timeout`` seconds.
    """
    held = _flock(lock_path, timeout) if os.name == "posix" else _file_lock(lock_path, timeout)
    with held:
        yield


def _busy(lock_path: Path, timeout: float) -> LorebookError:
    return LorebookError(
        f"another lorebook process has held {lock_path} for {timeout:.0f} s",
        hint="wait for it to finish; if none is running, delete the lock file",
    )


@contextlib.contextmanager
def _flock(lock_path: Path, timeout: float) -> Iterator[None]:
    import fcntl
    import time

    try:
        fd = safeopen.open_file(str(lock_path), os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as exc:  # read-only, permission, a link in its place
        raise as_write_error(lock_path, exc) from None
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise _busy(lock_path, timeout) from None
                time.sleep(LOCK_POLL_SECONDS)
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


@contextlib.contextmanager
def _file_lock(lock_path: Path, timeout: float) -> Iterator[None]:
    from filelock import FileLock, Timeout

    refuse_symlinks(lock_path)
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    lock = FileLock(str(lock_path), timeout=timeout)
    try:
        lock.acquire()
    except Timeout:
        raise _busy(lock_path, timeout) from None
    try:
        yield
    finally:
        lock.release()
