"""How a failed command reports itself: one or two lines on stderr, exit code 1.

Expected failures (:class:`~lorebook.errors.LorebookError`, and the operating system
refusing a read or a write: missing path, permission, read-only file system, full disk)
name the file and what to do. Anything else is a bug in lorebook or a plugin: it is
reported as an internal error in one line too, and ``--debug`` shows the traceback.
"""

from __future__ import annotations

import errno
import json
import os
import re
import sys
from pathlib import Path

from lorebook.errors import LorebookError
from lorebook.inject.sanitize import for_terminal, json_for_terminal

_OS_HINTS = {
    errno.ENOSPC: "the disk is full: free some space and run the command again",
    errno.EDQUOT: "the disk quota is used up: free some space and run the command again",
    errno.EROFS: "the file system is read-only: run lorebook where it can write",
    errno.EACCES: "permission denied: check who owns the file or folder and its mode",
    errno.EPERM: "permission denied: check who owns the file or folder and its mode",
    errno.ENOENT: "check the path",
    errno.ENOTDIR: "a part of the path is a file, not a folder",
    errno.EISDIR: "it is a folder; name a file",
}


_ATOMIC_TEMP = re.compile(r"^\.(?P<name>.+)\.\d+\.[0-9a-f]{8}\.tmp$")
"""The temporary file an atomic write goes through (kb/fsutil.py): name the real target."""


def _shown(filename: object) -> str:
    """A path as the user would type it: relative to the current folder when inside it."""
    if filename is None:
        return ""
    text = os.fsdecode(filename) if isinstance(filename, bytes | str) else str(filename)
    temp = _ATOMIC_TEMP.match(Path(text).name)
    if temp:
        text = str(Path(text).with_name(temp.group("name")))
    try:
        return str(Path(text).resolve().relative_to(Path.cwd().resolve()))
    except (ValueError, OSError):
        return text


def os_error_message(exc: OSError) -> LorebookError:
    """An ``OSError`` as a message naming the file, with what to do about it."""
    reason = exc.strerror or exc.__class__.__name__
    where = _shown(exc.filename)
    if exc.filename2 is not None:
        where = f"{where} -> {_shown(exc.filename2)}"
    message = f"{where}: {reason}" if where else reason
    return LorebookError(message, hint=_OS_HINTS.get(exc.errno or 0))


def describe(exc: BaseException) -> tuple[LorebookError, bool]:
    """The user-facing error for ``exc``, and whether it is an expected failure."""
    if isinstance(exc, LorebookError):
        return exc, True
    if isinstance(exc, OSError):
        return os_error_message(exc), True
    if isinstance(exc, UnicodeDecodeError):
        return LorebookError(f"a file is not UTF-8 text ({exc.reason} at byte {exc.start})"), True
    text = f"{exc.__class__.__name__}: {exc}".strip().splitlines()[0][:300]
    hint = "run the command again with --debug for the traceback, and report it"
    return LorebookError(f"internal error: {text}", hint=hint), False


def report(exc: BaseException, *, json_mode: bool) -> int:
    """Print ``exc`` as the command's failure; return the exit code (1)."""
    error, _expected = describe(exc)
    if json_mode:
        doc = {"ok": False, "error": {"message": error.message, "hint": error.hint}}
        sys.stdout.write(json_for_terminal(json.dumps(doc, indent=2, ensure_ascii=False)) + "\n")
    sys.stderr.write(for_terminal(f"lorebook: error: {error}") + "\n")
    return 1
