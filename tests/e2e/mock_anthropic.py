"""A scripted mock of the Anthropic Messages API that runs inside the test process.

Point a real client at it with ``ANTHROPIC_BASE_URL=<mock.url>``; afterwards the recorded request
bodies show exactly what reached "the model". Standard library only; listens on 127.0.0.1 only.

The default script is stateless, decided from each request alone:

* the last message carries a ``tool_result`` -> text ``"done: <first 200 chars of its text>"``
  (whitespace runs collapsed to one space);
* the last user message's text contains ``tool_trigger`` and the request offers a tool named
  ``tool_name`` -> one ``tool_use`` block calling ``tool_name`` with ``tool_input``;
* anything else -> text ``reply_text`` (``"ok"``).

An empty ``tool_trigger`` turns the tool rule off.

The Messages API shapes (replies, reading requests, the streamed events) live in
``messages_api``; the helpers tests need are re-exported here. The tool rule needs the tool in the request's ``tools``, so side requests (which offer no tools)
never get a tool call. A ``responder`` callable may answer any request first; it returns ``None``
to fall back to the script. All of these are plain attributes: a test may change them between
runs of the client.

Example::

    with MockAnthropic(tool_trigger="RUN_TOOL", tool_input={"command": "ls"}) as mock:
        env["ANTHROPIC_BASE_URL"] = mock.url
        ...  # run the client
        assert "RUN_TOOL" in last_user_text(mock.main_requests()[0])
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from tests.e2e.messages_api import (
    JSON,
    Reply,
    all_text,
    estimate_tokens,
    is_main_request,
    last_user_text,
    message_json,
    offers_tool,
    stream_events,
    tool_result_texts,
)
from tests.mockserver import MockServer, RecordedCall, RecordingHandler, route

__all__ = [
    "DEFAULT_TOOL_INPUT",
    "DEFAULT_TOOL_TRIGGER",
    "MockAnthropic",
    "RecordedCall",
    "Reply",
    "Responder",
    "all_text",
    "is_main_request",
    "last_user_text",
    "tool_result_texts",
]

DEFAULT_TOOL_TRIGGER = "PROBE_TOOL"
DEFAULT_TOOL_INPUT: Mapping[str, Any] = {"command": "cat hello.txt"}

Responder = Callable[[JSON], Reply | None]


# ---------------------------------------------------------------- the server


class _Handler(RecordingHandler["MockAnthropic"]):
    server_version = "lorebook-mock-anthropic/1"
    redacted_headers = frozenset({"x-api-key", "authorization", "proxy-authorization", "cookie"})

    def _not_found(self) -> None:
        error = {"type": "not_found_error", "message": f"mock: no route for {self.path}"}
        self.send_json({"type": "error", "error": error}, status=404)

    def do_POST(self) -> None:
        try:
            body = self.read_body()
            path = route(self.path)
            if path == "/v1/messages" and isinstance(body, dict):
                reply = self.mock.reply_for(body)
                self.record(body, reply)
                if body.get("stream"):
                    self.send_events(stream_events(body, reply))
                else:
                    self.send_json(message_json(body, reply))
            elif path == "/v1/messages":
                self.record(body)
                error = {"type": "invalid_request_error", "message": "mock: body is not JSON"}
                self.send_json({"type": "error", "error": error}, status=400)
            elif path == "/v1/messages/count_tokens":
                self.record(body)
                self.send_json({"input_tokens": estimate_tokens(body)})
            else:
                self.record(body)
                self._not_found()
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    def do_GET(self) -> None:
        self.record(None)
        if route(self.path) == "/v1/models":
            model = {"type": "model", "id": "claude-sonnet-4-5", "display_name": "Mock"}
            self.send_json({"data": [model], "has_more": False})
        else:
            self._not_found()


class MockAnthropic(MockServer[RecordedCall[Reply]]):
    """A Messages API mock on 127.0.0.1 (random port), used as a context manager.

    ``url`` is the base URL for ``ANTHROPIC_BASE_URL`` (no trailing slash); ``calls`` holds
    every HTTP request received (any method and path) and ``clear`` forgets them.

    Args:
        reply_text: the text answered when no other rule applies.
        tool_trigger: a last user message containing this text gets a tool call.
        tool_name: the tool to call; it must be among the request's ``tools``.
        tool_input: the tool call's input.
        result_chars: how many characters of a tool result the ``done:`` answer echoes.
        responder: asked first for every ``/v1/messages`` request; ``None`` means "use the
            script".
    """

    handler = _Handler

    def __init__(
        self,
        *,
        reply_text: str = "ok",
        tool_trigger: str = DEFAULT_TOOL_TRIGGER,
        tool_name: str = "Bash",
        tool_input: Mapping[str, Any] | None = None,
        result_chars: int = 200,
        responder: Responder | None = None,
    ) -> None:
        super().__init__()
        self.reply_text = reply_text
        self.tool_trigger = tool_trigger
        self.tool_name = tool_name
        self.tool_input: Mapping[str, Any] = dict(
            DEFAULT_TOOL_INPUT if tool_input is None else tool_input
        )
        self.result_chars = result_chars
        self.responder = responder

    # -- what was received

    @property
    def requests(self) -> list[JSON]:
        """The parsed JSON bodies of every ``POST /v1/messages``, in arrival order (a copy)."""
        return [c.body for c in self.calls if c.reply is not None]

    def main_requests(self) -> list[JSON]:
        """The ``/v1/messages`` bodies that offer tools: agent turns (and subagents' turns).

        Claude Code 2.1.197 also sends the ``/compact`` summary request with its full tool list,
        so that one counts as a main request too.
        """
        return [r for r in self.requests if is_main_request(r)]

    def side_requests(self) -> list[JSON]:
        """The ``/v1/messages`` bodies that offer no tools (titles, quota checks, ...)."""
        return [r for r in self.requests if not is_main_request(r)]

    # -- the script

    def reply_for(self, request: JSON) -> Reply:
        """The reply the mock gives to one ``/v1/messages`` body."""
        if self.responder is not None:
            custom = self.responder(request)
            if custom is not None:
                return custom
        results = tool_result_texts(request, last_only=True)
        if results:
            echoed = " ".join(results[-1].split())[: self.result_chars]
            return Reply.say(f"done: {echoed}")
        if (
            self.tool_trigger
            and self.tool_trigger in last_user_text(request)
            and offers_tool(request, self.tool_name)
        ):
            return Reply.call_tool(self.tool_name, self.tool_input)
        return Reply.say(self.reply_text)
