"""lorebook wired into the real Claude Code client, proven from what the model received.

Each test runs `lorebook init --harnesses claude` in a fresh git repository that already
has the user's own Claude settings, adds notes with the real CLI, then runs `claude -p`
against our mock model and asserts on the requests the mock recorded.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.e2e.conftest import HELLO_TEXT, ClaudeRunner, describe
from tests.e2e.mock_anthropic import MockAnthropic, all_text, tool_result_texts

pytestmark = pytest.mark.e2e

USER_SETTINGS = {
    "permissions": {"allow": ["Bash(git status:*)"]},
    "env": {"MY_TEAM_FLAG": "1"},
    "hooks": {
        "UserPromptSubmit": [
            {
                "hooks": [
                    {
                        "type": "command",
                        "command": f"{sys.executable} -c \"print('USER_OWN_HOOK_RAN')\"",
                    }
                ]
            }
        ]
    },
}


def lorebook(repo: Path, *args: str) -> str:
    proc = subprocess.run(
        [sys.executable, "-m", "lorebook", *args],
        cwd=repo,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, f"lorebook {' '.join(args)}: {proc.stdout}\n{proc.stderr}"
    return proc.stdout


@pytest.fixture
def wired(e2e_repo: Path) -> Path:
    """The user's own Claude settings and CLAUDE.md, then lorebook wired in."""
    settings = e2e_repo / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps(USER_SETTINGS, indent=2) + "\n")
    (e2e_repo / "CLAUDE.md").write_text("# Team notes\n\nBe brief.\n")
    lorebook(e2e_repo, "init", "--harnesses", "claude")
    return e2e_repo


def add_note(repo: Path, *args: str) -> None:
    lorebook(repo, "note", "add", *args)
    lorebook(repo, "index", "rebuild")


def test_session_start_and_prompt_notes_reach_the_model_and_user_hooks_survive(
    wired: Path, mock_anthropic: MockAnthropic, run_claude: ClaudeRunner
) -> None:
    add_note(wired, "--title", "Run tests with uv run pytest", "--description", "Running the test suite",
             "--kind", "convention", "--body", "NOTE_BODY_UV: never bare pytest here.")  # fmt: skip
    add_note(wired, "--title", "Invoices export to CSV", "--description", "The invoice export",
             "--kind", "feature", "--body", "NOTE_BODY_INVOICES")  # fmt: skip
    proc = run_claude(wired, "how do I run the pytest suite in this repo?")
    requests = mock_anthropic.main_requests()
    assert requests, describe(proc)
    first = all_text(requests[0])
    assert "# Project knowledge base" in first  # ENTRY.md, injected at session start
    assert "- [convention/](nodes/convention/index.md): 1 note." in first
    assert "lorebook status: 2 notes" in first
    assert "NOTE_BODY_UV: never bare pytest here." in first  # the prompt-matched note
    assert "NOTE_BODY_INVOICES" not in first  # the unrelated note is not served
    assert "USER_OWN_HOOK_RAN" in first  # the user's own hook still runs beside ours
    assert "Project knowledge base (lorebook)" in first  # the pointer block in CLAUDE.md
    log = wired / ".lorebook/_logs/hook-errors.log"
    assert not log.exists(), log.read_text()


def test_an_unrelated_prompt_gets_no_note(
    wired: Path, mock_anthropic: MockAnthropic, run_claude: ClaudeRunner
) -> None:
    add_note(wired, "--title", "Run tests with uv run pytest", "--description", "Running the test suite",
             "--kind", "convention", "--body", "NOTE_BODY_UV")  # fmt: skip
    proc = run_claude(wired, "say hi")
    requests = mock_anthropic.main_requests()
    assert requests, describe(proc)
    text = "\n".join(all_text(r) for r in requests)
    assert "# Project knowledge base" in text
    assert "NOTE_BODY_UV" not in text


def test_a_pre_tool_anchored_note_reaches_the_model(
    wired: Path, mock_anthropic: MockAnthropic, run_claude: ClaudeRunner
) -> None:
    add_note(wired, "--title", "Reading files with cat", "--description", "Printing files",
             "--kind", "gotcha", "--anchor-command", r"^cat\b", "--enforce", "warn",
             "--body", "PRETOOL_NOTE_BODY: prefer the Read tool.")  # fmt: skip
    proc = run_claude(wired, "PROBE_TOOL go ahead", "--allowedTools", "Bash(cat:*)")
    requests = mock_anthropic.main_requests()
    assert len(requests) == 2, describe(proc)
    assert "PRETOOL_NOTE_BODY" not in all_text(requests[0])
    after_tool = all_text(requests[1])
    assert "PRETOOL_NOTE_BODY: prefer the Read tool." in after_tool
    assert tool_result_texts(requests[1], last_only=True) == [HELLO_TEXT]  # warn does not block


def test_a_deny_note_stops_the_tool(
    wired: Path, mock_anthropic: MockAnthropic, run_claude: ClaudeRunner
) -> None:
    add_note(wired, "--title", "Never print hello.txt", "--description", "The greeting file",
             "--kind", "prohibition", "--anchor-command", r"hello\.txt", "--enforce", "deny",
             "--body", "It is generated; read the template instead.")  # fmt: skip
    proc = run_claude(wired, "PROBE_TOOL please print hello.txt", "--allowedTools", "Bash(cat:*)")
    requests = mock_anthropic.main_requests()
    assert len(requests) == 2, describe(proc)
    results = tool_result_texts(requests[1], last_only=True)
    assert len(results) == 1
    assert "Never print hello.txt" in results[0]
    assert "read the template instead" in results[0]
    assert HELLO_TEXT not in results[0]


def test_uninstall_removes_exactly_what_init_added(e2e_repo: Path) -> None:
    settings = e2e_repo / ".claude" / "settings.json"
    settings.parent.mkdir()
    original = json.dumps(USER_SETTINGS, indent=2) + "\n"
    settings.write_text(original)
    claude_md = e2e_repo / "CLAUDE.md"
    claude_md.write_text("# Team notes\n\nBe brief.\n")
    lorebook(e2e_repo, "init", "--harnesses", "claude")
    wired_settings = settings.read_text()
    commands = [
        h["command"]
        for group in json.loads(wired_settings)["hooks"]["UserPromptSubmit"]
        for h in group["hooks"]
    ]
    assert any(".lorebook/bin/hook" in c and "claude UserPromptSubmit" in c for c in commands)
    assert any("USER_OWN_HOOK_RAN" in c for c in commands)
    lorebook(e2e_repo, "init", "--harnesses", "claude")
    assert settings.read_text() == wired_settings  # a second run changes no byte
    lorebook(e2e_repo, "uninstall", "--harnesses", "claude")
    assert settings.read_text() == original
    assert claude_md.read_text() == "# Team notes\n\nBe brief.\n"
    assert not (e2e_repo / ".lorebook/bin/hook").exists()


def test_the_warm_hook_process_answers_the_next_session(
    wired: Path, mock_anthropic: MockAnthropic, run_claude: ClaudeRunner
) -> None:
    """The first session's hooks start it; the second session's are answered by it."""
    from lorebook.fastpath.client import socket_path, stop_server

    add_note(wired, "--title", "Run tests with uv run pytest", "--description", "Running the test suite",
             "--kind", "convention", "--body", "NOTE_BODY_UV: never bare pytest here.")  # fmt: skip
    kb_root = wired / ".lorebook"
    on = {"LOREBOOK_HOOK_SERVER": "1"}  # the suite turns it off everywhere else
    try:
        run_claude(wired, "how do I run the pytest suite in this repo?", env=on)
        deadline = time.monotonic() + 30
        while not Path(socket_path(str(kb_root))).exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        proc = run_claude(wired, "how do I run the pytest suite in this repo?", env=on)
    finally:
        stop_server(str(kb_root))
    requests = mock_anthropic.main_requests()
    assert len(requests) == 2, describe(proc)
    second = all_text(requests[1])
    assert "# Project knowledge base" in second  # session start, answered warm
    assert "NOTE_BODY_UV: never bare pytest here." in second  # the prompt, answered warm
    lines = [
        json.loads(line) for line in (kb_root / "_logs/hook-timing.log").read_text().splitlines()
    ]
    warm = {line["event"] for line in lines if line["warm"]}
    assert {"session_start", "prompt"} <= warm, lines
    assert not (kb_root / "_logs/hook-errors.log").exists()
