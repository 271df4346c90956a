"""Append to a log under ``.lorebook/`` without following a symlink. Standard library only.

A pull request can commit ``_logs`` (or a log file) as a symlink to a file outside the
repository; every hook appends a line, so following it would let the pull request make
every teammate's hooks write there. The file is opened through :mod:`lorebook.safeopen`,
which reaches it from ``.lorebook`` down without following a link.
"""

from __future__ import annotations

import os

from lorebook.safeopen import open_file

ERROR_LOG = os.path.join("_logs", "hook-errors.log")
"""The hooks' error log, under the knowledge base's root: one line per failure."""


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


def log_failure(kb_root: str, harness: str, host_event: str, message: str) -> None:
    """Append one line to ``_logs/hook-errors.log``; never raise.

    Every part of the hook path logs here (the hook entry, the warm process, capture, the
    session state): a failure is one line, never a broken session. Also
    ``lorebook.hook.log_failure``, its name for plugins.
    """
    import time

    stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    line = " ".join(message[:2000].split())[:500]
    append(
        os.path.join(kb_root, ERROR_LOG),
        f"{stamp} {harness} {host_event} {line}\n".encode(),
    )
