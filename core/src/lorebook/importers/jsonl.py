"""A plain normalised-turns JSONL file: the simplest way to bring any transcript in.

One JSON object per line::

    {"session_id": "review-2025-05-01", "harness": "import"}          (optional header)
    {"role": "user", "text": "Never call the billing API from tests.", "timestamp": "..."}
    {"role": "assistant", "text": "...", "tool_calls": [{"name": "Bash", "input": {...}}]}

``role`` is ``user``, ``assistant``, ``tool`` or ``summary``; ``text`` is a string;
``tool_calls`` (a list of ``{"name", "input", "result_excerpt", "is_error"}``) and
``timestamp`` are optional. Any other key is an error, so a typo never drops data
silently. The header, when present, is the first line and has no ``role``; without it the
session id comes from the file name and the harness is ``import``. Blank lines are skipped.
Every error names the file, the line and the field.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from pydantic import ValidationError

from lorebook.datafile import DataFileError, parse_json
from lorebook.importers.common import (
    ImportFormatError,
    decode,
    imported_log,
    session_id_from_name,
)
from lorebook.models.session import LoggedToolCall, LoggedTurn, SessionLog

DEFAULT_HARNESS = "import"
TURN_KEYS = frozenset({"role", "text", "tool_calls", "timestamp"})
MAX_LINE_BYTES = 64 * 1024 * 1024
"""A line longer than this is refused unparsed (a whole session rarely comes near it)."""
HEADER_KEYS = frozenset({"session_id", "harness"})
ROLES = ("user", "assistant", "tool", "summary")


def _objects(text: str, source: str) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield ``(line number, object)`` for each non-blank line."""
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            value = parse_json(line, source=f"{source}:{number}", max_bytes=MAX_LINE_BYTES)
        except DataFileError as exc:
            raise ImportFormatError(exc.message) from None
        if not isinstance(value, dict):
            raise ImportFormatError(f"{source}:{number}: expected a JSON object per line")
        yield number, value


def _header(value: dict[str, Any], where: str) -> tuple[str, str]:
    """Validate a header line; return its session id and harness."""
    unknown = sorted(set(value) - HEADER_KEYS)
    if unknown:
        raise ImportFormatError(f"{where}: unknown header field {unknown[0]!r}")
    session, harness = value.get("session_id"), value.get("harness", DEFAULT_HARNESS)
    if not isinstance(session, str) or not session.strip():
        raise ImportFormatError(f"{where}: field 'session_id' must be a non-empty string")
    if not isinstance(harness, str) or not harness.strip():
        raise ImportFormatError(f"{where}: field 'harness' must be a non-empty string")
    return session.strip(), harness.strip()


def _tool_calls(value: Any, where: str) -> list[LoggedToolCall]:
    """Validate the ``tool_calls`` field."""
    if not isinstance(value, list):
        raise ImportFormatError(f"{where}: field 'tool_calls' must be a list")
    calls: list[LoggedToolCall] = []
    for position, item in enumerate(value):
        try:
            calls.append(LoggedToolCall.model_validate(item))
        except ValidationError as exc:
            error = exc.errors()[0]
            field = ".".join(str(part) for part in error["loc"])
            raise ImportFormatError(
                f"{where}: field 'tool_calls[{position}].{field}': {error['msg']}"
            ) from exc
    return calls


def _turn(index: int, value: dict[str, Any], where: str) -> LoggedTurn:
    """Validate one turn line."""
    unknown = sorted(set(value) - TURN_KEYS)
    if unknown:
        raise ImportFormatError(f"{where}: unknown field {unknown[0]!r}")
    role, text = value.get("role"), value.get("text")
    if role not in ROLES:
        raise ImportFormatError(f"{where}: field 'role' must be one of {', '.join(ROLES)}")
    if not isinstance(text, str):
        raise ImportFormatError(f"{where}: field 'text' must be a string")
    timestamp = value.get("timestamp")
    if timestamp is not None and not isinstance(timestamp, str):
        raise ImportFormatError(f"{where}: field 'timestamp' must be a string")
    calls = _tool_calls(value.get("tool_calls", []), where)
    return LoggedTurn(index=index, role=role, text=text, tool_calls=calls, timestamp=timestamp)


def parse_jsonl(data: bytes, name: str) -> SessionLog:
    """Parse a normalised-turns JSONL file into a session log.

    Args:
        data: The file's bytes (hashed and measured as they are).
        name: The file name: errors cite it, and without a header the session id is
            derived from it.

    Raises:
        ImportFormatError: A line is not a JSON object, or a field is missing, unknown or of
            the wrong type (the message names the file, line and field).
    """
    session, harness = None, DEFAULT_HARNESS
    turns: list[LoggedTurn] = []
    for number, value in _objects(decode(data, name), name):
        where = f"{name}:{number}"
        if "session_id" in value and "role" not in value and not turns and session is None:
            session, harness = _header(value, where)
            continue
        if "role" not in value:
            raise ImportFormatError(f"{where}: missing field 'role'")
        turns.append(_turn(len(turns), value, where))
    return imported_log(harness, session or session_id_from_name(name), data, turns)


def dump_jsonl(log: SessionLog) -> str:
    """Write a session log's turns as normalised-turns JSONL, header first.

    :func:`parse_jsonl` reads the text back to the same session id, harness and turns.
    """
    lines = [json.dumps({"session_id": log.session_id, "harness": log.harness})]
    for turn in log.turns:
        record: dict[str, Any] = {"role": turn.role, "text": turn.text}
        if turn.tool_calls:
            record["tool_calls"] = [call.model_dump() for call in turn.tool_calls]
        if turn.timestamp is not None:
            record["timestamp"] = turn.timestamp
        lines.append(json.dumps(record, ensure_ascii=False, sort_keys=True))
    return "\n".join(lines) + "\n"
