"""A scripted mock of the OpenAI Responses API that runs inside the test process.

Point Codex CLI at it with a custom model provider (``base_url = <mock.url>/v1``,
``wire_api = "responses"``); afterwards the recorded request bodies show exactly what reached
"the model". Standard library only; listens on 127.0.0.1 only.

The default script is stateless, decided from each ``POST /v1/responses`` body alone:

* the request ends with a tool output (``function_call_output``; ``developer`` messages after
  it, such as hook context, are skipped) -> text ``"done: <first 200 chars of its text>"``
  (whitespace runs collapsed to one space);
* the last user message's text contains ``tool_trigger`` and the request offers a tool named
  ``tool_name`` -> one ``function_call`` of ``tool_name`` with ``tool_arguments``
  (``exec_command`` with ``{"cmd": "cat hello.txt"}``: Codex 0.171's shell tool);
* anything else -> text ``reply_text`` (``"ok"``).

An empty ``tool_trigger`` turns the tool rule off. A ``responder`` callable may answer any
request first; it returns ``None`` to fall back to the script. All of these are plain
attributes: a test may change them between runs of the client.

Streamed requests (``"stream": true``, which Codex always sends) get server-sent events; others
get the response object as JSON. ``GET /v1/models`` lists one model; any other route is
recorded and answered 404 with an OpenAI-style error.

Example::

    with MockResponses(tool_trigger="RUN_TOOL", tool_arguments={"cmd": "ls"}) as mock:
        config = f'base_url = "{mock.url}/v1"'
        ...  # run codex
        assert "RUN_TOOL" in last_user_text(mock.main_requests()[0])
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from tests.e2e.responses_api import (
    JSON,
    Reply,
    all_text,
    developer_texts,
    exec_output,
    function_call_outputs,
    function_calls,
    is_main_request,
    last_user_text,
    offers_tool,
    request_kind,
    response_json,
    stream_events,
)
from tests.mockserver import MockServer, RecordedCall, RecordingHandler, route

__all__ = [
    "DEFAULT_TOOL_ARGUMENTS",
    "DEFAULT_TOOL_NAME",
    "DEFAULT_TOOL_TRIGGER",
    "MOCK_MODEL",
    "MockResponses",
    "RecordedCall",
    "Reply",
    "Responder",
    "all_text",
    "developer_texts",
    "exec_output",
    "function_call_outputs",
    "function_calls",
    "is_main_request",
    "last_user_text",
    "request_kind",
]

DEFAULT_TOOL_TRIGGER = "PROBE_TOOL"
DEFAULT_TOOL_NAME = "exec_command"
DEFAULT_TOOL_ARGUMENTS: Mapping[str, Any] = {"cmd": "cat hello.txt"}
MOCK_MODEL = "mock-model"

Responder = Callable[[JSON], Reply | None]


# ---------------------------------------------------------------- the server


class _Handler(RecordingHandler["MockResponses"]):
    server_version = "lorebook-mock-responses/1"
    redacted_headers = frozenset(
        {"authorization", "api-key", "x-api-key", "proxy-authorization", "cookie"}
    )

    def _send_error(self, status: int, message: str, kind: str = "invalid_request_error") -> None:
        error = {"message": f"mock: {message}", "type": kind, "param": None, "code": None}
        self.send_json({"error": error}, status=status)

    def do_POST(self) -> None:
        try:
            body = self.read_body()
            path = route(self.path)
            if path == "/v1/responses" and isinstance(body, dict):
                reply = self.mock.reply_for(body)
                self.record(body, reply)
                if body.get("stream"):
                    self.send_events(stream_events(body, reply))
                else:
                    self.send_json(response_json(body, reply))
            elif path == "/v1/responses":
                self.record(body)
                self._send_error(400, "body is not a JSON object")
            else:
                self.record(body)
                self._send_error(404, f"no route for POST {self.path}", "not_found_error")
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    def do_GET(self) -> None:
        self.record(None)
        try:
            if route(self.path) == "/v1/models":
                model = {"id": MOCK_MODEL, "object": "model", "created": 0, "owned_by": "mock"}
                self.send_json({"object": "list", "data": [model]})
            else:
                self._send_error(404, f"no route for GET {self.path}", "not_found_error")
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True


class MockResponses(MockServer[RecordedCall[Reply]]):
    """A Responses API mock on 127.0.0.1 (random port), used as a context manager.

    ``url`` is the server's root URL, no trailing slash (a provider's ``base_url`` adds
    ``/v1``); ``calls`` holds every HTTP request received (any method and path) and ``clear``
    forgets them.

    Args:
        reply_text: the text answered when no other rule applies.
        tool_trigger: a last user message containing this text gets a function call.
        tool_name: the function to call; it must be among the request's ``tools``.
        tool_arguments: the function call's arguments (sent as a JSON string).
        result_chars: how many characters of a tool output the ``done:`` answer echoes.
        responder: asked first for every ``/v1/responses`` request; ``None`` means "use the
            script".
    """

    handler = _Handler

    def __init__(
        self,
        *,
        reply_text: str = "ok",
        tool_trigger: str = DEFAULT_TOOL_TRIGGER,
        tool_name: str = DEFAULT_TOOL_NAME,
        tool_arguments: Mapping[str, Any] | None = None,
        result_chars: int = 200,
        responder: Responder | None = None,
    ) -> None:
        super().__init__()
        self.reply_text = reply_text
        self.tool_trigger = tool_trigger
        self.tool_name = tool_name
        self.tool_arguments: Mapping[str, Any] = dict(
            DEFAULT_TOOL_ARGUMENTS if tool_arguments is None else tool_arguments
        )
        self.result_chars = result_chars
        self.responder = responder

    # -- what was received

    @property
    def requests(self) -> list[JSON]:
        """The parsed JSON bodies of every ``POST /v1/responses``, in arrival order (a copy)."""
        return [c.body for c in self.calls if c.reply is not None]

    def main_requests(self) -> list[JSON]:
        """The ``/v1/responses`` bodies that are agent turns (``request_kind`` ``"turn"``)."""
        return [r for r in self.requests if is_main_request(r)]

    def side_requests(self) -> list[JSON]:
        """The other ``/v1/responses`` bodies (compaction summaries, ...)."""
        return [r for r in self.requests if not is_main_request(r)]

    def other_calls(self) -> list[RecordedCall[Reply]]:
        """The requests to any route but ``POST /v1/responses`` (model lists, ...)."""
        return [c for c in self.calls if c.reply is None]

    # -- the script

    def reply_for(self, request: JSON) -> Reply:
        """The reply the mock gives to one ``/v1/responses`` body."""
        if self.responder is not None:
            custom = self.responder(request)
            if custom is not None:
                return custom
        outputs = function_call_outputs(request, last_only=True)
        if outputs:
            echoed = " ".join(outputs[-1].split())[: self.result_chars]
            return Reply.say(f"done: {echoed}")
        if (
            self.tool_trigger
            and self.tool_trigger in last_user_text(request)
            and offers_tool(request, self.tool_name)
        ):
            return Reply.call_function(self.tool_name, self.tool_arguments)
        return Reply.say(self.reply_text)
