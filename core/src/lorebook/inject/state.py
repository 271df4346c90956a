"""Per-session hook state: which notes a session was already given (gitignored)."""

from __future__ import annotations

import json
import os
import zlib

from lorebook.safeopen import write_atomic

NAME_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")
"""What a session id keeps in its state file's name; anything else becomes ``_``."""


def _state_file(kb_root: str, session_id: str) -> str:
    # The session id comes from the host: never trust it as a file name. (zlib, not
    # hashlib: hashlib costs the hook path ~6 ms to import; no regex: compiling one
    # costs every event.)
    safe = "".join(c if c in NAME_CHARS else "_" for c in session_id[:64])
    crc = zlib.crc32(session_id.encode("utf-8"))
    return os.path.join(kb_root, ".state", "sessions", f"{safe}-{crc:08x}.json")


def seen_notes(kb_root: str, session_id: str) -> set[str]:
    """Return the note ids already injected in this session."""
    return _on_file(_state_file(kb_root, session_id)) or set()


def _on_file(path: str) -> set[str] | None:
    """The ids the state file at ``path`` holds; None when there is no (readable) file."""
    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
    except (OSError, ValueError):
        return None
    ids = data.get("injected") if isinstance(data, dict) else None
    return {i for i in ids if isinstance(i, str)} if isinstance(ids, list) else set()


def remember_notes(kb_root: str, session_id: str, ids: set[str], *, reset: bool = False) -> None:
    """Record that ``ids`` were injected (``reset`` forgets earlier ones, as after compaction).

    Nothing is written when the file already says so (a read-only ``.lorebook/`` serves
    every event that adds nothing to it). A write that fails (a full disk, a read-only
    folder, a committed link) costs the answer nothing: one line in the hook error log,
    and the session may be given these notes again.
    """
    path = _state_file(kb_root, session_id)
    on_file = _on_file(path)
    merged = ids | (set() if reset or on_file is None else on_file)
    if merged == (on_file or set()):
        return
    try:
        write_atomic(path, json.dumps({"injected": sorted(merged)}).encode(), sync=False)
    except OSError as exc:
        from lorebook.hook import log_failure

        message = f"the notes given to this session were not recorded ({exc}): may be given again"
        log_failure(kb_root, "-", "session-state", message)
