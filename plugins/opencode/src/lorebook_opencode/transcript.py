"""OpenCode sessions, read from OpenCode's own SQLite store, as turns.

OpenCode 1.18.33 keeps sessions in ``opencode.db`` (shared/HARNESSES.md section 3.4):
``message`` rows (``data.role`` user or assistant) and their ``part`` rows (``text``,
``tool``, ``compaction``, ``step-*``), JSON in a ``data`` column. A transcript reference
is ``<database path>#<sessionID>``; offsets count the session's complete messages in
order (a ``Turn.index`` is the message's position, stable across re-reads, as messages
are only appended). The database is opened read-only; OpenCode may write meanwhile.

* a user message: its text parts are the human's prompt (one enclosing pair of quotes,
  which ``opencode run`` adds, stripped); its synthetic parts (text a plugin injected,
  lorebook's among them) are an injected turn, never a ``user`` turn. A message holding
  only a ``compaction`` part (the compaction request) is skipped.
* an assistant message: role ``assistant``, its text parts, its ``tool`` parts as tool
  calls with a result excerpt of at most :data:`EXCERPT_CHARS` characters (``is_error``
  when the call failed). The summary a compaction writes (``summary: true``) is a
  ``summary`` turn. A message not completed yet (no ``time.completed``) ends the read.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator, Mapping
from contextlib import closing
from pathlib import Path
from typing import Any

from lorebook.events import ToolCall, Turn

from .events import unquote

EXCERPT_CHARS = 500
"""Tool results are cut to this many characters."""

_MESSAGES = (
    "SELECT id, time_created, data FROM message WHERE session_id = ? ORDER BY time_created, id"
)
_PARTS = "SELECT message_id, data FROM part WHERE session_id = ? ORDER BY time_created, id"


def split_ref(ref: str) -> tuple[str, str]:
    """(database path, session id) of a transcript reference.

    Raises:
        ValueError: the reference is not ``<path>#<sessionID>``.
    """
    path, sep, session = ref.rpartition("#")
    if not sep or not path or not session:
        raise ValueError(f"not an OpenCode transcript reference (<database>#<session>): {ref!r}")
    return path, session


def _rows(ref: str) -> list[tuple[str, int, dict[str, Any], list[dict[str, Any]]]]:
    path, session = split_ref(ref)
    if not Path(path).is_file():
        raise FileNotFoundError(f"OpenCode's database {path} does not exist")
    uri = Path(path).resolve().as_uri() + "?mode=ro"
    with closing(sqlite3.connect(uri, uri=True, timeout=5)) as db:
        messages = db.execute(_MESSAGES, (session,)).fetchall()
        parts: dict[str, list[dict[str, Any]]] = {}
        for message_id, data in db.execute(_PARTS, (session,)):
            parts.setdefault(message_id, []).append(_json(data))
    return [(mid, created, _json(data), parts.get(mid, [])) for mid, created, data in messages]


def _json(text: Any) -> dict[str, Any]:
    try:
        value = json.loads(text)
    except (TypeError, ValueError, RecursionError):  # as hostkit.jsonl.read_records skips
        return {}
    return value if isinstance(value, dict) else {}


def _complete(rows: list[tuple[str, int, dict[str, Any], list[dict[str, Any]]]]) -> int:
    for position, (_, _, data, _) in enumerate(rows):
        time = data.get("time")
        if data.get("role") == "assistant" and not (
            isinstance(time, Mapping) and time.get("completed")
        ):
            return position
    return len(rows)


def transcript_end(ref: str) -> int:
    """How many of the session's messages are complete (the offset to resume from).

    Raises:
        ValueError: the reference is malformed.
        OSError, sqlite3.Error: the database cannot be read.
    """
    return _complete(_rows(ref))


def read_transcript(ref: str, since: int | None = None, until: int | None = None) -> Iterator[Turn]:
    """Yield the turns of messages ``since`` (default 0) up to ``until`` (default: all complete).

    Raises:
        ValueError: the reference is malformed or ``since`` is negative.
        OSError, sqlite3.Error: the database cannot be read.
    """
    start = since or 0
    if start < 0:
        raise ValueError(f"since must be a message offset >= 0, not {start}")
    rows = _rows(ref)
    stop = _complete(rows) if until is None else min(until, _complete(rows))
    for index in range(start, stop):
        _, created, data, parts = rows[index]
        yield from _turns(index, _stamp(created), data, parts)


def _stamp(created: Any) -> str | None:
    if not isinstance(created, int):
        return None
    import datetime

    moment = datetime.datetime.fromtimestamp(created / 1000, tz=datetime.UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _texts(parts: list[dict[str, Any]], *, synthetic: bool) -> str:
    found = [
        p["text"].strip()
        for p in parts
        if p.get("type") == "text"
        and isinstance(p.get("text"), str)
        and bool(p.get("synthetic")) is synthetic
        and p["text"].strip()
    ]
    return "\n\n".join(found)


def _turns(
    index: int, stamp: str | None, data: Mapping[str, Any], parts: list[dict[str, Any]]
) -> Iterator[Turn]:
    if data.get("role") == "user":
        human = unquote(_texts(parts, synthetic=False))
        if human:
            yield Turn(index, "user", human, timestamp=stamp)
        injected = _texts(parts, synthetic=True)
        if injected:
            yield Turn(index, "tool", injected, timestamp=stamp, injected=True)
        return
    text = _texts(parts, synthetic=False)
    if data.get("summary") is True:
        if text:
            yield Turn(index, "summary", text, timestamp=stamp)
        return
    calls = tuple(
        _call(p) for p in parts if p.get("type") == "tool" and isinstance(p.get("tool"), str)
    )
    if text or calls:
        yield Turn(index, "assistant", text, calls, timestamp=stamp)


def _call(part: Mapping[str, Any]) -> ToolCall:
    state = part.get("state")
    state = state if isinstance(state, Mapping) else {}
    tool_input = state.get("input")
    failed = state.get("status") == "error"
    result = state.get("error" if failed else "output")
    excerpt = result.strip() if isinstance(result, str) else ""
    if len(excerpt) > EXCERPT_CHARS:
        excerpt = excerpt[: EXCERPT_CHARS - 1] + "\u2026"
    return ToolCall(
        part["tool"], tool_input if isinstance(tool_input, Mapping) else {}, excerpt, failed
    )
