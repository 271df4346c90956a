"""The Anthropic Messages API's shapes, as the e2e mock needs them.

Reading a recorded request (its text, its last user message, its tool results) and writing a
reply (a whole message, or the server-sent events of a streamed one).
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from tests.mockserver import JSON, estimate_tokens, leaf_strings

__all__ = [
    "JSON",
    "Reply",
    "all_text",
    "estimate_tokens",
    "is_main_request",
    "last_user_text",
    "message_json",
    "offers_tool",
    "stream_events",
    "tool_result_texts",
]


# ---------------------------------------------------------------- replies


@dataclass(frozen=True)
class Reply:
    """One scripted assistant message: a tuple of Messages API content blocks."""

    blocks: tuple[JSON, ...]

    @classmethod
    def say(cls, text: str) -> Reply:
        """A reply holding one text block."""
        return cls(({"type": "text", "text": text},))

    @classmethod
    def call_tool(cls, name: str, tool_input: Mapping[str, Any]) -> Reply:
        """A reply holding one ``tool_use`` block with a fresh id."""
        block = {
            "type": "tool_use",
            "id": "toolu_" + uuid.uuid4().hex[:24],
            "name": name,
            "input": dict(tool_input),
        }
        return cls((block,))

    @property
    def stop_reason(self) -> str:
        """``tool_use`` when the reply calls a tool, else ``end_turn``."""
        return "tool_use" if any(b.get("type") == "tool_use" for b in self.blocks) else "end_turn"


# ---------------------------------------------------------------- request helpers


def _strings(node: Any) -> Iterator[str]:
    """Yield every text string of a content node (str, block, list of blocks)."""
    if isinstance(node, str):
        yield node
    elif isinstance(node, list):
        for item in node:
            yield from _strings(item)
    elif isinstance(node, dict):
        if node.get("type") == "tool_use":
            yield from leaf_strings(node.get("input"))
        for key in ("text", "content"):
            if key in node:
                yield from _strings(node[key])


def all_text(request: Mapping[str, Any]) -> str:
    """Every text string of a request's ``system`` and ``messages``, joined by newlines.

    Includes text blocks, ``tool_result`` contents and the string values of ``tool_use`` inputs;
    not the ``tools`` list.
    """
    parts = list(_strings(request.get("system")))
    for message in request.get("messages") or []:
        parts.extend(_strings(message.get("content") if isinstance(message, dict) else message))
    return "\n".join(parts)


def _last_message(request: Mapping[str, Any]) -> JSON:
    messages = request.get("messages") or []
    last = messages[-1] if messages else {}
    return last if isinstance(last, dict) else {}


def _blocks(message: Mapping[str, Any]) -> list[Any]:
    content = message.get("content")
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return content if isinstance(content, list) else []


def last_user_text(request: Mapping[str, Any]) -> str:
    """The text blocks of the request's last user message (no tool results), joined."""
    for message in reversed(request.get("messages") or []):
        if isinstance(message, dict) and message.get("role") == "user":
            texts = [
                b["text"]
                for b in _blocks(message)
                if isinstance(b, dict)
                and b.get("type") == "text"
                and isinstance(b.get("text"), str)
            ]
            return "\n".join(texts)
    return ""


def tool_result_texts(request: Mapping[str, Any], *, last_only: bool = False) -> list[str]:
    """The text of each ``tool_result`` block, in order (only the last message's if asked)."""
    messages = [_last_message(request)] if last_only else request.get("messages") or []
    return [
        "\n".join(_strings(block.get("content")))
        for message in messages
        if isinstance(message, dict)
        for block in _blocks(message)
        if isinstance(block, dict) and block.get("type") == "tool_result"
    ]


def is_main_request(request: Mapping[str, Any]) -> bool:
    """Whether a request is an agent turn: it offers tools (side requests offer none)."""
    return bool(request.get("tools"))


def offers_tool(request: Mapping[str, Any], name: str) -> bool:
    """Whether the request's ``tools`` include one named ``name``."""
    return any(isinstance(t, dict) and t.get("name") == name for t in request.get("tools") or [])


# ---------------------------------------------------------------- wire format


def _usage(request: JSON, output_tokens: int) -> JSON:
    return {
        "input_tokens": estimate_tokens(request.get("messages")),
        "output_tokens": output_tokens,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
    }


def _output_tokens(reply: Reply) -> int:
    return max(1, len(json.dumps(reply.blocks)) // 4)


def message_json(request: JSON, reply: Reply) -> JSON:
    """The non-streaming Messages API response for ``reply``."""
    return {
        "id": "msg_" + uuid.uuid4().hex[:24],
        "type": "message",
        "role": "assistant",
        "model": request.get("model", "claude-mock"),
        "content": [dict(b) for b in reply.blocks],
        "stop_reason": reply.stop_reason,
        "stop_sequence": None,
        "usage": _usage(request, _output_tokens(reply)),
    }


def _block_events(index: int, block: JSON) -> list[JSON]:
    if block.get("type") == "tool_use":
        start = {**block, "input": {}}
        delta = {"type": "input_json_delta", "partial_json": json.dumps(block.get("input", {}))}
    elif block.get("type") == "text":
        start = {"type": "text", "text": ""}
        delta = {"type": "text_delta", "text": block.get("text", "")}
    else:  # any other block is sent whole
        return [
            {"type": "content_block_start", "index": index, "content_block": block},
            {"type": "content_block_stop", "index": index},
        ]
    return [
        {"type": "content_block_start", "index": index, "content_block": start},
        {"type": "content_block_delta", "index": index, "delta": delta},
        {"type": "content_block_stop", "index": index},
    ]


def stream_events(request: JSON, reply: Reply) -> list[JSON]:
    """The server-sent events of a streamed Messages API response for ``reply``."""
    message = message_json(request, reply)
    start = {**message, "content": [], "stop_reason": None, "usage": _usage(request, 1)}
    events: list[JSON] = [{"type": "message_start", "message": start}, {"type": "ping"}]
    for index, block in enumerate(reply.blocks):
        events.extend(_block_events(index, block))
    events.append(
        {
            "type": "message_delta",
            "delta": {"stop_reason": reply.stop_reason, "stop_sequence": None},
            "usage": {"output_tokens": message["usage"]["output_tokens"]},
        }
    )
    events.append({"type": "message_stop"})
    return events
