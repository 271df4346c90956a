"""The mock Responses API on its own (no client needed): wire format, script, helpers."""

from __future__ import annotations

import http.client
import json
import threading
from typing import Any
from urllib.parse import urlsplit

import pytest

from tests.e2e.mock_responses import (
    MockResponses,
    Reply,
    all_text,
    developer_texts,
    exec_output,
    function_call_outputs,
    function_calls,
    is_main_request,
    last_user_text,
    request_kind,
)

pytestmark = pytest.mark.e2e

EXEC = {"type": "function", "name": "exec_command", "parameters": {"type": "object"}}


def request(
    mock: MockResponses, method: str, path: str, body: Any = None
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


def message(role: str, *texts: str) -> dict[str, Any]:
    kind = "output_text" if role == "assistant" else "input_text"
    return {"type": "message", "role": role, "content": [{"type": kind, "text": t} for t in texts]}


def metadata(kind: str) -> dict[str, Any]:
    turn = json.dumps({"session_id": "s", "request_kind": kind})
    return {"session_id": "s", "x-codex-turn-metadata": turn}


def codex_body(*items: dict[str, Any], kind: str = "turn", tools: Any = None) -> dict[str, Any]:
    """A body shaped like Codex 0.171's (instructions as the first developer message)."""
    return {
        "model": "mock-model",
        "stream": True,
        "tools": [EXEC] if tools is None else tools,
        "input": [
            message("developer", "You are a coding agent running in the Codex CLI."),
            message("user", "# AGENTS.md instructions", "<environment_context/>"),
            *items,
        ],
        "client_metadata": metadata(kind),
    }


def tool_exchange(output: str) -> list[dict[str, Any]]:
    call = {
        "type": "function_call",
        "name": "exec_command",
        "arguments": json.dumps({"cmd": "cat hello.txt"}),
        "call_id": "call_1",
    }
    post_tool = message("developer", "POST_TOOL_CONTEXT")
    return [
        call,
        post_tool,
        {"type": "function_call_output", "call_id": "call_1", "output": output},
    ]


def test_streamed_text_reply_has_every_event_in_order() -> None:
    with MockResponses() as mock:
        body = codex_body(message("user", "say hi"))
        status, headers, raw = request(mock, "POST", "/v1/responses", body)

    assert status == 200
    assert headers["Content-Type"] == "text/event-stream"
    events = sse_events(raw)
    assert [e["type"] for e in events] == [
        "response.created",
        "response.in_progress",
        "response.output_item.added",
        "response.content_part.added",
        "response.output_text.delta",
        "response.output_text.done",
        "response.content_part.done",
        "response.output_item.done",
        "response.completed",
    ]
    assert [e["sequence_number"] for e in events] == list(range(len(events)))
    assert events[4]["delta"] == "ok"
    item = events[-2]["item"]
    assert item["type"] == "message"
    assert item["role"] == "assistant"
    assert item["content"] == [{"type": "output_text", "text": "ok", "annotations": []}]
    assert events[2]["item"]["id"] == item["id"] == events[4]["item_id"]
    done = events[-1]["response"]
    assert done["id"] == events[0]["response"]["id"]
    assert done["status"] == "completed"
    assert done["output"] == [item]
    usage = done["usage"]
    assert usage["total_tokens"] == usage["input_tokens"] + usage["output_tokens"] >= 2
    assert mock.requests == [body]


def test_trigger_asks_for_the_function_and_its_output_is_echoed() -> None:
    with MockResponses(tool_trigger="RUN_TOOL", tool_arguments={"cmd": "ls"}) as mock:
        ask = codex_body(message("user", "RUN_TOOL"))
        events = sse_events(request(mock, "POST", "/v1/responses", ask)[2])
        answer = {**codex_body(*tool_exchange("x" * 300)), "stream": False}
        status, headers, raw = request(mock, "POST", "/v1/responses", answer)

    assert [e["type"] for e in events][2:-1] == [
        "response.output_item.added",
        "response.function_call_arguments.delta",
        "response.function_call_arguments.done",
        "response.output_item.done",
    ]
    call = events[-2]["item"]
    assert call["type"] == "function_call"
    assert call["name"] == "exec_command"
    assert call["call_id"].startswith("call_")
    assert json.loads(call["arguments"]) == {"cmd": "ls"}
    assert events[2]["item"]["arguments"] == ""
    assert events[3]["delta"] == events[4]["arguments"] == call["arguments"]
    assert status == 200
    assert headers["Content-Type"] == "application/json"
    response = json.loads(raw)
    assert response["object"] == "response"
    assert response["status"] == "completed"
    (item,) = response["output"]
    assert item["content"][0]["text"] == "done: " + "x" * 200


def test_done_answer_collapses_whitespace_and_skips_trailing_developer_messages() -> None:
    mock = MockResponses()
    output = "Chunk ID: 1\nProcess exited with code 0\nOutput:\nhello   there\n"
    trailing_hook = message("developer", "PRE_TOOL_CONTEXT")
    body = codex_body(message("user", "go"), *tool_exchange(output), trailing_hook)

    reply = mock.reply_for(body)

    assert reply.text == "done: Chunk ID: 1 Process exited with code 0 Output: hello there"
    assert not reply.calls_function


def test_no_function_call_when_the_request_offers_no_such_tool() -> None:
    mock = MockResponses()
    side = codex_body(message("user", "PROBE_TOOL summarise"), kind="compaction", tools=[])
    assert mock.reply_for(side).text == "ok"
    assert mock.reply_for({**side, "tools": [EXEC]}).calls_function
    namespaced = {"type": "namespace", "name": "ns", "tools": [EXEC]}
    assert mock.reply_for({**side, "tools": [namespaced]}).calls_function
    mock.tool_trigger = ""
    assert mock.reply_for({**side, "tools": [EXEC]}).text == "ok"


def test_responder_overrides_the_script_and_none_falls_back() -> None:
    mock = MockResponses(
        responder=lambda r: Reply.say("custom") if "x" in last_user_text(r) else None
    )
    assert mock.reply_for({"input": "x"}).text == "custom"
    assert mock.reply_for({"input": [message("user", "y")]}).text == "ok"


def test_side_routes_answer_and_are_recorded() -> None:
    with MockResponses() as mock:
        models = request(mock, "GET", "/v1/models?client_version=0.171.0")
        head = request(mock, "HEAD", "/")
        missing = request(mock, "POST", "/v1/responses/compact", {"input": []})
        not_json = request(mock, "POST", "/v1/responses", ["not", "an", "object"])

    assert models[0] == 200
    assert json.loads(models[2])["data"][0]["id"] == "mock-model"
    assert head[0] == 200
    assert missing[0] == 404
    assert json.loads(missing[2])["error"]["type"] == "not_found_error"
    assert not_json[0] == 400
    assert [(c.method, c.path) for c in mock.other_calls()] == [
        ("GET", "/v1/models?client_version=0.171.0"),
        ("HEAD", "/"),
        ("POST", "/v1/responses/compact"),
        ("POST", "/v1/responses"),
    ]
    assert mock.requests == []


def test_main_and_side_requests_are_told_apart_by_request_kind() -> None:
    turn = codex_body(message("user", "hi"))
    compaction = codex_body(message("user", "summarise"), kind="compaction", tools=[])
    unlabelled = {"input": "hi", "tools": [EXEC]}
    with MockResponses() as mock:
        for body in (turn, compaction, unlabelled):
            request(mock, "POST", "/v1/responses", body)

    assert [request_kind(r) for r in mock.requests] == ["turn", "compaction", None]
    assert mock.main_requests() == [turn, unlabelled]
    assert mock.side_requests() == [compaction]
    assert not is_main_request({"input": "hi"})


def test_clear_forgets_what_was_recorded() -> None:
    with MockResponses() as mock:
        request(mock, "POST", "/v1/responses", codex_body())
        mock.clear()
        assert mock.calls == []


def test_text_helpers_reach_developer_messages_arguments_and_outputs() -> None:
    body = {
        **codex_body(
            message("developer", "SESSION_CONTEXT"),
            message("user", "PROMPT"),
            message("developer", "PROMPT_CONTEXT"),
            *tool_exchange("Chunk ID: 9\nOutput:\nRESULT\n"),
        ),
        "instructions": "INSTRUCTIONS",
        "tools": [{**EXEC, "description": "NOT_TEXT"}],
    }

    text = all_text(body)
    for part in ("INSTRUCTIONS", "Codex CLI", "AGENTS.md", "SESSION_CONTEXT", "PROMPT",
                 "PROMPT_CONTEXT", "cat hello.txt", "POST_TOOL_CONTEXT", "RESULT"):  # fmt: skip
        assert part in text
    assert "NOT_TEXT" not in text
    assert last_user_text(body) == "PROMPT"
    assert developer_texts(body)[1:] == ["SESSION_CONTEXT", "PROMPT_CONTEXT", "POST_TOOL_CONTEXT"]
    assert function_calls(body) == [("exec_command", {"cmd": "cat hello.txt"})]
    assert function_call_outputs(body) == ["Chunk ID: 9\nOutput:\nRESULT\n"]
    assert function_call_outputs(body, last_only=True) == ["Chunk ID: 9\nOutput:\nRESULT\n"]
    assert function_call_outputs({**body, "input": [*body["input"], message("user", "next")]},
                                 last_only=True) == []  # fmt: skip


def test_exec_output_unwraps_only_codex_command_results() -> None:
    assert exec_output("Chunk ID: a\nProcess exited with code 0\nOutput:\nhi\nthere\n") == (
        "hi\nthere"
    )
    blocked = "Command blocked by PreToolUse hook: no. Command: cat hello.txt"
    assert exec_output(blocked) == blocked
    assert exec_output("Output:\nx\n") == "x"
    assert exec_output("not an Output:\nline") == "not an Output:\nline"


def test_stop_closes_the_port_and_every_handler_thread() -> None:
    before = set(threading.enumerate())
    mock = MockResponses().start()
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
