"""The OpenAI Responses API's shapes, as the Codex e2e mock needs them.

Reading a recorded request (its text, its last user message, its tool outputs, whether it is an
agent turn) and writing a reply (a whole response object, or the server-sent events of a
streamed one). The shapes follow what Codex CLI 0.171 sends and accepts: ``input`` is a list of
items (``message`` with role ``developer``/``user``/``assistant`` and ``input_text`` or
``output_text`` parts, ``function_call``, ``function_call_output``, ...), the harness
instructions travel as the first ``developer`` message (there is no ``instructions`` key), and
every request carries ``client_metadata["x-codex-turn-metadata"]``, a JSON string whose
``request_kind`` is ``"turn"`` for an agent turn and ``"compaction"`` for a compaction summary.
"""

from __future__ import annotations

import itertools
import json
import time
import uuid
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from tests.mockserver import JSON, estimate_tokens, leaf_strings

__all__ = [
    "JSON",
    "Reply",
    "all_text",
    "developer_texts",
    "estimate_tokens",
    "exec_output",
    "function_call_outputs",
    "function_calls",
    "input_items",
    "is_main_request",
    "last_user_text",
    "offers_tool",
    "request_kind",
    "response_json",
    "stream_events",
    "trailing_function_call_outputs",
]


_TEXT_PARTS = frozenset({"input_text", "output_text", "text", "summary_text", "reasoning_text"})
_TOOL_OUTPUTS = frozenset(
    {"function_call_output", "custom_tool_call_output", "local_shell_call_output"}
)

# ---------------------------------------------------------------- replies


def _new_id(prefix: str) -> str:
    return f"{prefix}_{uuid.uuid4().hex[:24]}"


@dataclass(frozen=True)
class Reply:
    """One scripted model turn: a tuple of Responses API output items."""

    items: tuple[JSON, ...]

    @classmethod
    def say(cls, text: str) -> Reply:
        """A reply holding one assistant ``message`` with one ``output_text`` part."""
        item = {
            "type": "message",
            "id": _new_id("msg"),
            "status": "completed",
            "role": "assistant",
            "content": [{"type": "output_text", "text": text, "annotations": []}],
        }
        return cls((item,))

    @classmethod
    def call_function(cls, name: str, arguments: Mapping[str, Any]) -> Reply:
        """A reply holding one ``function_call`` item with fresh ids."""
        item = {
            "type": "function_call",
            "id": _new_id("fc"),
            "status": "completed",
            "call_id": _new_id("call"),
            "name": name,
            "arguments": json.dumps(dict(arguments)),
        }
        return cls((item,))

    @property
    def text(self) -> str:
        """The reply's assistant text (every ``output_text`` part, joined)."""
        return "".join(
            part.get("text", "")
            for item in self.items
            if item.get("type") == "message"
            for part in item.get("content") or []
            if isinstance(part, dict) and part.get("type") == "output_text"
        )

    @property
    def calls_function(self) -> bool:
        """Whether the reply asks the client to run a tool."""
        return any(item.get("type") == "function_call" for item in self.items)


# ---------------------------------------------------------------- request helpers


def input_items(request: Mapping[str, Any]) -> list[JSON]:
    """The request's ``input`` as a list of items (a bare string becomes one user message)."""
    raw = request.get("input")
    if isinstance(raw, str):
        return [{"type": "message", "role": "user", "content": raw}]
    return [item for item in raw or [] if isinstance(item, dict)]


def _content_texts(content: Any) -> Iterator[str]:
    """Yield the text of a message's ``content`` (a string, or a list of parts)."""
    if isinstance(content, str):
        yield content
    elif isinstance(content, list):
        for part in content:
            if isinstance(part, str):
                yield part
            elif (
                isinstance(part, dict)
                and part.get("type", "input_text") in _TEXT_PARTS
                and isinstance(part.get("text"), str)
            ):
                yield part["text"]


def _arguments(item: Mapping[str, Any]) -> Any:
    raw = item.get("arguments")
    if not isinstance(raw, str):
        return raw
    try:
        return json.loads(raw)
    except ValueError:
        return raw


def _output_text(item: Mapping[str, Any]) -> str:
    """The text of a tool output item (its ``output`` is a string or a list of parts)."""
    output = item.get("output")
    if isinstance(output, dict):  # local_shell_call_output and friends
        output = output.get("content", output.get("output"))
    return "\n".join(_content_texts(output))


def _item_texts(item: Mapping[str, Any]) -> Iterator[str]:
    kind = item.get("type", "message")
    if kind == "message":
        yield from _content_texts(item.get("content"))
    elif kind == "function_call":
        yield from leaf_strings(_arguments(item))
    elif kind == "custom_tool_call" and isinstance(item.get("input"), str):
        yield item["input"]
    elif kind in _TOOL_OUTPUTS:
        yield _output_text(item)
    elif kind == "reasoning":
        for part in item.get("summary") or []:
            yield from _content_texts([part])


def all_text(request: Mapping[str, Any]) -> str:
    """Every text string of a request's ``instructions`` and ``input``, joined by newlines.

    Includes every message's text parts (``developer`` ones too: Codex's own instructions and
    hook-injected context), the string values of ``function_call`` arguments and the text of
    every tool output; not the ``tools`` list.
    """
    parts = list(_content_texts(request.get("instructions")))
    for item in input_items(request):
        parts.extend(_item_texts(item))
    return "\n".join(parts)


def _is_message(item: Mapping[str, Any], role: str) -> bool:
    return item.get("type", "message") == "message" and item.get("role") == role


def last_user_text(request: Mapping[str, Any]) -> str:
    """The text parts of the request's last ``user`` message, joined by newlines.

    In a Codex agent turn that is the prompt: AGENTS.md and ``<environment_context>`` are user
    messages too, but they come before it, and hook context comes as ``developer`` messages.
    """
    for item in reversed(input_items(request)):
        if _is_message(item, "user"):
            return "\n".join(_content_texts(item.get("content")))
    return ""


def developer_texts(request: Mapping[str, Any]) -> list[str]:
    """The text of each ``developer`` message, in order (the first is Codex's instructions)."""
    return [
        "\n".join(_content_texts(item.get("content")))
        for item in input_items(request)
        if _is_message(item, "developer")
    ]


def function_calls(request: Mapping[str, Any]) -> list[tuple[str, Any]]:
    """``(name, parsed arguments)`` of each ``function_call`` item the request carries."""
    return [
        (str(item.get("name")), _arguments(item))
        for item in input_items(request)
        if item.get("type") == "function_call"
    ]


def trailing_function_call_outputs(request: Mapping[str, Any]) -> list[JSON]:
    """The tool output items that end the request (what the model is now asked to answer).

    Walks back from the last item over tool outputs and ``developer`` messages (Codex puts hook
    context beside a tool's output) and stops at anything else; returns the outputs in order.
    """
    found: list[JSON] = []
    for item in reversed(input_items(request)):
        if item.get("type") in _TOOL_OUTPUTS:
            found.append(item)
        elif not _is_message(item, "developer"):
            break
    return found[::-1]


def function_call_outputs(request: Mapping[str, Any], *, last_only: bool = False) -> list[str]:
    """The text of each tool output item, in order (only the trailing ones if asked)."""
    items = (
        trailing_function_call_outputs(request)
        if last_only
        else [item for item in input_items(request) if item.get("type") in _TOOL_OUTPUTS]
    )
    return [_output_text(item) for item in items]


def exec_output(output: str) -> str:
    """The command's own output inside an ``exec_command`` result.

    Codex wraps it: ``Chunk ID: …\\nWall time: …\\nProcess exited with code 0\\n…\\nOutput:\\n
    <stdout>``. Returns ``<stdout>`` without its final newline, or ``output`` unchanged when it
    has no ``Output:`` line (a blocked call, for one).
    """
    head, sep, tail = output.partition("Output:\n")
    if not sep or (head and not head.endswith("\n")):
        return output
    return tail.removesuffix("\n")


def request_kind(request: Mapping[str, Any]) -> str | None:
    """``request_kind`` from Codex's turn metadata (``"turn"``, ``"compaction"``, ...)."""
    metadata = request.get("client_metadata")
    raw = metadata.get("x-codex-turn-metadata") if isinstance(metadata, dict) else None
    if not isinstance(raw, str):
        return None
    try:
        parsed = json.loads(raw)
    except ValueError:
        return None
    kind = parsed.get("request_kind") if isinstance(parsed, dict) else None
    return kind if isinstance(kind, str) else None


def is_main_request(request: Mapping[str, Any]) -> bool:
    """Whether a request is an agent turn.

    Codex labels every request: ``request_kind == "turn"`` is a turn; anything else (a
    compaction summary, which offers no tools) is a side request. Without the label, a request
    that offers tools counts as a turn.
    """
    kind = request_kind(request)
    if kind is not None:
        return kind == "turn"
    return bool(request.get("tools"))


def _tool_names(tools: Any) -> Iterator[str]:
    for tool in tools if isinstance(tools, list) else []:
        if not isinstance(tool, dict):
            continue
        if isinstance(tool.get("name"), str):
            yield tool["name"]
        if tool.get("type") == "namespace":
            yield from _tool_names(tool.get("tools"))


def offers_tool(request: Mapping[str, Any], name: str) -> bool:
    """Whether the request's ``tools`` (namespaces included) offer one named ``name``."""
    return name in set(_tool_names(request.get("tools")))


# ---------------------------------------------------------------- wire format


def _usage(request: Mapping[str, Any], reply: Reply) -> JSON:
    input_tokens = estimate_tokens(request.get("input"))
    output_tokens = estimate_tokens(reply.items)
    return {
        "input_tokens": input_tokens,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": output_tokens,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": input_tokens + output_tokens,
    }


def response_json(
    request: Mapping[str, Any],
    reply: Reply,
    *,
    response_id: str | None = None,
    created_at: int | None = None,
) -> JSON:
    """The complete (non-streamed) Responses API ``response`` object for ``reply``."""
    return {
        "id": response_id or _new_id("resp"),
        "object": "response",
        "created_at": int(time.time()) if created_at is None else created_at,
        "status": "completed",
        "error": None,
        "incomplete_details": None,
        "model": request.get("model", "mock-model"),
        "output": [dict(item) for item in reply.items],
        "parallel_tool_calls": bool(request.get("parallel_tool_calls", True)),
        "tool_choice": request.get("tool_choice", "auto"),
        "tools": [],
        "usage": _usage(request, reply),
    }


def _item_events(index: int, item: JSON) -> Iterator[JSON]:
    """The events that stream one output item: added, its deltas, done."""
    kind = item.get("type")
    where = {"item_id": item.get("id"), "output_index": index}
    if kind == "message":
        yield {
            "type": "response.output_item.added",
            "output_index": index,
            "item": {**item, "status": "in_progress", "content": []},
        }
        for part_index, part in enumerate(item.get("content") or []):
            at = {**where, "content_index": part_index}
            text = part.get("text", "")
            yield {
                "type": "response.content_part.added",
                **at,
                "part": {**part, "text": ""},
            }
            yield {"type": "response.output_text.delta", **at, "delta": text}
            yield {"type": "response.output_text.done", **at, "text": text}
            yield {"type": "response.content_part.done", **at, "part": dict(part)}
    elif kind == "function_call":
        arguments = item.get("arguments", "")
        yield {
            "type": "response.output_item.added",
            "output_index": index,
            "item": {**item, "status": "in_progress", "arguments": ""},
        }
        yield {"type": "response.function_call_arguments.delta", **where, "delta": arguments}
        yield {"type": "response.function_call_arguments.done", **where, "arguments": arguments}
    else:  # any other item is sent whole
        yield {"type": "response.output_item.added", "output_index": index, "item": item}
    yield {"type": "response.output_item.done", "output_index": index, "item": item}


def stream_events(request: Mapping[str, Any], reply: Reply) -> list[JSON]:
    """The server-sent events of a streamed Responses API answer for ``reply``.

    ``response.created`` and ``response.in_progress``, then each output item (for a message:
    ``output_item.added``, ``content_part.added``, ``output_text.delta``/``.done``,
    ``content_part.done``, ``output_item.done``; for a function call: its arguments' delta and
    done events), then ``response.completed`` carrying the whole response and its usage.
    Every event has a ``sequence_number``.
    """
    done = response_json(request, reply)
    started = {**done, "status": "in_progress", "output": [], "usage": None}
    events: list[JSON] = [
        {"type": "response.created", "response": started},
        {"type": "response.in_progress", "response": started},
    ]
    for index, item in enumerate(reply.items):
        events.extend(_item_events(index, item))
    events.append({"type": "response.completed", "response": done})
    counter = itertools.count()
    return [{**event, "sequence_number": next(counter)} for event in events]
