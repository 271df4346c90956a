"""The Copilot plugin on recorded payloads and event logs: events, answers, logs, files, trust."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from lorebook.events import HookAnswer
from lorebook.initialize import init_repo, uninstall_repo
from lorebook.testing import FakeHost
from lorebook_copilot import hooks_file, transcript
from lorebook_copilot.events import parse_event, render
from lorebook_copilot.harness import CopilotHarness
from tests.plugins.copilot.conftest import DENY_RUN, SESSIONS, TOOL_RUN, copilot_home, recorded


def _payload(event: str) -> dict[str, object]:
    return dict(next(p for e, p in recorded() if e == event))


def test_recorded_payloads_become_normalised_events(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COPILOT_HOME", "/copilot-home")
    start = parse_event("sessionStart", _payload("sessionStart"))
    assert (start.name, start.source, start.session_id) == ("session_start", "new", TOOL_RUN)
    assert start.transcript_ref == f"/copilot-home/session-state/{TOOL_RUN}/events.jsonl"
    prompt = parse_event("userPromptSubmitted", _payload("userPromptSubmitted"))
    assert (prompt.name, prompt.prompt) == ("prompt", "say hi")
    pre = parse_event("preToolUse", _payload("preToolUse"))
    assert (pre.tool_name, pre.tool_input["command"]) == ("bash", "cat hello.txt")
    post = parse_event("postToolUse", _payload("postToolUse"))
    assert post.error_text is None
    stop = parse_event("agentStop", _payload("agentStop"))
    assert stop.transcript_ref is not None
    assert stop.transcript_ref.startswith("<WORK>/")


def test_a_failed_tool_result_is_the_error_text() -> None:
    payload = {**_payload("postToolUse"), "toolResult": {"resultType": "failure",
               "textResultForLlm": "cat: nope.txt: No such file"}}  # fmt: skip
    assert parse_event("postToolUse", payload).error_text == "cat: nope.txt: No such file"


@pytest.mark.parametrize(
    ("event", "payload", "message"),
    [
        ("sessionStart", {"cwd": "/r"}, "copilot sessionStart payload: field 'sessionId' is missing"),
        ("preToolUse", {"sessionId": "s", "cwd": "/r"}, "field 'toolName' is missing"),
        ("preToolUse", {"sessionId": "s", "cwd": "/r", "toolName": "bash", "toolArgs": "x"},
         "field 'toolArgs' is not an object"),
        ("permissionRequest", {}, "unknown hook event 'permissionRequest'"),
    ],
)  # fmt: skip
def test_bad_payloads_name_the_event_and_field(
    event: str, payload: dict[str, object], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        parse_event(event, payload)


def test_answers_use_copilots_channels() -> None:
    pre = parse_event("preToolUse", _payload("preToolUse"))
    assert json.loads(render(pre, HookAnswer(decision="deny", reason="R")).stdout) == {
        "permissionDecision": "deny", "permissionDecisionReason": "R"}  # fmt: skip
    asked = json.loads(render(pre, HookAnswer(decision="ask", reason="Check first.")).stdout)
    assert asked["permissionDecision"] == "deny"
    assert asked["permissionDecisionReason"].startswith("Check first. A person must confirm")
    assert json.loads(render(pre, HookAnswer(context="C")).stdout) == {"additionalContext": "C"}
    stop = parse_event("agentStop", _payload("agentStop"))
    assert render(stop, HookAnswer(context="C")).stdout == b""  # no channel at agentStop
    assert render(pre, HookAnswer(decision="allow")).stdout == b""


def test_the_event_log_becomes_turns_with_injected_text_marked() -> None:
    turns = list(transcript.read_transcript(str(SESSIONS / TOOL_RUN / "events.jsonl")))
    users = [t.text for t in turns if t.role == "user"]
    assert users == ["say hi", "PROBE_TOOL please print hello.txt"]
    injected = [t for t in turns if t.injected]
    assert injected
    assert all(t.role == "tool" for t in injected)
    assert "PROBEINJECT_copilot_sessionStart_ctx" in [t.text for t in injected]
    (tool,) = [t for t in turns if t.role == "tool" and not t.injected]
    assert tool.tool_calls[0].name == "bash"
    assert tool.tool_calls[0].input["command"] == "cat hello.txt"
    assert tool.text.startswith("hello from the probe file")
    (summary,) = [t for t in turns if t.role == "summary"]
    assert summary.text
    assert [t.index for t in turns] == sorted({t.index for t in turns})


def test_a_denied_tool_is_an_error_turn_and_offsets_resume() -> None:
    ref = str(SESSIONS / DENY_RUN / "events.jsonl")
    (tool,) = [t for t in transcript.read_transcript(ref) if t.tool_calls and t.role == "tool"]
    assert tool.tool_calls[0].is_error
    assert tool.text.startswith("Denied by preToolUse hook:")
    end = transcript.transcript_end(ref)
    assert list(transcript.read_transcript(ref, since=end)) == []


def test_check_reports_an_untrusted_folder_until_copilot_trusts_it(
    kb_repo: Path, tmp_path: Path
) -> None:
    harness = CopilotHarness(env={"COPILOT_HOME": str(tmp_path / "nowhere")})
    report = harness.install(kb_repo)
    assert report.changed == (hooks_file.HOOKS_PATH,)
    assert any("--trust-folder" in note for note in report.notes)
    *hooks, trust = harness.check(kb_repo)
    assert all(item.state == "ok" for item in hooks)
    assert trust.state == "untrusted"
    assert trust.fix is not None
    assert "trustedFolders" in trust.fix
    home = copilot_home(tmp_path, [kb_repo.parent])  # a parent folder's trust covers it
    assert CopilotHarness(env={"COPILOT_HOME": str(home)}).check(kb_repo)[-1].state == "ok"
    (home / "config.json").write_text("{not json")
    broken = CopilotHarness(env={"COPILOT_HOME": str(home)}).check(kb_repo)[-1]
    assert broken.state == "unknown"
    assert "config.json is not valid JSON" in (broken.fix or "")


def test_install_keeps_the_users_entries_and_uninstall_restores_them(kb_repo: Path) -> None:
    path = kb_repo / hooks_file.HOOKS_PATH
    path.parent.mkdir(parents=True)
    mine: dict[str, Any] = {"version": 1, "hooks": {"preToolUse": [{"type": "command", "bash": "./mine.sh"}],
                                    "errorOccurred": [{"type": "command", "bash": "./err.sh"}]}}  # fmt: skip
    text = json.dumps(mine, indent=2) + "\n"
    path.write_text(text)
    init_repo(kb_repo, ["copilot"])
    data = json.loads(path.read_text())
    assert data["hooks"]["preToolUse"][0] == {"type": "command", "bash": "./mine.sh"}
    assert data["hooks"]["preToolUse"][1] == hooks_file.entry("preToolUse")
    assert data["hooks"]["errorOccurred"] == mine["hooks"]["errorOccurred"]
    before = path.read_bytes()
    init_repo(kb_repo, ["copilot"])
    assert path.read_bytes() == before
    uninstall_repo(kb_repo, ["copilot"])
    assert path.read_text() == text


def test_session_start_context_is_given_once_per_session_and_content(
    kb_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Copilot re-fires sessionStart on every interactive prompt: the catalog goes once."""
    monkeypatch.setenv("COPILOT_HOME", str(copilot_home(tmp_path, [kb_repo])))
    init_repo(kb_repo, ["copilot"])
    host = FakeHost(kb_repo, CopilotHarness())
    payload = {**_payload("sessionStart"), "cwd": str(kb_repo)}
    first = host.fire("sessionStart", payload)
    assert "# Project knowledge base" in first.json()["additionalContext"]
    assert host.fire("sessionStart", payload).stdout == ""  # same session, same content
    # `copilot --continue` replays the history without the first context: given again
    resumed = host.fire("sessionStart", {**payload, "source": "resume"})
    assert "# Project knowledge base" in resumed.json()["additionalContext"]
    other = host.fire("sessionStart", {**payload, "sessionId": "another-session"})
    assert "# Project knowledge base" in other.json()["additionalContext"]
    subprocess.run([sys.executable, "-m", "lorebook", "note", "add", "--title", "Use uv",
                    "--description", "Tests", "--kind", "convention"], cwd=kb_repo, check=True,
                   capture_output=True)  # fmt: skip
    changed = host.fire("sessionStart", payload)  # the catalog changed: given again
    assert "convention/" in changed.json()["additionalContext"]


def test_the_fast_path_module_imports_nothing_heavy() -> None:
    code = (
        "import json, sys\nimport lorebook.events\nbefore = set(sys.modules)\n"
        "import lorebook_copilot.events\n"
        "print(json.dumps(sorted(set(sys.modules) - before)))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-I", "-c", code], capture_output=True, text=True, check=True
    )
    assert json.loads(proc.stdout) == [
        "lorebook.hostkit", "lorebook.hostkit.payload", "lorebook_copilot", "lorebook_copilot.events"]  # fmt: skip
