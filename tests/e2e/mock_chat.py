"""A scripted, streaming mock of the OpenAI Chat Completions API for OpenCode and Copilot CLI.

Both clients stream ``POST /v1/chat/completions`` (OpenCode through its bundled
openai-compatible provider, Copilot CLI in its offline bring-your-own-model mode). The
script is stateless, decided from each body alone:

* the last message is a tool result (``role: tool``) -> text ``"done: <its first 200
  characters>"`` (whitespace runs collapsed);
* the last user message contains ``tool_trigger`` and the request offers a shell tool
  (``bash``) -> one call of it with ``{"command": "cat hello.txt"}`` (plus any other
  required string argument, e.g. Copilot's ``description``);
* anything else -> ``reply_text``.

Every request body is recorded, so a test reads exactly what reached "the model". Standard
library only; listens on 127.0.0.1 only.
"""

from __future__ import annotations

import json
from typing import Any

from tests.mockserver import JSON, MockServer, RecordedCall, RecordingHandler, leaf_strings, route

SHELL_COMMAND = "cat hello.txt"
SHELL_TOOLS = ("bash", "shell")


def message_text(message: JSON) -> str:
    """Every string in one chat message's content (a string, or a list of parts)."""
    return "\n".join(leaf_strings(message.get("content")))


def all_text(body: JSON) -> str:
    """Every message's text of one request, joined."""
    return "\n".join(message_text(m) for m in body.get("messages", []) if isinstance(m, dict))


def last_user_text(body: JSON) -> str:
    """The text of the request's last user message."""
    users = [m for m in body.get("messages", []) if isinstance(m, dict) and m.get("role") == "user"]
    return message_text(users[-1]) if users else ""


def tool_results(body: JSON) -> list[str]:
    """The texts of the request's tool-result messages, in order."""
    return [message_text(m) for m in body.get("messages", []) if m.get("role") == "tool"]


def _shell_tool(body: JSON) -> tuple[str, JSON] | None:
    for tool in body.get("tools") or []:
        function = tool.get("function") or {}
        if str(function.get("name", "")).lower() in SHELL_TOOLS:
            return function["name"], function.get("parameters") or {}
    return None


def _arguments(schema: JSON) -> JSON:
    args: JSON = {"command": SHELL_COMMAND}
    properties = schema.get("properties") or {}
    for key in schema.get("required") or []:
        kind = (properties.get(key) or {}).get("type")
        if key not in args and kind == "string":
            args[key] = "Print hello.txt"
    return args


class _Handler(RecordingHandler["MockChat"]):
    server_version = "lorebook-mock-chat/1"
    redacted_headers = frozenset({"authorization", "api-key", "x-api-key", "cookie"})

    def do_POST(self) -> None:
        try:
            body = self.read_body()
            if route(self.path) != "/v1/chat/completions" or not isinstance(body, dict):
                self.record(body)
                self.send_json({"error": {"message": f"mock: no route {self.path}"}}, 404)
                return
            reply = self.mock.reply_for(body)
            self.record(body, reply)
            self._stream(body, reply) if body.get("stream") else self._whole(body, reply)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    def do_GET(self) -> None:
        self.record(None)
        model = {"id": self.mock.model, "object": "model", "created": 0, "owned_by": "mock"}
        self.send_json({"object": "list", "data": [model]})

    def _whole(self, body: JSON, reply: JSON) -> None:
        message: JSON = {"role": "assistant", "content": reply.get("text")}
        if "call" in reply:
            message["tool_calls"] = [reply["call"]]
        finish = "tool_calls" if "call" in reply else "stop"
        choice = {"index": 0, "message": message, "finish_reason": finish}
        self.send_json({"id": "chatcmpl-mock", "object": "chat.completion", "created": 0,
                        "model": body.get("model"), "choices": [choice], "usage": _USAGE})  # fmt: skip

    def _stream(self, body: JSON, reply: JSON) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        for chunk in _chunks(body.get("model"), reply):
            data = chunk if isinstance(chunk, str) else json.dumps(chunk)
            self.wfile.write(f"data: {data}\n\n".encode())
            self.wfile.flush()
        self.close_connection = True


_USAGE = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}


def _chunks(model: Any, reply: JSON) -> list[JSON | str]:
    def chunk(delta: JSON, finish: str | None = None) -> JSON:
        choice = {"index": 0, "delta": delta, "finish_reason": finish}
        return {"id": "chatcmpl-mock", "object": "chat.completion.chunk", "created": 0,
                "model": model, "choices": [choice]}  # fmt: skip

    out: list[JSON | str] = [chunk({"role": "assistant", "content": ""})]
    if "call" in reply:
        call = reply["call"]
        head = {"index": 0, "id": call["id"], "type": "function",
                "function": {"name": call["function"]["name"], "arguments": ""}}  # fmt: skip
        out.append(chunk({"tool_calls": [head]}))
        args = {"index": 0, "function": {"arguments": call["function"]["arguments"]}}
        out += [chunk({"tool_calls": [args]}), chunk({}, "tool_calls")]
    else:
        out += [chunk({"content": reply["text"]}), chunk({}, "stop")]
    tail = {"id": "chatcmpl-mock", "object": "chat.completion.chunk", "created": 0,
            "model": model, "choices": [], "usage": _USAGE}  # fmt: skip
    return [*out, tail, "[DONE]"]


class MockChat(MockServer[RecordedCall[JSON]]):
    """A Chat Completions mock on 127.0.0.1 (random port), used as a context manager.

    ``url`` is the root URL (clients take ``<url>/v1``); ``requests`` are the bodies of
    every chat request in arrival order.
    """

    handler = _Handler

    def __init__(
        self, *, reply_text: str = "ok", tool_trigger: str = "PROBE_TOOL", model: str = "mock-model"
    ) -> None:
        super().__init__()
        self.reply_text = reply_text
        self.tool_trigger = tool_trigger
        self.model = model
        self._calls_made = 0

    @property
    def requests(self) -> list[JSON]:
        """The JSON bodies of every chat request, in arrival order."""
        return [c.body for c in self.calls if c.reply is not None]

    def reply_for(self, body: JSON) -> JSON:
        """The scripted reply: ``{"text": ...}`` or ``{"call": <a tool_calls entry>}``."""
        messages = body.get("messages") or []
        if messages and messages[-1].get("role") == "tool":
            echoed = " ".join(message_text(messages[-1]).split())[:200]
            return {"text": f"done: {echoed}"}
        tool = _shell_tool(body)
        if self.tool_trigger and self.tool_trigger in last_user_text(body) and tool:
            with self._lock:
                self._calls_made += 1
                number = self._calls_made
            name, schema = tool
            function = {"name": name, "arguments": json.dumps(_arguments(schema))}
            return {"call": {"id": f"call_mock{number:04d}", "type": "function",
                             "function": function}}  # fmt: skip
        return {"text": self.reply_text}
