"""``ENTRY.md`` as a session-start answer reads it: a committed file anyone can write.

A pull request can put anything at ``.lorebook/ENTRY.md``: a FIFO (reading it would hang
the hook), a link to a private file of the user's (its contents would reach the model), a
huge file, host markup. It is read only as a regular file that is not a link, of at most
:data:`MAX_ENTRY_BYTES`, and what a session sees of it is sanitised.
"""

from __future__ import annotations

import os

from lorebook.bounds import read_text_bounded
from lorebook.inject.sanitize import sanitize

MAX_ENTRY_BYTES = 64 * 1024
"""Largest ``ENTRY.md`` served (lorebook writes it within a 2,000-character budget)."""
GENERATED_LINE = "<!-- lorebook:"
"""Lines lorebook writes for itself (the notes' hash), not for the model."""


def read_entry(kb_root: str) -> str | None:
    """The text of ``ENTRY.md`` under ``kb_root``, or None when there is none.

    Raises:
        OSError, ValueError: it is a link, not a regular file, too large or not UTF-8.
    """
    path = os.path.join(kb_root, "ENTRY.md")
    if os.path.islink(path):  # a committed link could point at a file of the user's
        raise OSError(f"{path} is a symbolic link; not served")
    try:
        return read_text_bounded(path, MAX_ENTRY_BYTES)
    except FileNotFoundError:
        return None


def entry_context(entry: str) -> str:
    """What a session is given of ``entry``: lorebook's own lines dropped, sanitised."""
    lines = [line for line in entry.splitlines() if not line.startswith(GENERATED_LINE)]
    return sanitize("\n".join(lines)).strip()
