"""Append to a log under ``.lorebook/`` without following a symlink. Standard library only.

A pull request can commit ``_logs`` (or a log file) as a symlink to a file outside the
repository; every hook appends a line, so following it would let the pull request make
every teammate's hooks write there. Each folder from ``.lorebook`` down and the file itself
are checked, and the file is opened with ``O_NOFOLLOW`` where the platform has it.
"""

from __future__ import annotations

import os

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


def crosses_symlink(kb_root: str, path: str) -> bool:
    """True when ``kb_root``, a folder between it and ``path``, or ``path`` is a symlink."""
    current = os.path.abspath(path)
    root = os.path.abspath(kb_root)
    while True:
        if os.path.islink(current):
            return True
        if current == root or os.path.dirname(current) == current:
            return False
        current = os.path.dirname(current)


def append(kb_root: str, path: str, data: bytes) -> bool:
    """Append ``data`` in one write; False (nothing written) on a symlink or an OS error."""
    if crosses_symlink(kb_root, path):
        return False
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | _NOFOLLOW, 0o644)
    except OSError:
        return False
    try:
        os.write(fd, data)
    except OSError:
        return False
    finally:
        os.close(fd)
    return True
