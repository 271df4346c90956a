"""Review before power, with the real Claude Code client: a deny rule no person has
reviewed reaches the model labelled "unreviewed" and lets the command run; once a person
runs `lorebook review --accept`, the same rule denies it. Proven from the requests the
mock model received (the tool's result is what the model saw)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from lorebook import reviewstate
from tests.e2e.conftest import HELLO_TEXT, ClaudeRunner, describe
from tests.e2e.mock_anthropic import MockAnthropic, all_text, tool_result_texts

pytestmark = pytest.mark.e2e

NOTE_ID = "prohibition-never-print-hello-txt"
LABEL = "lorebook: notes no person has reviewed yet"
"""The heading the unreviewed notes' pointers stand under (inject.served.UNREVIEWED_HEADER)."""


def lorebook(repo: Path, *args: str) -> str:
    proc = subprocess.run([sys.executable, "-m", "lorebook", *args], cwd=repo,
                          capture_output=True, text=True, check=False)  # fmt: skip
    assert proc.returncode == 0, f"lorebook {' '.join(args)}: {proc.stdout}\n{proc.stderr}"
    return proc.stdout


@pytest.fixture
def unreviewed_deny(e2e_repo: Path) -> Path:
    """A deny rule in the state curation leaves it: written, listed as unreviewed."""
    lorebook(e2e_repo, "init", "--harnesses", "claude")
    lorebook(e2e_repo, "note", "add", "--title", "Never print hello.txt", "--description",
             "The greeting file", "--kind", "prohibition", "--anchor-command", r"hello\.txt",
             "--enforce", "deny", "--body", "It is generated; read the template instead.",
             "--folder", "files")  # fmt: skip
    reviewstate.mark(str(e2e_repo / ".lorebook"), {NOTE_ID: f"files/{NOTE_ID}.md"})
    return e2e_repo


def test_an_unreviewed_deny_rule_is_labelled_and_cannot_deny_until_accepted(
    unreviewed_deny: Path, mock_anthropic: MockAnthropic, run_claude: ClaudeRunner
) -> None:
    prompt = "PROBE_TOOL please print hello.txt"
    proc = run_claude(unreviewed_deny, prompt, "--allowedTools", "Bash(cat:*)")
    requests = mock_anthropic.main_requests()
    assert len(requests) == 2, describe(proc)
    (ran,) = tool_result_texts(requests[1], last_only=True)
    assert ran.startswith(HELLO_TEXT)  # it ran (newer clients append reminders after it)
    seen = all_text(requests[1])
    assert "Never print hello.txt" in seen
    assert LABEL in seen

    assert NOTE_ID in lorebook(unreviewed_deny, "review", "--accept", NOTE_ID)
    mock_anthropic.clear()
    proc = run_claude(unreviewed_deny, prompt, "--allowedTools", "Bash(cat:*)")
    requests = mock_anthropic.main_requests()
    assert len(requests) == 2, describe(proc)
    results = tool_result_texts(requests[1], last_only=True)
    assert len(results) == 1
    assert "Never print hello.txt" in results[0]
    assert "read the template instead" in results[0]
    assert HELLO_TEXT not in results[0]  # denied: the file was never printed
    assert LABEL not in all_text(requests[1])
    log = unreviewed_deny / ".lorebook/_logs/hook-errors.log"
    assert not log.exists(), log.read_text()
