"""Stage a session's transcript as a session log under ``_sessions/``, and read it back.

Capture reads the transcript from where the last capture stopped, normalises it, removes
private spans and redacts secrets, turn by turn, and appends the new turns to the log's
body (see :mod:`lorebook.capture.staged` for the format). Text lorebook's own hooks
injected is kept apart, as the log's ``injected`` records (marked as injected, never a
turn, so no extractor reads it as something a person wrote); other injected text is
dropped.

Guarantees: a re-fire with an unchanged transcript changes nothing (not a byte); a grown
transcript costs only its new records: they are read in bounded batches from the last
offset, redacted once, and appended; nothing already staged is re-read, re-redacted or
rewritten. The offset and hash advance (the header is replaced) only after the appended
records are durable, so a crash leaves the old log, and the next capture stages the same
records again, once. Two captures racing take a per-session lock, and the log's own offset
decides. Nothing unredacted is written.

Every consumer reads a staged log through :func:`load_log` (all of them, by file name:
:func:`staged_logs`); writers of whole logs
(import, bootstrap, mark, MCP, extraction, curation) write through :func:`write_log`,
which rewrites only the header when the turns are those on disk.

The capture path (:func:`capture_session` with ``entry_points=False, follow=False``, as
hooks run it) imports only the standard library and light lorebook modules; pydantic is
imported for :func:`load_log`, :func:`write_log` and when a capture plugin is configured.
"""

from __future__ import annotations

import json
import re
import zlib

from lorebook.capture import progress, records, staged

# Defined beside the log format, so the follow-up (lorebook.stats.tally) reads logs without
# importing this module, which runs it.
from lorebook.capture.staged import load_log as load_log, tally_path as tally_path
from lorebook.kb.fsutil import atomic_write_bytes, kb_lock

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator
    from pathlib import Path
    from typing import Any, Protocol

    from lorebook.events import Turn
    from lorebook.kb.paths import KBPaths
    from lorebook.models.session import SessionLog

    class TranscriptReader(Protocol):
        """What capture needs of a harness: its transcript reader (a module or object)."""

        def read_transcript(
            self, ref: str, since: int | None = None, until: int | None = None
        ) -> Iterator[Turn]:
            """Yield turns between two offsets.

            A reader whose turns are numbered by line may also take ``lines_before``, the
            lines before ``since`` (capture passes the header's ``transcript_lines``, and
            only to a reader that takes it: :func:`lorebook.hostkit.jsonl.takes_lines_before`).
            """
            ...

        def transcript_end(self, ref: str) -> int:
            """The offset just past the last complete record."""
            ...

    Finisher = Callable[[SessionLog], SessionLog]

CHUNK = 1 << 20


def log_stem(harness: str, session_id: str) -> str:
    """The file stem of a session's log: readable, safe as a file name, unique."""
    safe = re.sub(r"[^A-Za-z0-9_-]", "_", session_id)[:64]
    return f"{harness}-{safe}-{zlib.crc32(session_id.encode('utf-8')):08x}"


def log_path(paths: KBPaths, harness: str, session_id: str) -> Path:
    """Where a session's log is staged (its header; the body is beside it)."""
    return paths.sessions / f"{log_stem(harness, session_id)}.json"


def log_files(path: Path) -> list[Path]:
    """Every file a staged log is made of (header, body), for forgetting and pruning."""
    return [path, staged.body_path(path)]


def lock_path(paths: KBPaths, stem: str) -> Path:
    """The lock capture and extraction take for one session log."""
    return paths.state / "capture" / f"{stem}.lock"


def staged_logs(paths: KBPaths, problems: list[str]) -> Iterator[tuple[Path, SessionLog]]:
    """Every staged session log, by file name; one that cannot be read is named in ``problems``."""
    for path in sorted(paths.sessions.glob("*.json")) if paths.sessions.is_dir() else []:
        try:
            log = load_log(path)
        except (OSError, ValueError) as exc:
            problems.append(f"{paths.rel(path)}: not a valid session log ({type(exc).__name__})")
            continue
        if log is not None:
            yield path, log


def write_log(path: Path, log: SessionLog) -> None:
    """Validate, then write a whole session log; the body only when its turns changed.

    The body is written (atomically) before the header that commits it.
    """
    from lorebook.models.session import SessionLog

    data = SessionLog.model_validate(log.model_dump()).model_dump(mode="json")
    turns, injected = staged.body_lines(data)
    body = b"".join(turns) + b"".join(injected)
    try:
        header = staged.read_header(path)
    except ValueError:
        header = None
    kept = header is not None and not staged.is_legacy(header)
    if not (kept and staged.committed_body_matches(path, header or {}, turns, injected)):
        atomic_write_bytes(staged.body_path(path), body)
    new = staged.header_of(data, len(body))
    lines = (header or {}).get("transcript_lines")
    if (
        kept
        and lines is not None
        and (header or {}).get("transcript_length") == new["transcript_length"]
    ):
        new["transcript_lines"] = lines  # the same transcript bytes: the same lines
    atomic_write_bytes(path, staged.encode_header(new))


class CaptureResult:
    """What one capture did."""

    __slots__ = ("changed", "new_turns", "path", "transcript_length")

    def __init__(self, path: Path, changed: bool, new_turns: int, transcript_length: int) -> None:
        self.path = path
        self.changed = changed
        self.new_turns = new_turns
        self.transcript_length = transcript_length


def new_header(harness_name: str, session_id: str) -> dict[str, Any]:
    """The header of a log nothing was staged in yet (the model's defaults)."""
    return {
        "lb_schema": staged.SCHEMA, "harness": harness_name, "session_id": session_id,
        "origin": f"{harness_name}:{session_id}", "transcript_hash": "",
        "transcript_length": 0, "status": "pending", "error": None, "extracted_turns": 0,
        "branch": None, "proposals": [], "body": {"bytes": 0, "turns": 0, "injected": 0},
    }  # fmt: skip


def _current_header(target: Path) -> dict[str, Any] | None:
    """The header of the staged log, a legacy log migrated to header and body first."""
    header = staged.read_header(target)
    if header is not None and staged.is_legacy(header):
        write_log(target, _legacy(header))  # the one rewrite a log ever gets from capture
        header = staged.read_header(target)
    return header


def _legacy(data: dict[str, Any]) -> SessionLog:
    from lorebook.models.session import SessionLog

    return SessionLog.model_validate(data)


def capture_session(
    paths: KBPaths,
    harness: TranscriptReader,
    harness_name: str,
    session_id: str,
    ref: str,
    *,
    entry_points: bool = True,
    follow: bool = True,
    resume: bool = True,
    first_byte: int = 0,
) -> CaptureResult:
    """Stage the new part of one session's transcript (see the module docstring).

    Args:
        paths: The knowledge base.
        harness: The harness (or its transcript module) that reads ``ref``.
        harness_name: Its name, as log names and origins carry it.
        session_id: The host's session id.
        ref: The transcript.
        entry_points: Also pass the new turns through the entry-point plugins' ``capture``
            hook (commands do; hooks call only the modules ``hook_plugins`` names).
        follow: Update the session's usage counts and resume summary here (hooks hand
            that to a detached process: it imports pydantic and the note index).
        resume: With ``follow``, the session may be the branch's last one, whose resume
            summary the next session start gives; ``lorebook import`` stages sessions of
            the past (of this repository or another), which never are.
        first_byte: Where a first capture starts reading (a resumed session's own records).
    """
    target = log_path(paths, harness_name, session_id)
    end = harness.transcript_end(ref)
    with kb_lock(lock_path(paths, target.stem), timeout=30):
        header = _current_header(target)
        start = int(header["transcript_length"]) if header else first_byte
        first, new = header is None, header is None or end > start  # else nothing new
        if new:
            header = header or new_header(harness_name, session_id)
            finish = _finisher(paths, entry_points)
            hashed = progress.chain_hash_soon(str(header["transcript_hash"]), ref, start, end)
            known = _lines_before(header, ref, start)
            read = _read(harness, ref, start, end, known)
            committed, turns, injected = staged.body_counts(header)
            size, added, added_injected = staged.append_body(
                target, committed, _lines(read, header, finish)
            )
            if first and not added:  # no turn to keep (not a transcript): no log to extract
                staged.body_path(target).unlink(missing_ok=True)
                return CaptureResult(target, False, 0, 0)
            body = (size, turns + added, injected + added_injected)
            digest, new_lines = hashed()
            lines = None if known is None or new_lines is None else known + new_lines
            _commit(paths, target, header, body, (digest, end, lines), added)
    if follow and (new or follow_behind(paths, target)):
        follow_up(paths, target, resume=resume)
    if not new:
        return CaptureResult(target, False, 0, start)
    return CaptureResult(target, True, added, end)


def follow_behind(paths: KBPaths, target: Path) -> bool:
    """Whether the follow-up of the log ``target`` has not read all it committed.

    True after a capture killed in its follow-up (or a follow-up that failed): the next
    capture runs it even with nothing new to stage, so the session's usage counts are
    complete and what the killed writer left is swept. Reads the tally's ``offset``
    (:class:`lorebook.stats.tally.Tally`) as plain JSON: the capture process stays off
    pydantic.
    """
    header = staged.read_header(target)
    if header is None or staged.is_legacy(header):
        return False  # an old log is followed up whole, by the capture that migrates it
    committed, _, _ = staged.body_counts(header)
    try:
        offset = json.loads(tally_path(paths, target.stem).read_bytes()).get("offset")
    except (OSError, ValueError, AttributeError):
        offset = None
    return committed > (offset if type(offset) is int else 0)


def _lines_before(header: dict[str, Any], ref: str, start: int) -> int | None:
    """The transcript's lines before ``start``: the header's record, else counted."""
    known = header.get("transcript_lines")
    if type(known) is int and known >= 0 and header.get("transcript_length") == start:
        return known
    return progress.lines_before(ref, start) if start else 0


def _read(
    harness: TranscriptReader, ref: str, start: int, end: int, known: int | None
) -> Iterator[Turn]:
    """The new turns; a reader that numbers turns by line is told the lines before them."""
    from lorebook.hostkit.jsonl import call_reader

    return call_reader(harness.read_transcript, ref, start or None, end, known)


def _lines(
    turns: Iterable[Turn], header: dict[str, Any], finish: Finisher | None
) -> Iterator[tuple[bytes, int, int]]:
    """Each batch of new turns as body lines in transcript order, with its counts."""
    from lorebook.secrets.redact import scan_settings

    with scan_settings():  # one set-up of the detector library for every batch
        for batch in records.batches(turns):
            logged, injected = records.staged_batch(batch)
            if finish is not None:
                logged, injected = _finished(header, logged, injected, finish)
            lines = [(t["index"], staged.encode_record("turn", t)) for t in logged]
            lines += [(i["index"], staged.encode_record("injected", i)) for i in injected]
            lines.sort(key=lambda pair: pair[0])
            yield b"".join(line for _, line in lines), len(logged), len(injected)


def _commit(
    paths: KBPaths, target: Path, header: dict[str, Any], body: tuple[int, int, int],
    read: tuple[str, int, int | None], added: int,
) -> None:  # fmt: skip
    """Replace the header: the appended records become part of the log.

    ``read`` is (transcript hash, length, lines) of the transcript read so far.
    """
    from lorebook.inject.resume import git_branch

    size, turns, injected = body
    transcript_hash, end, lines = read
    update: dict[str, Any] = {
        "lb_schema": staged.SCHEMA,
        "branch": git_branch(str(paths.repo)) or header.get("branch"),
        "transcript_hash": transcript_hash,
        "transcript_length": end,
        "body": {"bytes": size, "turns": turns, "injected": injected},
    }
    if added or not header["transcript_hash"]:
        update.update(status="pending", error=None)
    done = {k: v for k, v in header.items() if k != "transcript_lines"} | update
    if lines is not None:
        done["transcript_lines"] = lines
    atomic_write_bytes(target, staged.encode_header(done))


def _finisher(paths: KBPaths, entry_points: bool) -> Finisher | None:
    """The ``capture`` hook to pass new turns through, or None when no plugin has one."""
    from lorebook.capture.plugins import capture_hook

    return capture_hook(str(paths.root), entry_points)


def _finished(
    header: dict[str, Any], logged: list[dict[str, Any]], injected: list[dict[str, Any]],
    finish: Finisher,
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:  # fmt: skip
    """One batch through the plugins, then redacted again (a plugin only adds redaction)."""
    from lorebook.models.session import SessionLog

    fields = {k: v for k, v in header.items() if k not in staged.HEADER_ONLY}
    log = SessionLog.model_validate({**fields, "lb_schema": staged.SCHEMA, "turns": logged,
                                     "injected": injected})  # fmt: skip
    done = finish(log)
    if done is log:  # unchanged: already redacted
        return logged, injected
    data = done.model_dump(mode="json")
    return records.redact_records(data["turns"], data["injected"])


def follow_up(paths: KBPaths, target: Path, *, resume: bool = True) -> None:
    """Update the session's usage counts and, with ``resume``, its branch's resume summary."""
    from lorebook.stats.tally import follow_log

    follow_log(paths, target, resume=resume)


def through_capture_hook(log: SessionLog) -> SessionLog:
    """Let plugins finish a whole log built outside capture (the ``capture`` hook).

    The result is redacted once more, so a plugin can only add redaction, never bring back
    what was removed.
    """
    from lorebook.plugins import get_plugins

    result = get_plugins().hook.capture(log=log)
    from lorebook.models.session import SessionLog

    if not isinstance(result, SessionLog):
        return log
    return redact_log(result)


def _new_log(harness_name: str, session_id: str) -> SessionLog:
    from lorebook.models.session import SessionLog

    return SessionLog(
        harness=harness_name,
        session_id=session_id,
        origin=f"{harness_name}:{session_id}",
        transcript_hash="",
        transcript_length=0,
    )


def pending_bytes(harness: TranscriptReader, paths: KBPaths, harness_name: str,
                  session_id: str, ref: str) -> int:  # fmt: skip
    """How many transcript bytes a capture would read now (0: nothing new)."""
    try:
        header = staged.read_header(log_path(paths, harness_name, session_id))
    except ValueError:
        header = None
    start = int(header.get("transcript_length", 0)) if header else 0
    return max(0, harness.transcript_end(ref) - start)


def redact_log(log: SessionLog) -> SessionLog:
    """Redact every turn (and the injected text) of a log built outside capture."""
    data = log.model_dump(mode="json")
    turns, injected = records.redact_records(data["turns"], data["injected"])
    return log.model_validate({**data, "turns": turns, "injected": injected})
