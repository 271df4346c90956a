"""Codex hook payloads to events, and answers back to Codex's stdout channel.

Payloads are the ones Codex CLI 0.171.0 really sent: the probe's (shared/fixtures, copied
here) and a run with this plugin's hooks installed and trusted (``lorebook-run/``), which
includes a failing ``cat`` and a blocked one.
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
from lorebook_codex.events import ASK_SUFFIX, CONTEXT_EVENTS, EVENTS, parse_event, render
from tests.plugins.codex.conftest import FIXTURES, recorded

PROBE = recorded("hook-payloads.jsonl")
INSTALLED = [(name, payload) for name, payload in PROBE if name in EVENTS]
LOREBOOK_RUN = recorded("lorebook-run/hook-payloads.jsonl")
SCHEMAS = json.loads((FIXTURES / "hook-schemas-from-binary.json").read_text(encoding="utf-8"))
SCHEMA_NAMES = {
    "SessionStart": "session-start",
    "UserPromptSubmit": "user-prompt-submit",
    "PreToolUse": "pre-tool-use",
    "PostToolUse": "post-tool-use",
    "Stop": "stop",
    "PreCompact": "pre-compact",
}


def test_the_fixtures_cover_every_event_we_install() -> None:
    assert {name for name, _ in PROBE} >= set(EVENTS)
    assert {name for name, _ in PROBE} - set(EVENTS) == {"PostCompact"}
    assert {name for name, _ in LOREBOOK_RUN} == set(EVENTS)


@pytest.mark.parametrize(("name", "payload"), INSTALLED + LOREBOOK_RUN)
def test_every_recorded_payload_parses_with_its_ids(name: str, payload: dict[str, Any]) -> None:
    event = parse_event(name, payload)
    assert event.name == EVENTS[name]
    assert event.harness == "codex"
    assert event.host_event == name == payload["hook_event_name"]
    assert event.session_id == payload["session_id"]
    assert event.cwd == payload["cwd"]
    assert event.transcript_ref == payload["transcript_path"]
    assert str(event.transcript_ref).endswith(f"{payload['session_id']}.jsonl")
    assert event.raw is payload


def test_recorded_prompts_sources_and_tools_come_through() -> None:
    events = [parse_event(name, payload) for name, payload in INSTALLED]
    assert [e.prompt for e in events if e.name == "prompt"] == [
        "say hi",
        "PROBE_TOOL please print hello.txt",
        "PROBE_TOOL please print hello.txt",
        "say hi again",
        "say hi",
    ]
    sources = [e.source for e in events if e.name == "session_start"]
    assert sources == ["startup", "resume", "startup", "resume", "compact", "startup"]
    bash = {"command": "cat hello.txt"}
    tools = [(e.name, e.tool_name, dict(e.tool_input)) for e in events if e.tool_name]
    assert tools == [
        ("pre_tool", "Bash", bash),
        ("post_tool", "Bash", bash),
        ("pre_tool", "Bash", bash),
    ]
    assert all(e.error_text is None for e in events)
    assert all(e.prompt is None for e in events if e.name != "prompt")
    assert all(e.source is None for e in events if e.name != "session_start")
    assert Counter(e.name for e in events) == {
        "session_start": 6,
        "prompt": 5,
        "pre_tool": 2,
        "post_tool": 1,
        "stop": 5,
        "session_end": 5,
        "pre_compact": 1,
    }


def test_a_failed_shell_call_shows_no_exit_code_so_no_error_is_claimed() -> None:
    # Codex gives PostToolUse only the command's output text: the failed `cat` of the
    # recorded run looks like any output, so nothing is reported as an error.
    (payload,) = [p for name, p in LOREBOOK_RUN if name == "PostToolUse"]
    assert payload["tool_response"] == "cat: hello.txt: No such file or directory\n"
    event = parse_event("PostToolUse", payload)
    assert (event.name, event.tool_name, event.error_text) == ("post_tool", "Bash", None)


EXEC_BLOCK = (
    "Chunk ID: f861b8\nWall time: 0.0000 seconds\nProcess exited with code {code}\n"
    "Original token count: 11\nOutput:\n{output}"
)


@pytest.mark.parametrize(
    ("response", "error_text"),
    [
        ("hello\n", None),
        ("Process exited with code 1\n", None),  # the phrase alone is not Codex's block
        ("it said: Process exited with code 2\nOutput:\nx", None),
        (EXEC_BLOCK.format(code=0, output="fine\n"), None),
        (EXEC_BLOCK.format(code=1, output="cat: x: No such file\n"), "cat: x: No such file"),
        (EXEC_BLOCK.format(code=127, output=""), "exit code 127"),
        ({"exit_code": 2, "stderr": "boom\n", "stdout": ""}, "boom"),
        ({"exitCode": 3, "output": ""}, "exit code 3"),
        ({"exit_code": 0, "stderr": "warning"}, None),
        ({"stderr": "warning only"}, None),
        ({"exit_code": True}, None),
        (["a", "list"], None),
        (None, None),
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
        ("PreToolUse", {**BASE, "tool_name": ""}, "tool_name"),
        ("PreToolUse", {**BASE, "tool_name": "Bash", "tool_input": "ls"}, "tool_input"),
    ],
)
def test_a_missing_field_raises_naming_the_event_and_field(
    name: str, payload: dict[str, Any], field: str
) -> None:
    with pytest.raises(ValueError, match=rf"codex {name} payload: field '{field}'"):
        parse_event(name, payload)


@pytest.mark.parametrize("payload", [[1, 2], "text", None, 3])
def test_a_payload_that_is_not_an_object_raises(payload: Any) -> None:
    with pytest.raises(ValueError, match="codex Stop payload: not a JSON object"):
        parse_event("Stop", payload)


@pytest.mark.parametrize(
    "name", ["PostCompact", "PermissionRequest", "PostToolUseFailure", "sessionStart", ""]
)
def test_an_unknown_event_name_raises_listing_the_known_ones(name: str) -> None:
    with pytest.raises(ValueError, match=rf"unknown hook event '{name}' \(known: SessionStart,"):
        parse_event(name, BASE)


def test_an_empty_prompt_is_still_a_prompt_and_missing_tool_input_is_empty() -> None:
    assert parse_event("UserPromptSubmit", {**BASE, "prompt": ""}).prompt == ""
    event = parse_event("PreToolUse", {**BASE, "tool_name": "mcp__x__y"})
    assert dict(event.tool_input) == {}
    assert parse_event("Stop", {**BASE, "transcript_path": None}).transcript_ref is None


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


@pytest.mark.parametrize("host", sorted(CONTEXT_EVENTS))
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
        b'"permissionDecisionReason":"Never rm -rf /"}}\n'
    )
    assert output.exit_code == 0


def test_ask_is_a_deny_whose_reason_says_a_person_must_confirm() -> None:
    answer = HookAnswer(context="see note x", decision="ask", reason="risky migration.")
    assert _json(render(_event("PreToolUse"), answer)) == {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": f"risky migration. {ASK_SUFFIX}",
            "additionalContext": "see note x",
        }
    }
    bare = _json(render(_event("PreToolUse"), HookAnswer(decision="ask")))
    assert bare["hookSpecificOutput"]["permissionDecisionReason"] == ASK_SUFFIX


def test_deny_without_a_reason_still_gives_one_as_codex_requires() -> None:
    for reason in (None, "", "  ", "."):
        data = _json(render(_event("PreToolUse"), HookAnswer(decision="deny", reason=reason)))
        assert data["hookSpecificOutput"]["permissionDecisionReason"] == "blocked by lorebook"


def test_allow_is_never_written() -> None:
    assert render(_event("PreToolUse"), HookAnswer(decision="allow")) == HostOutput(b"", 0)
    data = _json(render(_event("PreToolUse"), HookAnswer(context="c", decision="allow")))
    assert "permissionDecision" not in data["hookSpecificOutput"]


def test_a_decision_outside_pre_tool_is_ignored() -> None:
    answer = HookAnswer(context="c", decision="deny", reason="r")
    assert _json(render(_event("PostToolUse"), answer)) == {
        "hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "c"}
    }


@pytest.mark.parametrize("host", list(SCHEMA_NAMES))
@pytest.mark.parametrize("decision", [None, "deny", "ask"])
def test_every_output_uses_only_fields_codex_accepts(host: str, decision: Any) -> None:
    output = render(_event(host), HookAnswer(context="c", decision=decision, reason="r"))
    schema = SCHEMAS[f"{SCHEMA_NAMES[host]}.command.output"]
    if not output.stdout:
        assert "hookSpecificOutput" not in schema["properties"]
        return
    data = _json(output)
    assert set(data) <= set(schema["properties"])
    wire = next(
        definition
        for key, definition in schema["definitions"].items()
        if key.endswith("HookSpecificOutputWire")
    )
    specific = data["hookSpecificOutput"]
    assert set(specific) <= set(wire["properties"])
    assert specific["hookEventName"] == wire["properties"]["hookEventName"]["const"]
    if "permissionDecision" in specific:
        enum = schema["definitions"]["PreToolUsePermissionDecisionWire"]["enum"]
        assert specific["permissionDecision"] in enum
        assert specific["permissionDecisionReason"].strip()


def test_non_ascii_context_is_utf8_json() -> None:
    output = render(_event("SessionStart"), HookAnswer(context="naïve — ✓ 日本"))
    assert "naïve — ✓ 日本".encode() in output.stdout
    assert _json(output)["hookSpecificOutput"]["additionalContext"] == "naïve — ✓ 日本"


def test_an_event_built_without_host_event_gets_codexs_name() -> None:
    event = HookEvent(name="pre_tool", harness="codex", session_id="s", cwd="/r")
    data = _json(render(event, HookAnswer(context="c")))
    assert data["hookSpecificOutput"]["hookEventName"] == "PreToolUse"


def test_the_fast_path_module_imports_nothing_heavy() -> None:
    code = (
        "import json, sys\n"
        "import lorebook.events\n"
        "before = set(sys.modules)\n"
        "import lorebook_codex.events\n"
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
        "lorebook_codex",
        "lorebook_codex.events",
    ]
    heavy = {"pluggy", "pydantic", "yaml", "typer", "typing", "dataclasses", "pathlib"}
    heavy |= {"hashlib", "tomllib", "lorebook.plugins", "lorebook.hookspecs"}
    assert heavy.isdisjoint(result["all"])


def test_the_catalog_is_not_given_twice_on_resume_but_again_after_compaction(
    kb_repo: Path,
) -> None:
    """`codex exec resume` keeps the first catalog in its history; a compaction drops it."""
    from lorebook.initialize import init_repo
    from lorebook.testing import FakeHost
    from lorebook_codex.harness import CodexHarness

    init_repo(kb_repo, ["codex"])
    host = FakeHost(kb_repo, CodexHarness())
    start = {"session_id": "s1", "cwd": str(kb_repo), "hook_event_name": "SessionStart",
             "transcript_path": None, "source": "startup"}  # fmt: skip

    def catalog(source: str) -> bool:
        out = host.fire("SessionStart", {**start, "source": source}).stdout
        return "# Project knowledge base" in out

    assert catalog("startup")
    assert not catalog("resume")  # the same text is in the resumed history already
    assert catalog("compact")  # the summary replaced it
