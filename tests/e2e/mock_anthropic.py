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
_REDACTED_HEADERS = frozenset({"x-api-key", "authorization", "proxy-authorization", "cookie"})

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


class MockAnthropic:
    """A Messages API mock on 127.0.0.1 (random port), used as a context manager.

    Args:
        reply_text: the text answered when no other rule applies.
        tool_trigger: a last user message containing this text gets a tool call.
        tool_name: the tool to call; it must be among the request's ``tools``.
        tool_input: the tool call's input.
        result_chars: how many characters of a tool result the ``done:`` answer echoes.
        responder: asked first for every ``/v1/messages`` request; ``None`` means "use the
            script".
    """

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
        self.reply_text = reply_text
        self.tool_trigger = tool_trigger
        self.tool_name = tool_name
        self.tool_input: Mapping[str, Any] = dict(
            DEFAULT_TOOL_INPUT if tool_input is None else tool_input
        )
        self.result_chars = result_chars
        self.responder = responder
        self._lock = threading.Lock()
        self._calls: list[RecordedCall] = []
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle

    def start(self) -> MockAnthropic:
        """Bind 127.0.0.1 on a free port and serve in a background thread."""
        if self._server is not None:
            raise RuntimeError("MockAnthropic is already running")
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

    def __enter__(self) -> MockAnthropic:
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
        """Base URL for ``ANTHROPIC_BASE_URL`` (no trailing slash)."""
        if self._server is None:
            raise RuntimeError("MockAnthropic is not running")
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    @property
    def calls(self) -> list[RecordedCall]:
        """Every HTTP request received so far, in arrival order (a copy)."""
        with self._lock:
            return list(self._calls)

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

    def clear(self) -> None:
        """Forget what was recorded (between two runs of the client in one test)."""
        with self._lock:
            self._calls.clear()

    def _record(self, call: RecordedCall) -> None:
        with self._lock:
            self._calls.append(call)

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


def _route(path: str) -> str:
    return path.split("?", 1)[0].rstrip("/")


class _Server(ThreadingHTTPServer):
    """Threaded server that can cut its keep-alive connections on stop."""

    daemon_threads = False
    block_on_close = True
    mock: MockAnthropic

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
    server_version = "lorebook-mock-anthropic/1"
    timeout = 60  # an idle keep-alive connection ends by itself

    @property
    def mock(self) -> MockAnthropic:
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
        elif raw and encoding != "identity":
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

    def _not_found(self) -> None:
        error = {"type": "not_found_error", "message": f"mock: no route for {self.path}"}
        self._send_json({"type": "error", "error": error}, status=404)

    # -- routes

    def do_POST(self) -> None:
        try:
            body = self._read_body()
            route = _route(self.path)
            if route == "/v1/messages" and isinstance(body, dict):
                reply = self.mock.reply_for(body)
                self._record(body, reply)
                if body.get("stream"):
                    self._send_events(stream_events(body, reply))
                else:
                    self._send_json(message_json(body, reply))
            elif route == "/v1/messages":
                self._record(body)
                error = {"type": "invalid_request_error", "message": "mock: body is not JSON"}
                self._send_json({"type": "error", "error": error}, status=400)
            elif route == "/v1/messages/count_tokens":
                self._record(body)
                self._send_json({"input_tokens": estimate_tokens(body)})
            else:
                self._record(body)
                self._not_found()
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    def do_GET(self) -> None:
        self._record(None)
        if _route(self.path) == "/v1/models":
            model = {"type": "model", "id": "claude-sonnet-4-5", "display_name": "Mock"}
            self._send_json({"data": [model], "has_more": False})
        else:
            self._not_found()

    def do_HEAD(self) -> None:
        self._record(None)
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()
