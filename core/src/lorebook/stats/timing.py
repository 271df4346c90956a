"""The hook timing log: one JSON line per hook run, ``.lorebook/_logs/hook-timing.log``.

Written by :func:`lorebook.hook.run` after every event it answers (standard library only,
one ``O_APPEND`` write of one line, so concurrent hooks never interleave a line). Bounded:
once the file passes :data:`MAX_BYTES` it is renamed to ``hook-timing.log.1`` (replacing the
previous one) and a fresh file is started, so at most twice that is ever kept.

A line: ``{"at": <unix seconds>, "harness": "claude", "host_event": "UserPromptSubmit",
"event": "prompt", "session": "<id>", "ms": 12, "chars": 840, "transcript": "<ref>",
"warm": true}``; ``chars`` counts what was injected (0 for nothing), ``event`` is ``null``
when the payload could not be parsed, ``warm`` says whether the repository's warm hook
process answered (:mod:`lorebook.fastpath.server`) or the hook's own process. ``lorebook
stats`` reads it for hook latency where the host records none, and ``lorebook mark`` reads
it to tell which session it was run from.
"""

from __future__ import annotations

import json
import os
import time

TIMING_LOG = os.path.join("_logs", "hook-timing.log")
MAX_BYTES = 512 * 1024
"""Size after which the log is rotated (one old generation is kept)."""


def timing_path(kb_root: str) -> str:
    """Where a knowledge base keeps its hook timing log."""
    return os.path.join(kb_root, TIMING_LOG)


def record_timing(
    kb_root: str,
    harness: str,
    host_event: str,
    event: object,
    started: float,
    chars: int,
    *,
    warm: bool = False,
) -> None:
    """Append one line for a hook run that began at monotonic time ``started``; never raise.

    Args:
        kb_root: The ``.lorebook`` folder.
        harness: The harness named on the hook's command line.
        host_event: The host's event name, as on the command line.
        event: The parsed :class:`~lorebook.events.HookEvent`, or None when parsing failed.
        started: ``time.monotonic()`` when the hook process began its work.
        chars: Characters the answer put into the model's context (context or reason).
        warm: Whether a child of the warm hook process answered.
    """
    line = {
        "at": round(time.time(), 3),
        "harness": harness,
        "host_event": host_event,
        "event": getattr(event, "name", None),
        "session": getattr(event, "session_id", None),
        "ms": int((time.monotonic() - started) * 1000),
        "chars": chars,
        "transcript": getattr(event, "transcript_ref", None),
        "warm": warm,
    }
    from lorebook.appendlog import append
    from lorebook.safeopen import AT, folder_of

    path = timing_path(kb_root)
    try:
        with folder_of(path) as folder:  # reached without following a link
            at, name = (folder, os.path.basename(path)) if AT else (None, path)
            try:
                size = os.stat(name, dir_fd=at, follow_symlinks=False).st_size
            except FileNotFoundError:
                size = 0
            if size > MAX_BYTES:  # the rename moves a link itself, never what it points to
                os.replace(name, f"{name}.1", src_dir_fd=at, dst_dir_fd=at)
        append(path, (json.dumps(line, ensure_ascii=False) + "\n").encode("utf-8"))
    except (OSError, TypeError, ValueError):
        pass


def read_timing(kb_root: str) -> list[dict[str, object]]:
    """Every well-formed line of the timing log, the rotated generation first.

    Lines that are not JSON objects (a torn write, a hand edit) are skipped.
    """
    found: list[dict[str, object]] = []
    base = timing_path(kb_root)
    for path in (base + ".1", base):
        try:
            with open(path, encoding="utf-8", errors="replace") as handle:
                for line in handle:
                    try:
                        value = json.loads(line)
                    except ValueError:
                        continue
                    if isinstance(value, dict):
                        found.append(value)
        except OSError:
            continue
    return found
