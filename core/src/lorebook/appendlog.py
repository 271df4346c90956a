"""Append to a log under ``.lorebook/`` without following a symlink. Standard library only.

A pull request can commit ``_logs`` (or a log file) as a symlink to a file outside the
repository; every hook appends a line, so following it would let the pull request make
every teammate's hooks write there. The file is opened through :mod:`lorebook.safeopen`,
which reaches it from ``.lorebook`` down without following a link.
"""

from __future__ import annotations

import os

from lorebook.safeopen import open_file


def append(path: str, data: bytes) -> bool:
    """Append ``data`` in one write; False (nothing written) on a symlink or an OS error."""
    try:
        fd = open_file(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
    except OSError:
        return False
    try:
        os.write(fd, data)
    except OSError:
        return False
    finally:
        os.close(fd)
    return True
