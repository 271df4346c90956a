"""The Codex e2e harness itself, with no lorebook involved: real Codex CLI against our mock."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.e2e.codex_cli import CodexRunner, completed_items, describe, final_message, thread_id
from tests.e2e.conftest import HELLO_TEXT
from tests.e2e.mock_responses import (
    MockResponses,
    all_text,
    developer_texts,
    exec_output,
    function_call_outputs,
    function_calls,
    last_user_text,
    request_kind,
)

pytestmark = pytest.mark.e2e


def test_prompt_reaches_the_mock_and_its_answer_reaches_the_output(
    e2e_repo: Path, mock_responses: MockResponses, run_codex: CodexRunner
) -> None:
    mock_responses.reply_text = "mock says ok"

    proc = run_codex(e2e_repo, "say hi")

    main = mock_responses.main_requests()
    assert len(main) == 1, f"expected one agent request\n{describe(proc)}"
    assert last_user_text(main[0]) == "say hi"
    assert main[0]["stream"] is True
    assert main[0]["model"] == "mock-model"
    assert mock_responses.side_requests() == []
    assert final_message(proc) == "mock says ok"
    # Codex's own instructions travel as the first developer message.
    assert "Codex CLI" in developer_texts(main[0])[0]


def test_scripted_tool_call_runs_and_its_result_goes_back(
    e2e_repo: Path, mock_responses: MockResponses, run_codex: CodexRunner
) -> None:
    proc = run_codex(e2e_repo, "PROBE_TOOL please print hello.txt")

    main = mock_responses.main_requests()
    assert len(main) == 2, describe(proc)
    assert function_call_outputs(main[0]) == []
    assert function_calls(main[1]) == [("exec_command", {"cmd": "cat hello.txt"})]
    outputs = function_call_outputs(main[1], last_only=True)
    assert [exec_output(o) for o in outputs] == [HELLO_TEXT], outputs
    assert "Process exited with code 0" in outputs[0]
    (command,) = completed_items(proc, "command_execution")
    assert command["exit_code"] == 0
    assert "cat hello.txt" in command["command"]
    assert final_message(proc).startswith("done: ")
    assert final_message(proc).endswith(HELLO_TEXT)


def test_user_prompt_submit_hook_context_reaches_the_model(
    e2e_repo: Path, mock_responses: MockResponses, run_codex: CodexRunner
) -> None:
    hooks = e2e_repo / ".codex" / "hooks"
    hooks.mkdir(parents=True)
    output = {
        "hookSpecificOutput": {
            "hookEventName": "UserPromptSubmit",
            "additionalContext": "E2E_CODEX_MARKER",
        }
    }
    (hooks / "inject.py").write_text(
        f"import sys\nsys.stdin.read()\nprint({json.dumps(json.dumps(output))})\n",
        encoding="utf-8",
    )
    # Codex runs hooks in the session's cwd (the project root) and sets no project variable.
    command = f'"{sys.executable}" .codex/hooks/inject.py'
    config = {"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": command}]}]}}
    (e2e_repo / ".codex" / "hooks.json").write_text(json.dumps(config), encoding="utf-8")

    proc = run_codex(e2e_repo, "say hi")

    main = mock_responses.main_requests()
    assert len(main) == 1, describe(proc)
    assert "E2E_CODEX_MARKER" in all_text(main[0]), describe(proc)
    # The hook's context is a developer message of its own, right after the prompt.
    assert developer_texts(main[0])[-1] == "E2E_CODEX_MARKER"
    assert main[0]["input"][-1]["role"] == "developer"
    assert last_user_text(main[0]) == "say hi"


def test_resume_last_continues_the_session_and_compaction_is_a_side_request(
    e2e_repo: Path, mock_responses: MockResponses, run_codex: CodexRunner
) -> None:
    first = run_codex(e2e_repo, "say hi")
    mock_responses.clear()

    proc = run_codex(
        e2e_repo, "say hi again", "-c", "model_auto_compact_token_limit=1", resume_last=True
    )

    assert thread_id(proc) == thread_id(first)
    (compaction,) = mock_responses.side_requests()
    assert request_kind(compaction) == "compaction"
    assert compaction.get("tools") == []
    assert "say hi" in all_text(compaction)  # the history it summarises
    main = mock_responses.main_requests()
    assert len(main) == 1, describe(proc)
    assert last_user_text(main[0]) == "say hi again"
    assert final_message(proc) == "ok"
