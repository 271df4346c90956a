r"""Claude Code session transcripts (``~/.claude/projects/<slug>/<session>.jsonl``) as turns.

One JSON record per line (shared/HARNESSES.md section 1.4). How records become turns:

* ``user`` with text content: a human prompt, role ``user``. Slash commands
  (``<command-name>/compact</command-name>``) become ``user`` turns reading ``/compact``.
  ``<system-reminder>`` spans are removed from human text; a record holding only such
  spans (and ``<ide_opened_file>`` / ``<ide_selection>``, what the IDE told Claude), or
  marked ``isMeta`` (text Claude wrote on the user's behalf) or a background task's
  report (``origin.kind`` ``task-notification``), is an injected turn. Local command
  output (``<local-command-stdout>``) is a ``tool`` turn.
* ``user`` with ``tool_result`` blocks: one ``tool`` turn whose ``tool_calls`` hold one
  :class:`~lorebook.events.ToolCall` per result (name and input of the matching
  ``tool_use`` when it was read in the same pass, else name ``unknown``), a result excerpt
  of at most :data:`EXCERPT_CHARS` characters and ``is_error``; its text is the excerpts.
  The assistant turn that asked for the tools carries the same calls without results.
* ``user`` with ``isCompactSummary``: the compaction summary, role ``summary``.
* ``assistant``: role ``assistant``, text blocks joined, ``tool_use`` blocks as tool calls
  (thinking blocks are left out). Messages Claude made up itself (model ``<synthetic>``,
  API error messages) are marked injected.
* ``attachment`` of type ``hook_success`` or ``hook_additional_context``: text a hook
  injected, role ``tool`` with ``injected=True``: never a ``user`` turn. It carries the
  hook's event (``hookEvent``) and, for lorebook's own hooks, the ``durationMs`` Claude
  recorded for that run.
* Everything else is skipped: bookkeeping (``queue-operation``, ``last-prompt``, ``mode``,
  ``file-history-snapshot``, ``progress``), other attachments, ``system`` records (the
  ``compact_boundary`` marker carries no text; the summary record that follows it is the
  summary turn) and subagent lines (``isSidechain``).

Records are JSON objects as ``json`` decodes them, so every object is a ``dict`` (tested
with ``isinstance(x, dict)``, several times faster than the ``Mapping`` ABC).

``Turn.index`` is the record's 0-based line number in the file, so it is stable across
re-reads. Reading resumes from a byte offset; a trailing line without its newline (Claude
is still writing it) and lines that are not JSON objects are skipped without raising.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from lorebook.events import ToolCall, Turn
from lorebook.hostkit import jsonl
from lorebook.hostkit.jsonl import transcript_end as transcript_end

if TYPE_CHECKING:
    from lorebook.events import Role
    from lorebook.hostkit.jsonl import PendingCalls

EXCERPT_CHARS = 500
"""Tool results are cut to this many characters."""

UNKNOWN_TOOL = "unknown"
"""Tool name of a result whose ``tool_use`` lies before the offset reading started at."""

_INJECTED_SPAN = re.compile(
    r"<(system-reminder|user-prompt-submit-hook|ide_opened_file|ide_selection|task-notification)>"
    r"(.*?)</\1>",
    re.S,
)
_COMMAND_NAME = re.compile(r"<command-name>(.*?)</command-name>", re.S)
_COMMAND_ARGS = re.compile(r"<command-args>(.*?)</command-args>", re.S)
_BASH_INPUT = re.compile(r"^<bash-input>(.*?)</bash-input>$", re.S)
_OUTPUT_TAG = re.compile(r"</?(local-command-stdout|local-command-stderr|bash-stdout|bash-stderr)>")
_CAVEAT = "<local-command-caveat>"
_INJECTING_ATTACHMENTS = frozenset({"hook_success", "hook_additional_context"})


def read_transcript(
    ref: str, since: int | None = None, until: int | None = None, lines_before: int | None = None
) -> Iterator[Turn]:
    """Yield the turns of a Claude Code transcript between two offsets (index: line number).

    See :func:`lorebook.hostkit.jsonl.read_turns` for ``since``, ``until``,
    ``lines_before`` (capture passes it when it resumes) and errors.
    """
    return jsonl.read_turns(ref, since, until, _turn_of_record, lines_before)


def _turn_of_record(record: dict[str, Any], index: int, tools: PendingCalls) -> Turn | None:
    if record.get("isSidechain") is True:
        return None
    stamp = jsonl.record_time(record)
    kind = record.get("type")
    if kind == "user":
        return _user_turn(record, index, stamp, tools)
    if kind == "assistant":
        return _assistant_turn(record, index, stamp, tools)
    if kind == "attachment":
        return _attachment_turn(record, index, stamp, tools)
    return None


def _plain_text(content: Any, joiner: str = "\n") -> str:
    """Text of a message or tool_result ``content`` (a string, or a list of blocks)."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    parts = [
        block["text"]
        for block in content
        if isinstance(block, dict)
        and block.get("type") == "text"
        and isinstance(block.get("text"), str)
    ]
    return joiner.join(parts)


def _excerpt(text: str, limit: int = EXCERPT_CHARS) -> str:
    text = text.strip()
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"


def _user_turn(
    record: Mapping[str, Any], index: int, stamp: str | None, tools: PendingCalls
) -> Turn | None:
    message = record.get("message")
    if not isinstance(message, dict):
        return None
    content = message.get("content")
    if record.get("isCompactSummary") is True:
        summary = _plain_text(content).strip()
        return Turn(index, "summary", summary, timestamp=stamp) if summary else None
    if isinstance(content, list) and any(_is_tool_result(block) for block in content):
        return _tool_result_turn(content, index, stamp, tools)
    text = _plain_text(content).strip()
    if not text:
        return None
    if record.get("isMeta") is True or _notification(record):
        return _injected(index, text, stamp)
    return _text_turn(text, index, stamp)


def _notification(record: Mapping[str, Any]) -> bool:
    """Whether Claude Code sent the record in the person's name: a background task's report.

    It is marked ``"origin": {"kind": "task-notification"}``; nobody typed it.
    """
    origin = record.get("origin")
    return isinstance(origin, dict) and origin.get("kind") == "task-notification"


def _is_tool_result(block: Any) -> bool:
    return isinstance(block, dict) and block.get("type") == "tool_result"


def _injected(index: int, text: str, stamp: str | None, role: Role = "tool") -> Turn:
    return Turn(index, role, text, timestamp=stamp, injected=True)


def _text_turn(text: str, index: int, stamp: str | None) -> Turn | None:
    """A user record's text: human prompt, slash command, command output or injected."""
    spans = [match.group(2).strip() for match in _INJECTED_SPAN.finditer(text)]
    human = _INJECTED_SPAN.sub("", text).strip()
    if not human or human.startswith(_CAVEAT):
        injected = "\n".join(span for span in spans if span) or human
        return _injected(index, injected, stamp) if injected else None
    if _COMMAND_NAME.search(human):
        return Turn(index, "user", _command_text(human), timestamp=stamp)
    if _OUTPUT_TAG.match(human):
        return Turn(index, "tool", _excerpt(_OUTPUT_TAG.sub("", human)), timestamp=stamp)
    bash = _BASH_INPUT.match(human)
    if bash:
        return Turn(index, "user", "!" + bash.group(1).strip(), timestamp=stamp)
    return Turn(index, "user", human, timestamp=stamp)


def _command_text(text: str) -> str:
    """``/name args`` from Claude's ``<command-name>``/``<command-args>`` markup."""
    name_match = _COMMAND_NAME.search(text)
    name = name_match.group(1).strip() if name_match else ""
    if name and not name.startswith("/"):
        name = "/" + name
    args_match = _COMMAND_ARGS.search(text)
    args = args_match.group(1).strip() if args_match else ""
    return f"{name} {args}".strip()


def _tool_result_turn(
    content: list[Any], index: int, stamp: str | None, tools: PendingCalls
) -> Turn:
    calls: list[ToolCall] = []
    for block in content:
        if not _is_tool_result(block):
            continue
        use_id = block.get("tool_use_id")
        key = use_id if isinstance(use_id, str) else ""
        name, tool_input = tools.pop(key, (UNKNOWN_TOOL, {}))
        excerpt = _excerpt(_plain_text(block.get("content")))
        calls.append(ToolCall(name, tool_input, excerpt, is_error=block.get("is_error") is True))
    text = "\n".join(call.result_excerpt for call in calls if call.result_excerpt)
    return Turn(index, "tool", text, tuple(calls), timestamp=stamp)


def _assistant_turn(
    record: Mapping[str, Any], index: int, stamp: str | None, tools: PendingCalls
) -> Turn | None:
    message = record.get("message")
    if not isinstance(message, dict):
        return None
    content = message.get("content")
    texts: list[str] = [content] if isinstance(content, str) else []
    calls: list[ToolCall] = []
    for block in content if isinstance(content, list) else ():
        if not isinstance(block, dict):
            continue
        if block.get("type") == "text" and isinstance(block.get("text"), str):
            texts.append(block["text"])
        elif block.get("type") == "tool_use" and isinstance(block.get("name"), str):
            tool_input = block.get("input")
            tool_input = tool_input if isinstance(tool_input, dict) else {}
            calls.append(ToolCall(block["name"], tool_input))
            if isinstance(block.get("id"), str):
                tools[block["id"]] = (block["name"], tool_input)
    text = "\n\n".join(t.strip() for t in texts if t.strip())
    if not text and not calls:
        return None
    synthetic = message.get("model") == "<synthetic>" or record.get("isApiErrorMessage") is True
    return Turn(index, "assistant", text, tuple(calls), timestamp=stamp, injected=synthetic)


def _attachment_turn(
    record: Mapping[str, Any], index: int, stamp: str | None, tools: PendingCalls
) -> Turn | None:
    """A hook's injected text, with the hook's event and, when Claude recorded it, duration.

    Claude writes a ``hook_success`` record (with ``durationMs``) for each hook run and, for
    JSON output, a ``hook_additional_context`` record right after it holding the text. The
    duration of a lorebook hook (its command runs ``.lorebook/bin/hook``) is kept in
    ``tools`` under ``hook:<event>`` until the text of that event arrives.
    """
    attachment = record.get("attachment")
    if not isinstance(attachment, dict):
        return None
    if attachment.get("type") not in _INJECTING_ATTACHMENTS:
        return None
    event = attachment.get("hookEvent") if isinstance(attachment.get("hookEvent"), str) else None
    duration = attachment.get("durationMs")
    key = f"hook:{event}"
    ours = ".lorebook/bin/hook" in str(attachment.get("command", ""))
    if attachment.get("type") == "hook_success" and type(duration) is int and ours:
        tools[key] = ("duration", {"ms": duration})
    content = attachment.get("content")
    if isinstance(content, list):
        text = "\n".join(part for part in content if isinstance(part, str))
    else:
        text = content if isinstance(content, str) else ""
    text = text.strip()
    if not text:
        return None
    pending = tools.pop(key, None)
    ms = pending[1].get("ms") if pending is not None else None
    return Turn(
        index, "tool", text, timestamp=stamp, injected=True, hook_event=event,
        duration_ms=ms if type(ms) is int else None,
    )  # fmt: skip
