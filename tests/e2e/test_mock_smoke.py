"""The e2e harness itself, with no lorebook involved: real Claude Code against our mock."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.e2e.conftest import HELLO_TEXT, ClaudeRunner, describe, result_event
from tests.e2e.mock_anthropic import (
    MockAnthropic,
    all_text,
    last_user_text,
    tool_result_texts,
)

pytestmark = pytest.mark.e2e


def test_prompt_reaches_the_mock_and_its_answer_reaches_the_output(
    e2e_repo: Path, mock_anthropic: MockAnthropic, run_claude: ClaudeRunner
) -> None:
    mock_anthropic.reply_text = "mock says ok"

    proc = run_claude(e2e_repo, "say hi")

    main = mock_anthropic.main_requests()
    assert main, f"the mock received no agent request\n{describe(proc)}"
    assert "say hi" in last_user_text(main[0])
    assert main[0]["stream"] is True
    assert result_event(proc)["result"] == "mock says ok"


def test_scripted_tool_call_runs_and_its_result_goes_back(
    e2e_repo: Path, mock_anthropic: MockAnthropic, run_claude: ClaudeRunner
) -> None:
    proc = run_claude(
        e2e_repo, "PROBE_TOOL please print hello.txt", "--allowedTools", "Bash(cat:*)"
    )

    main = mock_anthropic.main_requests()
    assert len(main) == 2, describe(proc)
    assert tool_result_texts(main[0]) == []
    assert tool_result_texts(main[1], last_only=True) == [HELLO_TEXT]
    assert result_event(proc)["result"] == f"done: {HELLO_TEXT}"


def test_user_prompt_submit_hook_context_reaches_the_model(
    e2e_repo: Path, mock_anthropic: MockAnthropic, run_claude: ClaudeRunner
) -> None:
    hooks = e2e_repo / ".claude" / "hooks"
    hooks.mkdir(parents=True)
    output = {
        "hookSpecificOutput": {
            "hookEventName": "UserPromptSubmit",
            "additionalContext": "E2E_MARKER_123",
        }
    }
    (hooks / "inject.py").write_text(
        f"import sys\nsys.stdin.read()\nprint({json.dumps(json.dumps(output))})\n",
        encoding="utf-8",
    )
    command = f'"{sys.executable}" "$CLAUDE_PROJECT_DIR/.claude/hooks/inject.py"'
    settings = {
        "hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": command}]}]}
    }
    (e2e_repo / ".claude" / "settings.json").write_text(json.dumps(settings), encoding="utf-8")

    proc = run_claude(e2e_repo, "say hi")

    main = mock_anthropic.main_requests()
    assert main, describe(proc)
    assert "E2E_MARKER_123" in all_text(main[0]), describe(proc)
    # The hook's context travels in the same user message as the prompt.
    assert "E2E_MARKER_123" in last_user_text(main[0])
