"""The plumbing the in-process HTTP mocks share (``tests.core.mock_openai``, ``tests.e2e.mock_*``).

A mock is a :class:`MockServer` subclass naming its request handler (a :class:`MockHandler`
subclass). It serves on 127.0.0.1 (a free port) from a background thread, records what it
receives under a lock and is used as a context manager. Standard library only.

``stop`` shuts the server down and, unless the mock's handler threads are daemon threads, cuts
the keep-alive connections still open and joins every handler thread, so nothing outlives it.

Also here: the small helpers the API shape modules (``messages_api``, ``responses_api``) share.
"""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, ClassVar, Generic, Self, TypeVar, cast

__all__ = [
    "JSON",
    "MockHTTPServer",
    "MockHandler",
    "MockServer",
    "RecordedCall",
    "RecordingHandler",
    "estimate_tokens",
    "leaf_strings",
    "route",
]

JSON = dict[str, Any]

C = TypeVar("C")  # what a mock records per request
M = TypeVar("M")  # the mock a handler serves
R = TypeVar("R")  # a scripted reply


@dataclass(frozen=True)
class RecordedCall(Generic[R]):
    """One HTTP request the mock received (any method and path), with the reply it chose."""

    method: str
    path: str
    headers: dict[str, str]
    body: Any
    reply: R | None = field(default=None)


def route(path: str) -> str:
    """A request path without its query string and trailing slash."""
    return path.split("?", 1)[0].rstrip("/")


# ---------------------------------------------------------------- the server


class MockHTTPServer(ThreadingHTTPServer):
    """Threaded server that can cut its keep-alive connections on stop."""

    daemon_threads = False
    block_on_close = True
    mock: Any

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


class MockServer(Generic[C]):
    """A mock's lifecycle and its record of calls; subclasses set ``handler``.

    ``daemon_threads``: serve each connection from a daemon thread that ``stop`` neither cuts
    nor waits for (instead of cutting open connections and joining every handler thread).
    """

    handler: ClassVar[type[BaseHTTPRequestHandler]]
    daemon_threads: ClassVar[bool] = False

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._calls: list[C] = []
        self._server: MockHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._root_url: str | None = None

    def start(self) -> Self:
        """Bind 127.0.0.1 on a free port and serve in a background thread."""
        if self._server is not None:
            raise RuntimeError(f"{type(self).__name__} is already running")
        server = MockHTTPServer(("127.0.0.1", 0), self.handler)
        server.daemon_threads = self.daemon_threads
        server.mock = self
        self._server = server
        self._thread = threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        host, port = server.server_address[:2]
        self._root_url = f"http://{host!s}:{port}"
        return self

    def stop(self) -> None:
        """Stop serving, cut open connections and wait for every handler thread."""
        server, thread = self._server, self._thread
        if server is None:
            return
        server.shutdown()
        if not server.daemon_threads:
            server.close_connections()
        server.server_close()  # joins the (non-daemon) handler threads
        if thread is not None:
            thread.join(timeout=5)
        self._server = self._thread = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    @property
    def url(self) -> str:
        """The server's root URL, no trailing slash."""
        if self._server is None or self._root_url is None:
            raise RuntimeError(f"{type(self).__name__} is not running")
        return self._root_url

    @property
    def calls(self) -> list[C]:
        """Every HTTP request received so far, in arrival order (a copy)."""
        with self._lock:
            return list(self._calls)

    def clear(self) -> None:
        """Forget what was recorded (between two runs of the client in one test)."""
        with self._lock:
            self._calls.clear()

    def _record(self, call: C) -> None:
        with self._lock:
            self._calls.append(call)


# ---------------------------------------------------------------- the handler


class MockHandler(BaseHTTPRequestHandler, Generic[M]):
    """Request handler plumbing: connection tracking, reading bodies, writing JSON and SSE.

    ``redacted_headers`` (lower-case names) are recorded as ``<redacted>``.
    """

    protocol_version = "HTTP/1.1"
    redacted_headers: ClassVar[frozenset[str]] = frozenset()

    @property
    def mock(self) -> M:
        return cast(M, cast(MockHTTPServer, self.server).mock)

    def setup(self) -> None:
        super().setup()
        cast(MockHTTPServer, self.server).track(self.connection, open_=True)

    def finish(self) -> None:
        cast(MockHTTPServer, self.server).track(self.connection, open_=False)
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

    def read_body(self) -> Any:
        """The request body parsed as JSON (``None`` when empty).

        Chunked and gzip/deflate bodies are decoded; another encoding (zstd: not in the 3.11
        standard library) gives ``{"_undecoded": ..., "_bytes": ...}`` and a body that is not
        JSON gives ``{"_raw": text}``.
        """
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

    def recorded_headers(self) -> dict[str, str]:
        """The request's headers, the ``redacted_headers`` hidden."""
        return {
            k: ("<redacted>" if k.lower() in self.redacted_headers else v)
            for k, v in self.headers.items()
        }

    # -- writing

    def send_bytes(self, data: bytes, status: int = 200) -> None:
        """Answer ``status`` with a JSON body that is already encoded."""
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()

    def send_json(self, obj: Any, status: int = 200) -> None:
        """Answer ``status`` with ``obj`` as JSON."""
        self.send_bytes(json.dumps(obj).encode(), status)

    def send_events(self, events: list[JSON]) -> None:
        """Answer with server-sent events (``event: <type>``), then close the connection."""
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")  # the stream ends when the connection does
        self.end_headers()
        for event in events:
            self.wfile.write(f"event: {event['type']}\ndata: {json.dumps(event)}\n\n".encode())
            self.wfile.flush()
        self.close_connection = True


class RecordingHandler(MockHandler[M]):
    """A handler whose mock records :class:`RecordedCall` s; ``HEAD`` answers 200, empty."""

    timeout = 60  # an idle keep-alive connection ends by itself

    def record(self, body: Any, reply: Any = None) -> None:
        """Record this request (its ``reply`` when the script chose one)."""
        call = RecordedCall(self.command, self.path, self.recorded_headers(), body, reply)
        cast(MockServer[RecordedCall[Any]], self.mock)._record(call)

    def do_HEAD(self) -> None:
        self.record(None)
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()


# ---------------------------------------------------------------- API shape helpers


def leaf_strings(node: Any) -> Iterator[str]:
    """Yield every string inside ``node`` (nested lists' items and dicts' values)."""
    if isinstance(node, str):
        yield node
    elif isinstance(node, list):
        for item in node:
            yield from leaf_strings(item)
    elif isinstance(node, dict):
        for value in node.values():
            yield from leaf_strings(value)


def estimate_tokens(body: Any) -> int:
    """A rough token count: four characters of JSON per token."""
    return max(1, len(json.dumps(body)) // 4)
