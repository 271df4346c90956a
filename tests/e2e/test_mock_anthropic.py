"""The mock Messages API on its own (no client needed): wire format, script, helpers."""

from __future__ import annotations

import http.client
import json
import threading
from typing import Any
from urllib.parse import urlsplit

import pytest

from tests.e2e.mock_anthropic import (
    MockAnthropic,
    Reply,
    all_text,
    last_user_text,
    tool_result_texts,
)

pytestmark = pytest.mark.e2e

BASH = {"name": "Bash", "input_schema": {"type": "object"}}


def request(
    mock: MockAnthropic, method: str, path: str, body: Any = None
) -> tuple[int, dict[str, str], bytes]:
    url = urlsplit(mock.url)
    conn = http.client.HTTPConnection(url.hostname or "", url.port, timeout=10)
    try:
        data = None if body is None else json.dumps(body).encode()
        conn.request(method, path, body=data, headers={"Content-Type": "application/json"})
        resp = conn.getresponse()
        return resp.status, dict(resp.getheaders()), resp.read()
    finally:
        conn.close()


def sse_events(raw: bytes) -> list[dict[str, Any]]:
    events = []
    for chunk in raw.decode().split("\n\n"):
        lines = dict(line.split(": ", 1) for line in chunk.splitlines() if line)
        if lines:
            event = json.loads(lines["data"])
            assert lines["event"] == event["type"]
            events.append(event)
    return events


def user(*blocks: Any) -> dict[str, Any]:
    return {"role": "user", "content": list(blocks)}


def test_streamed_text_reply_has_every_event_in_order() -> None:
    with MockAnthropic() as mock:
        body = {"model": "m", "stream": True, "messages": [user({"type": "text", "text": "hi"})]}
        status, headers, raw = request(mock, "POST", "/v1/messages?beta=true", body)

    assert status == 200
    assert headers["Content-Type"] == "text/event-stream"
    events = sse_events(raw)
    assert [e["type"] for e in events] == [
        "message_start",
        "ping",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
    ]
    assert events[3]["delta"] == {"type": "text_delta", "text": "ok"}
    assert events[5]["delta"]["stop_reason"] == "end_turn"
    assert events[5]["usage"]["output_tokens"] >= 1
    assert mock.requests == [body]


def test_trigger_asks_for_the_tool_and_a_tool_result_is_echoed() -> None:
    with MockAnthropic(tool_trigger="RUN_TOOL", tool_input={"command": "ls"}) as mock:
        ask = {
            "stream": True,
            "tools": [BASH],
            "messages": [user({"type": "text", "text": "RUN_TOOL"})],
        }
        events = sse_events(request(mock, "POST", "/v1/messages", ask)[2])
        start, delta = events[2]["content_block"], events[3]["delta"]
        result = {"type": "tool_result", "tool_use_id": start["id"], "content": "x" * 300}
        answer = {"stream": False, "tools": [BASH], "messages": [user(result)]}
        status, _, raw = request(mock, "POST", "/v1/messages", answer)

    assert start["type"] == "tool_use"
    assert start["name"] == "Bash"
    assert json.loads(delta["partial_json"]) == {"command": "ls"}
    assert events[-2]["delta"]["stop_reason"] == "tool_use"
    message = json.loads(raw)
    assert status == 200
    assert message["content"] == [{"type": "text", "text": "done: " + "x" * 200}]
    assert message["stop_reason"] == "end_turn"


def test_no_tool_call_when_the_request_offers_no_such_tool() -> None:
    mock = MockAnthropic()
    side = {"messages": [user({"type": "text", "text": "PROBE_TOOL title please"})]}
    assert mock.reply_for(side) == Reply.say("ok")
    assert mock.reply_for({**side, "tools": [BASH]}).stop_reason == "tool_use"


def test_responder_overrides_the_script_and_none_falls_back() -> None:
    mock = MockAnthropic(
        responder=lambda r: Reply.say("custom") if "x" in last_user_text(r) else None
    )
    assert mock.reply_for({"messages": [{"role": "user", "content": "x"}]}) == Reply.say("custom")
    assert mock.reply_for({"messages": [{"role": "user", "content": "y"}]}) == Reply.say("ok")


def test_side_routes_answer_and_are_recorded() -> None:
    with MockAnthropic() as mock:
        counted = request(mock, "POST", "/v1/messages/count_tokens", {"messages": []})
        head = request(mock, "HEAD", "/")
        missing = request(mock, "GET", "/nope")

    assert counted[0] == 200
    assert json.loads(counted[2])["input_tokens"] >= 1
    assert head[0] == 200
    assert missing[0] == 404
    assert [(c.method, c.path) for c in mock.calls] == [
        ("POST", "/v1/messages/count_tokens"),
        ("HEAD", "/"),
        ("GET", "/nope"),
    ]
    assert mock.requests == []


def test_main_and_side_requests_are_told_apart_by_tools() -> None:
    with MockAnthropic() as mock:
        request(mock, "POST", "/v1/messages", {"messages": [], "tools": [BASH]})
        request(mock, "POST", "/v1/messages", {"messages": []})

    assert mock.main_requests() == [{"messages": [], "tools": [BASH]}]
    assert mock.side_requests() == [{"messages": []}]


def test_all_text_reaches_system_blocks_and_tool_results() -> None:
    body = {
        "system": [{"type": "text", "text": "SYS"}],
        "tools": [{"name": "Bash", "description": "NOT_TEXT"}],
        "messages": [
            {"role": "user", "content": "PLAIN"},
            {"role": "assistant", "content": [{"type": "tool_use", "input": {"command": "CMD"}}]},
            user(
                {"type": "tool_result", "content": [{"type": "text", "text": "RESULT"}]},
                {"type": "text", "text": "REMINDER"},
            ),
        ],
    }

    text = all_text(body)
    for part in ("SYS", "PLAIN", "CMD", "RESULT", "REMINDER"):
        assert part in text
    assert "NOT_TEXT" not in text
    assert tool_result_texts(body, last_only=True) == ["RESULT"]
    assert last_user_text(body) == "REMINDER"


def test_stop_closes_the_port_and_every_handler_thread() -> None:
    before = set(threading.enumerate())
    mock = MockAnthropic().start()
    url = urlsplit(mock.url)
    idle = http.client.HTTPConnection(url.hostname or "", url.port, timeout=10)
    idle.request("HEAD", "/")  # a keep-alive connection left open
    idle.getresponse().read()

    mock.stop()

    assert set(threading.enumerate()) <= before
    late = http.client.HTTPConnection(url.hostname or "", url.port, timeout=2)
    with pytest.raises(ConnectionRefusedError):
        late.request("HEAD", "/")
    late.close()
    idle.close()
