"""A scripted mock of the OpenAI Chat Completions API that runs inside the test process.

It serves ``POST /v1/chat/completions`` on 127.0.0.1 (a free port), answers from a script
and records every request (path, headers, JSON body). Standard library only.

The answer to a request is, in order: ``responder(body)`` if it returns a reply, else the
next reply of ``script``, else ``default`` (an empty ``{"proposals": []}`` answer). A reply
may hold the request until an event is set (``Reply(wait=event)``), which lets a test
interrupt a run while a call is in flight; ``stop`` releases every held request.

Example::

    with MockOpenAI(script=[Reply.proposals([...]), Reply.error(500)]) as mock:
        config.extraction.endpoint = mock.url  # http://127.0.0.1:<port>/v1
        ...
        assert mock.requests[0].headers["Authorization"] == "Bearer k"
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from tests.mockserver import MockHandler, MockServer, route


@dataclass(frozen=True)
class Reply:
    """One scripted answer: an assistant message, or an HTTP error, or a raw body."""

    status: int = 200
    content: str | None = '{"proposals": []}'
    raw_body: str | None = None
    wait: threading.Event | None = field(default=None, compare=False)

    @classmethod
    def proposals(cls, items: Sequence[dict[str, Any]]) -> Reply:
        """An answer holding ``{"proposals": items}``."""
        return cls(content=json.dumps({"proposals": list(items)}))

    @classmethod
    def text(cls, content: str) -> Reply:
        """An answer whose message is ``content`` as it is (JSON or not)."""
        return cls(content=content)

    @classmethod
    def error(cls, status: int, message: str = "mock failure") -> Reply:
        """An HTTP error with an OpenAI-style error body."""
        body = json.dumps({"error": {"message": message, "type": "server_error"}})
        return cls(status=status, content=None, raw_body=body)


@dataclass(frozen=True)
class Recorded:
    """One request the mock received."""

    method: str
    path: str
    headers: dict[str, str]
    body: Any

    def user_text(self) -> str:
        """The text of every user message of a chat request, joined."""
        messages = self.body.get("messages", []) if isinstance(self.body, dict) else []
        return "\n".join(m.get("content", "") for m in messages if m.get("role") == "user")


Responder = Callable[[Any], Reply | None]


def completion(body: Any, content: str) -> dict[str, Any]:
    """A Chat Completions answer carrying ``content``."""
    model = body.get("model", "mock") if isinstance(body, dict) else "mock"
    return {
        "id": "chatcmpl-mock",
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "finish_reason": "stop",
            }
        ],
        "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
    }


class _Handler(MockHandler["MockOpenAI"]):
    server_version = "lorebook-mock-openai/1"

    def _send(self, status: int, text: str) -> None:
        self.send_bytes(text.encode("utf-8"), status)

    def do_POST(self) -> None:
        body = self.read_body()
        self.mock._record(Recorded("POST", self.path, self.recorded_headers(), body))
        if route(self.path) != "/v1/chat/completions":
            self._send(404, json.dumps({"error": {"message": f"no route {self.path}"}}))
            return
        reply = self.mock.reply_for(body)
        if reply.wait is not None:
            reply.wait.wait(timeout=30)
        try:
            if reply.raw_body is not None:
                self._send(reply.status, reply.raw_body)
            else:
                self._send(reply.status, json.dumps(completion(body, reply.content or "")))
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True


class MockOpenAI(MockServer[Recorded]):
    """A Chat Completions mock on 127.0.0.1, used as a context manager.

    Each connection is served by a daemon thread, which ``stop`` does not wait for.

    Args:
        script: Replies given in order, one per request, before ``default``.
        default: The reply once the script is used up.
        responder: Asked first for every request; ``None`` means "use the script".
    """

    handler = _Handler
    daemon_threads = True

    def __init__(
        self,
        script: Sequence[Reply] = (),
        *,
        default: Reply | None = None,
        responder: Responder | None = None,
    ) -> None:
        super().__init__()
        self.script = list(script)
        self.default = default or Reply()
        self.responder = responder
        self.received = threading.Event()
        self._waits: list[threading.Event] = []

    def stop(self) -> None:
        """Release held requests, stop serving and wait for the serving thread."""
        with self._lock:
            for event in self._waits:
                event.set()
        super().stop()

    @property
    def url(self) -> str:
        """The API base URL, ending in ``/v1`` (still known after ``stop``)."""
        if self._root_url is None:
            raise RuntimeError("MockOpenAI was never started")
        return f"{self._root_url}/v1"

    @property
    def requests(self) -> list[Recorded]:
        """Every request received so far, in arrival order (a copy)."""
        return self.calls

    def reply_for(self, body: Any) -> Reply:
        """Choose the reply to one request (and remember it was received)."""
        reply = self.responder(body) if self.responder is not None else None
        with self._lock:
            if reply is None:
                reply = self.script.pop(0) if self.script else self.default
            if reply.wait is not None:
                self._waits.append(reply.wait)
        return reply

    def _record(self, call: Recorded) -> None:
        super()._record(call)
        self.received.set()
