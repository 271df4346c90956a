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

import contextlib
import json
import socket
import threading
import zlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, cast

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
_REDACTED_HEADERS = frozenset(
    {"authorization", "api-key", "x-api-key", "proxy-authorization", "cookie"}
)

Responder = Callable[[JSON], Reply | None]


@dataclass(frozen=True)
class RecordedCall:
    """One HTTP request the mock received (any method and path), with the reply it chose."""

    method: str
    path: str
    headers: dict[str, str]
    body: Any
    reply: Reply | None = field(default=None)


# ---------------------------------------------------------------- the server


class MockResponses:
    """A Responses API mock on 127.0.0.1 (random port), used as a context manager.

    Args:
        reply_text: the text answered when no other rule applies.
        tool_trigger: a last user message containing this text gets a function call.
        tool_name: the function to call; it must be among the request's ``tools``.
        tool_arguments: the function call's arguments (sent as a JSON string).
        result_chars: how many characters of a tool output the ``done:`` answer echoes.
        responder: asked first for every ``/v1/responses`` request; ``None`` means "use the
            script".
    """

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
        self.reply_text = reply_text
        self.tool_trigger = tool_trigger
        self.tool_name = tool_name
        self.tool_arguments: Mapping[str, Any] = dict(
            DEFAULT_TOOL_ARGUMENTS if tool_arguments is None else tool_arguments
        )
        self.result_chars = result_chars
        self.responder = responder
        self._lock = threading.Lock()
        self._calls: list[RecordedCall] = []
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle

    def start(self) -> MockResponses:
        """Bind 127.0.0.1 on a free port and serve in a background thread."""
        if self._server is not None:
            raise RuntimeError("MockResponses is already running")
        server = _Server(("127.0.0.1", 0), _Handler)
        server.mock = self
        self._server = server
        self._thread = threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving, cut open connections and wait for every handler thread."""
        server, thread = self._server, self._thread
        if server is None:
            return
        server.shutdown()
        server.close_connections()
        server.server_close()  # joins the handler threads
        if thread is not None:
            thread.join(timeout=5)
        self._server = self._thread = None

    def __enter__(self) -> MockResponses:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    # -- what was received

    @property
    def url(self) -> str:
        """The server's root URL, no trailing slash (a provider's ``base_url`` adds ``/v1``)."""
        if self._server is None:
            raise RuntimeError("MockResponses is not running")
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    @property
    def calls(self) -> list[RecordedCall]:
        """Every HTTP request received so far, in arrival order (a copy)."""
        with self._lock:
            return list(self._calls)

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

    def other_calls(self) -> list[RecordedCall]:
        """The requests to any route but ``POST /v1/responses`` (model lists, ...)."""
        return [c for c in self.calls if c.reply is None]

    def clear(self) -> None:
        """Forget what was recorded (between two runs of the client in one test)."""
        with self._lock:
            self._calls.clear()

    def _record(self, call: RecordedCall) -> None:
        with self._lock:
            self._calls.append(call)

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


def _route(path: str) -> str:
    return path.split("?", 1)[0].rstrip("/")


class _Server(ThreadingHTTPServer):
    """Threaded server that can cut its keep-alive connections on stop."""

    daemon_threads = False
    block_on_close = True
    mock: MockResponses

    def __init__(self, address: tuple[str, int], handler: type[BaseHTTPRequestHandler]) -> None:
        super().__init__(address, handler)
        self._open: set[socket.socket] = set()
        self._open_lock = threading.Lock()

    def track(self, conn: socket.socket, *, open_: bool) -> None:
        with self._open_lock:
            if open_:
                self._open.add(conn)
            else:
                self._open.discard(conn)

    def close_connections(self) -> None:
        with self._open_lock:
            conns = list(self._open)
        for conn in conns:
            with contextlib.suppress(OSError):
                conn.shutdown(socket.SHUT_RDWR)

    def handle_error(self, request: Any, client_address: Any) -> None:
        # The client hanging up mid-stream is normal (it exits); stay quiet about it.
        pass


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "lorebook-mock-responses/1"
    timeout = 60  # an idle keep-alive connection ends by itself

    @property
    def mock(self) -> MockResponses:
        return cast(_Server, self.server).mock

    def setup(self) -> None:
        super().setup()
        cast(_Server, self.server).track(self.connection, open_=True)

    def finish(self) -> None:
        cast(_Server, self.server).track(self.connection, open_=False)
        with contextlib.suppress(OSError):
            super().finish()

    def log_message(self, format: str, *args: Any) -> None:
        pass  # requests are recorded, not printed

    # -- reading

    def _read_raw(self) -> bytes:
        if "chunked" in (self.headers.get("Transfer-Encoding") or "").lower():
            chunks = []
            while True:
                size = int(self.rfile.readline().split(b";", 1)[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    break
                chunks.append(self.rfile.read(size))
                self.rfile.readline()
            return b"".join(chunks)
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def _read_body(self) -> Any:
        raw = self._read_raw()
        encoding = (self.headers.get("Content-Encoding") or "identity").lower()
        if raw and encoding in ("gzip", "deflate"):
            raw = zlib.decompress(raw, 47)  # 47: auto-detect gzip or zlib header
        elif raw and encoding != "identity":  # zstd: not in the 3.11 standard library
            return {"_undecoded": encoding, "_bytes": len(raw)}
        if not raw:
            return None
        try:
            return json.loads(raw)
        except ValueError:
            return {"_raw": raw.decode("utf-8", "replace")}

    def _record(self, body: Any, reply: Reply | None = None) -> None:
        headers = {
            k: ("<redacted>" if k.lower() in _REDACTED_HEADERS else v)
            for k, v in self.headers.items()
        }
        self.mock._record(RecordedCall(self.command, self.path, headers, body, reply))

    # -- writing

    def _send_json(self, obj: Any, status: int = 200) -> None:
        data = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()

    def _send_events(self, events: list[JSON]) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")  # the stream ends when the connection does
        self.end_headers()
        for event in events:
            self.wfile.write(f"event: {event['type']}\ndata: {json.dumps(event)}\n\n".encode())
            self.wfile.flush()
        self.close_connection = True

    def _send_error(self, status: int, message: str, kind: str = "invalid_request_error") -> None:
        error = {"message": f"mock: {message}", "type": kind, "param": None, "code": None}
        self._send_json({"error": error}, status=status)

    # -- routes

    def do_POST(self) -> None:
        try:
            body = self._read_body()
            route = _route(self.path)
            if route == "/v1/responses" and isinstance(body, dict):
                reply = self.mock.reply_for(body)
                self._record(body, reply)
                if body.get("stream"):
                    self._send_events(stream_events(body, reply))
                else:
                    self._send_json(response_json(body, reply))
            elif route == "/v1/responses":
                self._record(body)
                self._send_error(400, "body is not a JSON object")
            else:
                self._record(body)
                self._send_error(404, f"no route for POST {self.path}", "not_found_error")
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    def do_GET(self) -> None:
        self._record(None)
        try:
            if _route(self.path) == "/v1/models":
                model = {"id": MOCK_MODEL, "object": "model", "created": 0, "owned_by": "mock"}
                self._send_json({"object": "list", "data": [model]})
            else:
                self._send_error(404, f"no route for GET {self.path}", "not_found_error")
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    def do_HEAD(self) -> None:
        self._record(None)
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()
