"""Claude hook payloads to events, and answers back to Claude's stdout channel.

Payloads are the ones Claude Code 2.1.197 really sent (shared/fixtures, copied here), plus
one run of a failing Bash call recorded against the mock model with this plugin's hooks
installed (``hook-payloads-tool-failure.jsonl``).
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from lorebook.events import HookAnswer, HookEvent, HostOutput
from lorebook_claude.events import EVENTS, parse_event, render

FIXTURES = Path(__file__).parent / "fixtures"


def _recorded(name: str) -> list[tuple[str, dict[str, Any]]]:
    records = []
    for line in (FIXTURES / name).read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        records.append((record.get("label") or record["event"], record["stdin_json"]))
    return records


RECORDED = _recorded("hook-payloads.jsonl")
INSTALLED = [(name, payload) for name, payload in RECORDED if name in EVENTS]
FAILURE_RUN = _recorded("hook-payloads-tool-failure.jsonl")


def test_the_fixture_covers_every_event_we_install_except_the_failure_channel() -> None:
    seen = {name for name, _ in RECORDED}
    assert set(EVENTS) - seen == {"PostToolUseFailure"}
    assert "PostToolUseFailure" in {name for name, _ in FAILURE_RUN}


@pytest.mark.parametrize(("name", "payload"), INSTALLED + FAILURE_RUN)
def test_every_recorded_payload_parses_with_its_ids(name: str, payload: dict[str, Any]) -> None:
    event = parse_event(name, payload)
    assert event.name == EVENTS[name]
    assert event.harness == "claude"
    assert event.host_event == name == payload["hook_event_name"]
    assert event.session_id == payload["session_id"]
    assert event.cwd == payload["cwd"] == "<PROJECT>"
    assert event.transcript_ref == payload["transcript_path"]
    assert str(event.transcript_ref).endswith(f"{payload['session_id']}.jsonl")
    assert event.raw is payload


def test_recorded_prompts_sources_and_tools_come_through() -> None:
    events = [parse_event(name, payload) for name, payload in INSTALLED]
    prompts = [e.prompt for e in events if e.name == "prompt"]
    assert prompts == [
        "say hi",
        "PROBE_TOOL please print hello.txt",
        "PROBE_TOOL please print hello.txt",
        "say hi",
        "say hi again",
    ]
    sources = [e.source for e in events if e.name == "session_start"]
    assert sources == ["startup", "resume", "resume", "compact", "startup", "startup", "resume"]
    tools = [(e.name, e.tool_name, dict(e.tool_input)) for e in events if e.tool_name]
    bash = {"command": "cat hello.txt"}
    assert tools == [
        ("pre_tool", "Bash", bash),
        ("post_tool", "Bash", bash),
        ("pre_tool", "Bash", bash),
    ]
    assert all(e.error_text is None for e in events)
    assert all(e.prompt is None for e in events if e.name != "prompt")
    counts = Counter(e.name for e in events)
    assert counts == {
        "session_start": 7,
        "prompt": 5,
        "pre_tool": 2,
        "post_tool": 1,
        "stop": 5,
        "session_end": 6,
        "pre_compact": 1,
    }


def test_a_failed_bash_call_arrives_as_post_tool_with_its_error() -> None:
    (name, payload) = next(item for item in FAILURE_RUN if item[0] == "PostToolUseFailure")
    event = parse_event(name, payload)
    assert event.name == "post_tool"
    assert event.host_event == "PostToolUseFailure"
    assert event.tool_name == "Bash"
    assert dict(event.tool_input) == {"command": "cat hello.txt"}
    assert event.error_text == "Exit code 1\ncat: hello.txt: No such file or directory"


@pytest.mark.parametrize(
    ("extra", "error_text"),
    [
        ({"error": "", "is_interrupt": True}, "interrupted"),
        ({"is_interrupt": False}, "tool failed"),
    ],
)
def test_a_failure_without_error_text_still_reads_as_a_failure(
    extra: dict[str, Any], error_text: str
) -> None:
    payload = {"session_id": "s", "cwd": "/r", "tool_name": "Bash", **extra}
    assert parse_event("PostToolUseFailure", payload).error_text == error_text


@pytest.mark.parametrize(
    ("response", "error_text"),
    [
        ({"stdout": "ok", "stderr": "", "interrupted": False}, None),
        ({"stdout": "", "stderr": "warning: deprecated", "interrupted": False}, None),
        ({"stdout": "", "stderr": "boom\n", "exitCode": 2}, "boom"),
        ({"stdout": "", "stderr": "", "exitCode": 3}, "exit code 3"),
        ({"stdout": "", "stderr": "killed", "interrupted": True}, "killed"),
        ({"stdout": "", "stderr": "", "interrupted": True}, None),
        ("plain text result", None),
    ],
)
def test_post_tool_use_reports_an_error_only_when_the_response_shows_one(
    response: Any, error_text: str | None
) -> None:
    payload = {"session_id": "s", "cwd": "/r", "tool_name": "Bash", "tool_response": response}
    assert parse_event("PostToolUse", payload).error_text == error_text


BASE = {"session_id": "s1", "cwd": "/repo", "transcript_path": "/t.jsonl"}


@pytest.mark.parametrize(
    ("name", "payload", "field"),
    [
        ("SessionStart", {"cwd": "/repo"}, "session_id"),
        ("Stop", {"session_id": "s1"}, "cwd"),
        ("SessionEnd", {"session_id": 7, "cwd": "/repo"}, "session_id"),
        ("PreCompact", {"session_id": "", "cwd": "/repo"}, "session_id"),
        ("UserPromptSubmit", BASE, "prompt"),
        ("UserPromptSubmit", {**BASE, "prompt": None}, "prompt"),
        ("PreToolUse", BASE, "tool_name"),
        ("PostToolUse", {**BASE, "tool_input": {}}, "tool_name"),
        ("PostToolUseFailure", {**BASE, "error": "x"}, "tool_name"),
        ("PreToolUse", {**BASE, "tool_name": "Bash", "tool_input": "ls"}, "tool_input"),
    ],
)
def test_a_missing_field_raises_naming_the_event_and_field(
    name: str, payload: dict[str, Any], field: str
) -> None:
    with pytest.raises(ValueError, match=rf"claude {name} payload: field '{field}'"):
        parse_event(name, payload)


@pytest.mark.parametrize("payload", [[1, 2], "text", None, 3])
def test_a_payload_that_is_not_an_object_raises(payload: Any) -> None:
    with pytest.raises(ValueError, match="claude Stop payload: not a JSON object"):
        parse_event("Stop", payload)


@pytest.mark.parametrize("name", ["Notification", "PostToolBatch", "sessionStart", ""])
def test_an_unknown_event_name_raises_listing_the_known_ones(name: str) -> None:
    with pytest.raises(ValueError, match=rf"unknown hook event '{name}' \(known: SessionStart,"):
        parse_event(name, BASE)


def test_an_empty_prompt_is_still_a_prompt_and_missing_tool_input_is_empty() -> None:
    assert parse_event("UserPromptSubmit", {**BASE, "prompt": ""}).prompt == ""
    event = parse_event("PreToolUse", {**BASE, "tool_name": "mcp__x__y"})
    assert dict(event.tool_input) == {}


def _event(host: str, **fields: Any) -> HookEvent:
    payload = {**BASE, "prompt": "p", "tool_name": "Bash", "tool_input": {}, **fields}
    return parse_event(host, payload)


def _json(output: HostOutput) -> Any:
    assert output.exit_code == 0
    assert output.stdout.endswith(b"\n")
    return json.loads(output.stdout)


@pytest.mark.parametrize("host", list(EVENTS))
def test_nothing_to_say_prints_nothing(host: str) -> None:
    assert render(_event(host), HookAnswer()) == HostOutput(b"", 0)
    assert render(_event(host), HookAnswer(context="")) == HostOutput(b"", 0)


def test_context_for_a_prompt_is_exact_compact_json() -> None:
    output = render(_event("UserPromptSubmit"), HookAnswer(context="Use uv, not pip."))
    assert output == HostOutput(
        b'{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit",'
        b'"additionalContext":"Use uv, not pip."}}\n',
        0,
    )


@pytest.mark.parametrize(
    "host", ["SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "PostToolUseFailure"]
)
def test_context_echoes_the_host_event_name(host: str) -> None:
    data = _json(render(_event(host), HookAnswer(context="note")))
    assert data == {"hookSpecificOutput": {"hookEventName": host, "additionalContext": "note"}}


@pytest.mark.parametrize("host", ["Stop", "SessionEnd", "PreCompact"])
def test_context_on_events_without_a_context_channel_is_dropped(host: str) -> None:
    assert render(_event(host), HookAnswer(context="note")) == HostOutput(b"", 0)


def test_deny_blocks_the_tool_with_its_reason() -> None:
    output = render(_event("PreToolUse"), HookAnswer(decision="deny", reason="Never rm -rf /."))
    assert output.stdout == (
        b'{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny",'
        b'"permissionDecisionReason":"Never rm -rf /."}}\n'
    )
    assert output.exit_code == 0


def test_ask_with_context_carries_both() -> None:
    answer = HookAnswer(context="see note x", decision="ask", reason="risky migration")
    assert _json(render(_event("PreToolUse"), answer)) == {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "ask",
            "permissionDecisionReason": "risky migration",
            "additionalContext": "see note x",
        }
    }


def test_deny_without_a_reason_still_gives_the_model_one() -> None:
    data = _json(render(_event("PreToolUse"), HookAnswer(decision="deny")))
    assert data["hookSpecificOutput"]["permissionDecisionReason"] == "blocked by lorebook"


def test_allow_is_never_written_so_claude_keeps_its_permission_prompt() -> None:
    assert render(_event("PreToolUse"), HookAnswer(decision="allow")) == HostOutput(b"", 0)
    data = _json(render(_event("PreToolUse"), HookAnswer(context="c", decision="allow")))
    assert "permissionDecision" not in data["hookSpecificOutput"]


def test_a_decision_outside_pre_tool_is_ignored() -> None:
    answer = HookAnswer(context="c", decision="deny", reason="r")
    assert _json(render(_event("UserPromptSubmit"), answer)) == {
        "hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": "c"}
    }


def test_non_ascii_context_is_utf8_json() -> None:
    output = render(_event("SessionStart"), HookAnswer(context="naïve — ✓ 日本"))
    assert "naïve — ✓ 日本".encode() in output.stdout
    assert _json(output)["hookSpecificOutput"]["additionalContext"] == "naïve — ✓ 日本"


def test_an_event_built_without_host_event_gets_claudes_name() -> None:
    event = HookEvent(name="pre_tool", harness="claude", session_id="s", cwd="/r")
    data = _json(render(event, HookAnswer(context="c")))
    assert data["hookSpecificOutput"]["hookEventName"] == "PreToolUse"


def test_the_fast_path_module_imports_nothing_heavy() -> None:
    code = (
        "import json, sys\n"
        "import lorebook.events\n"
        "before = set(sys.modules)\n"
        "import lorebook_claude.events\n"
        "print(json.dumps({'added': sorted(set(sys.modules) - before),"
        " 'all': sorted(sys.modules)}))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-I", "-c", code], capture_output=True, text=True, check=True
    )
    result = json.loads(proc.stdout)
    assert result["added"] == [
        "lorebook.hostkit",
        "lorebook.hostkit.hookspecific",
        "lorebook.hostkit.payload",
        "lorebook_claude",
        "lorebook_claude.events",
    ]
    heavy = {"pluggy", "pydantic", "yaml", "typer", "lorebook.plugins", "lorebook.hookspecs"}
    assert heavy.isdisjoint(result["all"])
