"""Answers a host must get once per session: a small per-session ledger (gitignored).

A harness whose host re-fires an event with the same session id (Copilot CLI fires
sessionStart on every prompt of an interactive session) lists the event in its event
module's ``ANSWER_ONCE``; :func:`lorebook.hook.run` then asks :func:`first_time` before it
renders the context, and an identical text already given in that session is not given
again. A changed text (new notes, a new status) is given, once.

On the hook fast path: ``json``, ``os`` and ``zlib`` only (not ``hashlib``, which costs
milliseconds to import; a CRC is enough to tell two answers apart).
"""

from __future__ import annotations

import json
import os
import re
import zlib

from lorebook.safeopen import write_atomic


def _ledger(kb_root: str, session_id: str) -> str:
    # The session id comes from the host: never trust it as a file name.
    safe = re.sub(r"[^A-Za-z0-9_-]", "_", session_id)[:64]
    crc = zlib.crc32(session_id.encode("utf-8"))
    return os.path.join(kb_root, ".state", "once", f"{safe}-{crc:08x}.json")


def first_time(kb_root: str, session_id: str, event: str, text: str) -> bool:
    """Record that ``text`` answered ``event`` in this session; True unless it already had.

    Args:
        kb_root: The ``.lorebook`` folder.
        session_id: The host's session id.
        event: The normalised event name.
        text: The context about to be given.
    """
    path = _ledger(kb_root, session_id)
    digest = f"{event}:{zlib.crc32(text.encode('utf-8')):08x}:{len(text)}"
    try:
        with open(path, encoding="utf-8") as handle:
            given = json.load(handle)
    except (OSError, ValueError):
        given = []
    given = [g for g in given if isinstance(g, str)] if isinstance(given, list) else []
    if digest in given:
        return False
    write_atomic(path, json.dumps(sorted({*given, digest})).encode(), sync=False)
    return True
