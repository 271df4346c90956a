"""Stage a session's transcript as a session log under ``_sessions/``.

Capture reads the transcript from where the last capture stopped, normalises it, removes
private spans and redacts secrets, then writes the session log atomically. Text lorebook's
own hooks injected is kept apart, in the log's ``injected`` list (marked as injected, never
a turn, so no extractor reads it as something a person wrote); other injected text is
dropped.

Guarantees: a re-fire with an unchanged transcript changes nothing (not a byte); a grown
transcript re-opens only its new records; two captures racing never let the older one
overwrite the newer log (a per-session lock, and the log's own offset, decide); the
transcript is read record by record, never loaded whole; nothing unredacted is written.
"""

from __future__ import annotations

import hashlib
import re
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from lorebook.capture.redact import redact_many
from lorebook.capture.toolinput import call_strings, redacted_calls
from lorebook.events import Turn
from lorebook.harness import Harness
from lorebook.inject.resume import git_branch
from lorebook.kb.fsutil import atomic_write_text, kb_lock
from lorebook.kb.paths import KBPaths
from lorebook.models.session import LoggedInjection, LoggedToolCall, LoggedTurn, SessionLog
from lorebook.stats.follow import remember_session

CHUNK = 1 << 20
INJECTED_CHARS = 20_000
"""Injected text is kept up to this many characters (hosts cap hook output at 10,000)."""


def log_stem(harness: str, session_id: str) -> str:
    """The file stem of a session's log: readable, safe as a file name, unique."""
    safe = re.sub(r"[^A-Za-z0-9_-]", "_", session_id)[:64]
    return f"{harness}-{safe}-{zlib.crc32(session_id.encode('utf-8')):08x}"


def log_path(paths: KBPaths, harness: str, session_id: str) -> Path:
    """Where a session's log is staged."""
    return paths.sessions / f"{log_stem(harness, session_id)}.json"


def lock_path(paths: KBPaths, stem: str) -> Path:
    """The lock capture and extraction take for one session log."""
    return paths.state / "capture" / f"{stem}.lock"


def load_log(path: Path) -> SessionLog | None:
    """Read a staged log, or None when there is none."""
    try:
        return SessionLog.model_validate_json(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None


def write_log(path: Path, log: SessionLog) -> None:
    """Validate, then write a session log atomically."""
    checked = SessionLog.model_validate(log.model_dump())
    atomic_write_text(path, checked.model_dump_json(indent=1) + "\n")


def chain_hash(previous: str, ref: str, start: int, end: int) -> str:
    """sha256 over the previous hash and the transcript bytes [start, end), read in chunks."""
    digest = hashlib.sha256(previous.encode("ascii"))
    try:
        with open(ref, "rb") as handle:
            handle.seek(start)
            left = end - start
            while left > 0:
                chunk = handle.read(min(CHUNK, left))
                if not chunk:
                    break
                digest.update(chunk)
                left -= len(chunk)
    except OSError:
        digest.update(f"{ref}:{start}:{end}".encode())
    return digest.hexdigest()


def _logged(turns: Iterable[Turn]) -> Iterator[tuple[Turn, list[LoggedToolCall]]]:
    """Keep what extraction needs: no injected text, tool inputs, error excerpts.

    Inputs and excerpts are cut only after redaction (:mod:`lorebook.capture.toolinput`).
    """
    for turn in turns:
        if turn.injected:
            continue
        calls = [
            LoggedToolCall(
                name=call.name,
                input=dict(call.input),
                result_excerpt=(call.result_excerpt or "") if call.is_error else None,
                is_error=call.is_error,
            )
            for call in turn.tool_calls
        ]
        if turn.role == "tool" and not any(c.is_error for c in calls):
            continue  # successful tool output is not kept: less to leak, less to scan
        yield turn, calls


def _injections(turns: Iterable[Turn]) -> list[LoggedInjection]:
    """Lorebook's own injected text, redacted like every other string that is staged."""
    from lorebook.stats.injections import is_lorebook_text

    found = [t for t in turns if t.injected and is_lorebook_text(t.text)]
    texts = redact_many([t.text[:INJECTED_CHARS] for t in found]) if found else []
    return [
        LoggedInjection(
            index=turn.index,
            text=text,
            host_event=turn.hook_event,
            duration_ms=turn.duration_ms,
            timestamp=turn.timestamp,
        )
        for turn, text in zip(found, texts, strict=True)
    ]


def _redacted(pairs: list[tuple[Turn, list[LoggedToolCall]]]) -> list[LoggedTurn]:
    texts = [turn.text for turn, _ in pairs]
    strings = [text for _, calls in pairs for text in call_strings(calls)]
    clean = redact_many(texts + strings)
    clean_strings = iter(clean[len(texts) :])
    return [
        LoggedTurn(
            index=turn.index,
            role=turn.role,
            text=text,
            tool_calls=redacted_calls(calls, clean_strings),
            timestamp=turn.timestamp,
        )
        for (turn, calls), text in zip(pairs, clean[: len(texts)], strict=True)
    ]


@dataclass(frozen=True, slots=True)
class CaptureResult:
    """What one capture did."""

    path: Path
    changed: bool
    new_turns: int
    transcript_length: int


def capture_session(
    paths: KBPaths, harness: Harness, harness_name: str, session_id: str, ref: str
) -> CaptureResult:
    """Stage the new part of one session's transcript (see the module docstring)."""
    target = log_path(paths, harness_name, session_id)
    end = harness.transcript_end(ref)
    with kb_lock(lock_path(paths, target.stem), timeout=30):
        existing = load_log(target)
        start = existing.transcript_length if existing else 0
        if existing is not None and end == start:
            return CaptureResult(target, False, 0, start)
        if existing is not None and end < start:
            return CaptureResult(target, False, 0, start)  # a newer capture got further
        read = list(harness.read_transcript(ref, since=start or None, until=end))
        pairs = list(_logged(read))
        turns = _redacted(pairs)
        injected = _injections(read)
        previous = existing.transcript_hash if existing else ""
        log = (existing or _new_log(harness_name, session_id)).model_copy(
            update={
                "turns": [*(existing.turns if existing else []), *turns],
                "injected": [*(existing.injected if existing else []), *injected],
                "branch": git_branch(str(paths.repo)) or (existing.branch if existing else None),
                "transcript_hash": chain_hash(previous, ref, start, end),
                "transcript_length": end,
                "status": "pending" if turns or existing is None else existing.status,
                "error": None if turns or existing is None else existing.error,
            }
        )
        target.parent.mkdir(parents=True, exist_ok=True)
        staged = through_capture_hook(log)
        write_log(target, staged)
        remember_session(paths, target.stem, staged)
    return CaptureResult(target, True, len(turns), end)


def through_capture_hook(log: SessionLog) -> SessionLog:
    """Let plugins finish the log (the ``capture`` hook).

    The result is redacted once more, so a plugin can only add redaction, never bring back
    what was removed.
    """
    from lorebook.plugins import get_plugins

    staged = get_plugins().hook.capture(log=log)
    if not isinstance(staged, SessionLog):
        return log
    return redact_log(staged)


def _new_log(harness_name: str, session_id: str) -> SessionLog:
    return SessionLog(
        harness=harness_name,
        session_id=session_id,
        origin=f"{harness_name}:{session_id}",
        transcript_hash="",
        transcript_length=0,
    )


def pending_bytes(
    harness: Harness, paths: KBPaths, harness_name: str, session_id: str, ref: str
) -> int:
    """How many transcript bytes a capture would read now (0: nothing new)."""
    existing = load_log(log_path(paths, harness_name, session_id))
    start = existing.transcript_length if existing else 0
    return max(0, harness.transcript_end(ref) - start)


def redact_log(log: SessionLog) -> SessionLog:
    """Redact every turn (and the injected text) of a log built outside capture."""
    pairs = [
        (Turn(index=t.index, role=t.role, text=t.text, timestamp=t.timestamp), list(t.tool_calls))
        for t in log.turns
    ]
    texts = redact_many([i.text for i in log.injected]) if log.injected else []
    injected = [
        i.model_copy(update={"text": text}) for i, text in zip(log.injected, texts, strict=True)
    ]
    return log.model_copy(update={"turns": _redacted(pairs), "injected": injected})
