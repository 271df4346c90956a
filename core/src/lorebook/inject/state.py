"""Per-session hook state (gitignored): the notes a session was given, the files it loads.

The files are those its host loads by itself (:mod:`lorebook.inject.loaded`).
"""

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
    return session_state(kb_root, session_id)[0]


def session_state(kb_root: str, session_id: str) -> tuple[set[str], frozenset[str] | None]:
    """The notes given to this session, and the files its host loads by itself.

    One read of the state file. The second item is what the session-start hook recorded
    (:mod:`lorebook.inject.loaded`), or None when no session start recorded it.
    """
    seen, _, loaded = session_record(kb_root, session_id)
    return seen, loaded


def session_record(
    kb_root: str, session_id: str
) -> tuple[set[str], set[str], frozenset[str] | None]:
    """:func:`session_state` with, second, those of the notes given only as a pointer.

    A note a prompt pointed to (one line: its title and path) was not read by the model; an
    anchored note is served whole when its file, tool or command comes up, even after it.
    """
    data = _read(_state_file(kb_root, session_id))
    return _injected(data), _ids(data, "pointed"), _loaded(data)


def _read(path: str) -> dict[str, object] | None:
    """The state file at ``path``; None when there is no (readable) file."""
    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else {}


def _injected(data: dict[str, object] | None) -> set[str]:
    return _ids(data, "injected")


def _ids(data: dict[str, object] | None, key: str) -> set[str]:
    ids = data.get(key) if data else None
    return {i for i in ids if isinstance(i, str)} if isinstance(ids, list) else set()


def _loaded(data: dict[str, object] | None) -> frozenset[str] | None:
    files = data.get("loaded") if data else None
    return frozenset(f for f in files if isinstance(f, str)) if isinstance(files, list) else None


def remember_notes(
    kb_root: str,
    session_id: str,
    ids: set[str],
    *,
    reset: bool = False,
    loaded: frozenset[str] | None = None,
    pointed: set[str] | frozenset[str] = frozenset(),
) -> None:
    """Record that ``ids`` were injected (``reset`` forgets earlier ones, as after compaction).

    Those of ``ids`` in ``pointed`` were given as a pointer only (:func:`session_record`);
    a note given whole later is no longer recorded as pointed to.

    ``loaded`` (given at session start) records the files the host loads by itself; when
    None, what the file holds stays. Nothing is written when the file already says so (a
    read-only ``.lorebook/`` serves every event that adds nothing to it). A write that
    fails (a full disk, a read-only folder, a committed link) costs the answer nothing:
    one line in the hook error log, and the session may be given these notes again.
    """
    path = _state_file(kb_root, session_id)
    data = _read(path)
    on_file = _injected(data) if data is not None else None
    merged = ids | (set() if reset or on_file is None else on_file)
    was_pointed = set() if reset else _ids(data, "pointed")
    pointers = ((was_pointed | set(pointed)) - (ids - set(pointed))) & merged
    files = _loaded(data) if loaded is None else loaded
    if merged == (on_file or set()) and files == _loaded(data) and pointers == was_pointed:
        return
    if data is None and not merged and not files:
        return  # nothing to record: no file (a read-only .lorebook/ logs nothing)
    state: dict[str, object] = {"injected": sorted(merged)}
    if pointers:
        state["pointed"] = sorted(pointers)
    if files is not None:
        state["loaded"] = sorted(files)
    try:
        write_atomic(path, json.dumps(state).encode(), sync=False)
    except OSError as exc:
        from lorebook.appendlog import log_failure

        message = f"the notes given to this session were not recorded ({exc}): may be given again"
        log_failure(kb_root, "-", "session-state", message)
