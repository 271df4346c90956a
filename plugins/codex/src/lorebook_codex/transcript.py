r"""Codex CLI rollouts (``$CODEX_HOME/sessions/Y/M/D/rollout-<ts>-<id>.jsonl``) as turns.

One ``{"timestamp", "ordinal", "type", "payload"}`` record per line (shared/HARNESSES.md
section 2.4). How records become turns:

* ``response_item`` message, role ``user``: each text item is classified by Codex's own
  ``content_item_kinds`` metadata. ``user.*`` items are what a person typed: a ``user``
  turn. The AGENTS.md instructions (``agents_md.instructions``, ``# AGENTS.md
  instructions for …``) and ``<environment_context>`` items are the harness's, and are
  skipped; they are never a ``user`` turn. A record without that metadata (older Codex)
  falls back to the text: known harness prefixes are skipped, the rest is human.
* ``response_item`` message, role ``developer``: text Codex or a hook put in the context,
  never human. Hook output (``hooks.additional_context``) is a ``tool`` turn with
  ``injected=True``; Codex's own instructions (skills, permissions) are skipped.
* ``response_item`` message, role ``assistant``: the ``output_text`` items, an
  ``assistant`` turn.
* ``function_call`` / ``custom_tool_call``: an ``assistant`` turn without text carrying
  one :class:`~lorebook.events.ToolCall` (name and parsed arguments). The shell tool is
  named as Codex names it to hooks: ``exec_command`` ``{"cmd": …}`` becomes ``Bash``
  ``{"command": …}`` (its other arguments kept), so a rollout and the hook events of the
  same session agree.
* ``function_call_output`` / ``custom_tool_call_output``: a ``tool`` turn whose one tool
  call holds the name and input of the matching call (read in the same pass, else name
  ``unknown``), an excerpt of at most :data:`EXCERPT_CHARS` characters of the output (for
  a shell command, the command's output without Codex's ``Chunk ID``/``Wall time``
  header) and ``is_error``: a non-zero ``Process exited with code N``, a tool call a hook
  blocked, or ``success: false``.
* ``compacted``: the compaction summary, a ``summary`` turn (Codex's fixed preamble
  "Another language model started to solve this problem…" removed). Its
  ``replacement_history`` repeats earlier messages and is not read.
* Everything else is skipped: ``session_meta``, ``turn_context``, ``world_state``,
  ``event_msg`` (UI events that repeat the messages), ``token_usage_record``, reasoning.

``Turn.index`` is the record's 0-based line number in the file, so it is stable across
re-reads. Reading resumes from a byte offset; a trailing line without its newline (Codex
is still writing it) and lines that are not JSON objects are skipped without raising. The
file is read line by line, never whole.
"""

from __future__ import annotations

import json
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
"""Tool name of a result whose call lies before the offset reading started at."""

SUMMARY_PREAMBLE_END = "use the information in this summary to assist with your own analysis:"
"""The last words of the fixed text Codex puts before a compaction summary."""

INJECTED_PREFIXES = (
    "# AGENTS.md instructions for ",
    "<environment_context>",
    "<user_instructions>",
    "<INSTRUCTIONS>",
    "<permissions instructions>",
    "<skills_instructions>",
    "<turn_aborted>",
)
"""Harness text in ``user`` messages, recognised by its start when metadata is missing."""

_HOOK_KIND = "hooks.additional_context"
_SUMMARY_KIND = "compaction.summary"
_CALLS = frozenset({"function_call", "custom_tool_call"})
_OUTPUTS = frozenset({"function_call_output", "custom_tool_call_output"})
_SHELL_TOOLS = {"exec_command": "cmd", "shell_command": "command"}
_EXIT_LINE = "Process exited with code "
_OUTPUT_LINE = "Output:\n"
_BLOCKED = "Command blocked by PreToolUse hook:"


def read_transcript(
    ref: str, since: int | None = None, until: int | None = None, lines_before: int | None = None
) -> Iterator[Turn]:
    """Yield the turns of a Codex rollout between two byte offsets (``index``: line number).

    See :func:`lorebook.hostkit.jsonl.read_turns` for ``since``, ``until``,
    ``lines_before`` (capture passes it when it resumes) and errors.
    """
    return jsonl.read_turns(ref, since, until, _turn_of_record, lines_before)


def _turn_of_record(record: dict[str, Any], index: int, tools: PendingCalls) -> Turn | None:
    if not isinstance(record.get("payload"), dict):
        return None
    stamp = jsonl.record_time(record)
    payload = record["payload"]
    if record.get("type") == "compacted":
        return _summary_turn(payload.get("message"), index, stamp)
    if record.get("type") != "response_item":
        return None
    kind = payload.get("type")
    if kind == "message":
        return _message_turn(payload, index, stamp)
    if kind in _CALLS:
        return _call_turn(payload, index, stamp, tools)
    if kind in _OUTPUTS:
        return _output_turn(payload, index, stamp, tools)
    return None


def _summary_turn(message: Any, index: int, stamp: str | None) -> Turn | None:
    if not isinstance(message, str):
        return None
    at = message.find(SUMMARY_PREAMBLE_END)
    text = message[at + len(SUMMARY_PREAMBLE_END) :] if at >= 0 else message
    text = text.strip()
    return Turn(index, "summary", text, timestamp=stamp) if text else None


def _text_items(payload: Mapping[str, Any]) -> list[tuple[str, str | None]]:
    """(text, Codex's content kind or None) of each text item of a message."""
    content = payload.get("content")
    meta = payload.get("internal_chat_message_metadata_passthrough")
    kinds = meta.get("content_item_kinds") if isinstance(meta, Mapping) else None
    if not isinstance(content, list):
        return [(content, None)] if isinstance(content, str) else []
    aligned = isinstance(kinds, list) and len(kinds) == len(content)
    items = []
    for position, item in enumerate(content):
        if isinstance(item, Mapping) and isinstance(item.get("text"), str):
            kind = kinds[position] if aligned else None  # type: ignore[index]
            items.append((item["text"], kind if isinstance(kind, str) else None))
    return items


def _message_turn(payload: Mapping[str, Any], index: int, stamp: str | None) -> Turn | None:
    role = payload.get("role")
    items = _text_items(payload)
    if role == "user":
        return _user_turn(items, index, stamp)
    if role == "developer":
        hook_text = _join(text for text, kind in items if kind == _HOOK_KIND)
        if not hook_text:
            return None
        return Turn(index, "tool", hook_text, timestamp=stamp, injected=True)
    if role == "assistant":
        text = _join((text for text, _ in items), "\n\n")
        return Turn(index, "assistant", text, timestamp=stamp) if text else None
    return None


def _user_turn(items: list[tuple[str, str | None]], index: int, stamp: str | None) -> Turn | None:
    human = _join(text for text, kind in items if _is_human(text, kind))
    if human:
        return Turn(index, "user", human, timestamp=stamp)
    summary = _join(text for text, kind in items if kind == _SUMMARY_KIND)
    return _summary_turn(summary, index, stamp) if summary else None


def _is_human(text: str, kind: str | None) -> bool:
    if kind is not None:
        return kind.startswith("user.")
    return not text.lstrip().startswith(INJECTED_PREFIXES)


def _join(texts: Any, joiner: str = "\n") -> str:
    return joiner.join(text.strip() for text in texts if text.strip())


def _parsed_arguments(raw: Any) -> Mapping[str, Any]:
    if isinstance(raw, Mapping):
        return raw
    if not isinstance(raw, str):
        return {}
    try:
        value = json.loads(raw)
    except (ValueError, RecursionError):
        return {"arguments": raw}
    return value if isinstance(value, dict) else {"arguments": value}


def _tool_call(name: str, arguments: Mapping[str, Any]) -> tuple[str, Mapping[str, Any]]:
    """Name and input as Codex reports them to hooks (the shell tool is ``Bash``)."""
    key = _SHELL_TOOLS.get(name)
    if key is None or not isinstance(arguments.get(key), str):
        return name, arguments
    rest = {k: v for k, v in arguments.items() if k != key}
    return "Bash", {"command": arguments[key], **rest}


def _call_turn(
    payload: Mapping[str, Any], index: int, stamp: str | None, tools: PendingCalls
) -> Turn | None:
    name = payload.get("name")
    if not isinstance(name, str) or not name:
        return None
    if payload.get("type") == "custom_tool_call":
        raw = payload.get("input")
        arguments: Mapping[str, Any] = {"input": raw} if isinstance(raw, str) else {}
    else:
        arguments = _parsed_arguments(payload.get("arguments"))
    name, tool_input = _tool_call(name, arguments)
    call_id = payload.get("call_id")
    if isinstance(call_id, str):
        tools[call_id] = (name, tool_input)
    return Turn(index, "assistant", "", (ToolCall(name, tool_input),), timestamp=stamp)


def _output_text(output: Any) -> tuple[str, bool]:
    """The text of a tool output, and whether it says the tool failed (``success``)."""
    if isinstance(output, str):
        return output, False
    if isinstance(output, list):
        texts = [item.get("text") for item in output if isinstance(item, Mapping)]
        return "\n".join(text for text in texts if isinstance(text, str)), False
    if isinstance(output, Mapping):
        text, _ = _output_text(output.get("content"))
        return text, output.get("success") is False
    return "", False


def _exec_result(text: str) -> tuple[str, bool]:
    """The command output of Codex's exec block, and whether its exit code is not 0."""
    at = text.find(_EXIT_LINE)
    body_at = text.find("\n" + _OUTPUT_LINE)
    if at < 0 or body_at < at or (at > 0 and text[at - 1] != "\n"):
        return text, text.startswith(_BLOCKED)
    code = text[at + len(_EXIT_LINE) : text.find("\n", at)].strip()
    failed = not (code.lstrip("-").isdigit() and int(code) == 0)
    return text[body_at + 1 + len(_OUTPUT_LINE) :], failed


def _excerpt(text: str, limit: int = EXCERPT_CHARS) -> str:
    text = text.strip()
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"


def _output_turn(
    payload: Mapping[str, Any], index: int, stamp: str | None, tools: PendingCalls
) -> Turn:
    call_id = payload.get("call_id")
    name, tool_input = tools.pop(call_id if isinstance(call_id, str) else "", (UNKNOWN_TOOL, {}))
    text, unsuccessful = _output_text(payload.get("output"))
    result, failed = _exec_result(text)
    excerpt = _excerpt(result)
    call = ToolCall(name, tool_input, excerpt, is_error=failed or unsuccessful)
    return Turn(index, "tool", excerpt, (call,), timestamp=stamp)
