"""Copilot CLI session event logs (``$COPILOT_HOME/session-state/<id>/events.jsonl``) as turns.

One ``{"type", "data", "id", "timestamp", "parentId"}`` record per line (shared/HARNESSES.md
section 4.4). How records become turns:

* ``user.message``: a human prompt, role ``user``, from ``data.content`` (what the person
  typed; ``transformedContent`` adds the date and hook context, which are not theirs).
* ``assistant.message``: role ``assistant``, its ``content`` and its ``toolRequests`` as
  tool calls (remembered by ``toolCallId`` for their results).
* ``tool.execution_complete``: one ``tool`` turn: the call's name and arguments, a result
  excerpt of at most :data:`EXCERPT_CHARS` characters, ``is_error`` when ``success`` is
  false (a denied call's excerpt is the denial).
* ``session.compaction_complete``: the summary, role ``summary``.
* ``hook.end`` whose ``output`` carries ``additionalContext``: text a hook injected, role
  ``tool`` with ``injected=True``: never a ``user`` turn.
* Everything else (system prompt, turn brackets, model calls, usage) is skipped.

``Turn.index`` is the record's 0-based line number, stable across re-reads.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from lorebook.events import ToolCall, Turn
from lorebook.hostkit import jsonl
from lorebook.hostkit.jsonl import transcript_end as transcript_end

if TYPE_CHECKING:
    from lorebook.hostkit.jsonl import PendingCalls

EXCERPT_CHARS = 500
"""Tool results are cut to this many characters."""

UNKNOWN_TOOL = "unknown"
"""Tool name of a result whose request lies before the offset reading started at."""


def read_transcript(
    ref: str, since: int | None = None, until: int | None = None, lines_before: int | None = None
) -> Iterator[Turn]:
    """Yield the turns of a Copilot event log between two offsets (index: line number).

    See :func:`lorebook.hostkit.jsonl.read_turns` for ``since``, ``until``,
    ``lines_before`` (capture passes it when it resumes) and errors.
    """
    return jsonl.read_turns(ref, since, until, _turn_of_record, lines_before)


def _text(value: Any) -> str:
    return value.strip() if isinstance(value, str) else ""


def _excerpt(text: str) -> str:
    return text if len(text) <= EXCERPT_CHARS else text[: EXCERPT_CHARS - 1] + "\u2026"


def _turn_of_record(record: dict[str, Any], index: int, calls: PendingCalls) -> Turn | None:
    data = record.get("data")
    if not isinstance(data, Mapping):
        return None
    stamp = jsonl.record_time(record)
    kind = record.get("type")
    if kind == "user.message":
        text = _text(data.get("content"))
        return Turn(index, "user", text, timestamp=stamp) if text else None
    if kind == "assistant.message":
        return _assistant_turn(data, index, stamp, calls)
    if kind == "tool.execution_complete":
        return _tool_turn(data, index, stamp, calls)
    if kind == "session.compaction_complete":
        summary = _text(data.get("summaryContent"))
        return Turn(index, "summary", summary, timestamp=stamp) if summary else None
    if kind == "hook.end":
        output = data.get("output")
        text = _text(output.get("additionalContext")) if isinstance(output, Mapping) else ""
        return Turn(index, "tool", text, timestamp=stamp, injected=True) if text else None
    return None


def _assistant_turn(
    data: Mapping[str, Any], index: int, stamp: str | None, calls: PendingCalls
) -> Turn | None:
    tool_calls = []
    requests = data.get("toolRequests")
    for request in requests if isinstance(requests, list) else ():
        if not isinstance(request, Mapping) or not isinstance(request.get("name"), str):
            continue
        arguments = request.get("arguments")
        arguments = arguments if isinstance(arguments, Mapping) else {}
        tool_calls.append(ToolCall(request["name"], arguments))
        if isinstance(request.get("toolCallId"), str):
            calls[request["toolCallId"]] = (request["name"], arguments)
    text = _text(data.get("content"))
    if not text and not tool_calls:
        return None
    return Turn(index, "assistant", text, tuple(tool_calls), timestamp=stamp)


def _tool_turn(data: Mapping[str, Any], index: int, stamp: str | None, calls: PendingCalls) -> Turn:
    call_id = data.get("toolCallId")
    name, arguments = calls.pop(call_id if isinstance(call_id, str) else "", (UNKNOWN_TOOL, {}))
    failed = data.get("success") is False
    source = data.get("error") if failed else data.get("result")
    excerpt = _excerpt(
        _text(source.get("message" if failed else "content")) if isinstance(source, Mapping) else ""
    )
    call = ToolCall(name, arguments, excerpt, is_error=failed)
    return Turn(index, "tool", excerpt, (call,), timestamp=stamp)
