"""Validity and corrections reach the model through the real Claude Code and Codex clients.

A note whose dependency was edited arrives marked "recheck", and a refuted note that
matches the prompt arrives as a warning ("this was tried and is wrong: ... (refuted: ...)"),
never as a rule: both proven from the requests the mock model received.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.e2e.clients import describe
from tests.e2e.codex_cli import CodexRunner, codex_env
from tests.e2e.conftest import ClaudeRunner
from tests.e2e.mock_anthropic import MockAnthropic, all_text
from tests.e2e.mock_responses import MockResponses, all_text as codex_text

pytestmark = pytest.mark.e2e

PROMPT = "how large is the billing database pool, and should I retry flaky billing jobs?"


def lorebook(repo: Path, *args: str, env: dict[str, str] | None = None) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "lorebook", *args],
        cwd=repo, env=env, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert proc.returncode == 0, f"lorebook {' '.join(args)}: {proc.stdout}\n{proc.stderr}"


def prepare(repo: Path, env: dict[str, str] | None = None) -> None:
    """A note resting on src/billing/db.py (then edited) and a refuted one."""
    source = repo / "src" / "billing" / "db.py"
    source.parent.mkdir(parents=True)
    source.write_text("POOL_SIZE = 5\n", encoding="utf-8")
    lorebook(repo, "note", "add", "--title", "Billing database pool size",
             "--description", "How large the billing database pool is",
             "--body", "VALIDITY_BODY: the billing database pool holds five connections.",
             "--kind", "gotcha", "--depends-on-file", "src/billing/db.py", env=env)  # fmt: skip
    lorebook(repo, "note", "add", "--id", "practice-retry-flaky-billing-jobs",
             "--title", "Retry flaky billing jobs with a sleep",
             "--description", "When billing jobs fail intermittently",
             "--body", "REFUTED_BODY: sleep 5, then retry.", "--kind", "gotcha", env=env)  # fmt: skip
    lorebook(repo, "note", "refute", "practice-retry-flaky-billing-jobs",
             "--why", "the sleep hid a race in the billing queue", env=env)  # fmt: skip
    source.write_text("POOL_SIZE = 50\n", encoding="utf-8")  # the claim's evidence changed


def assert_marked_and_warned(text: str) -> None:
    assert "VALIDITY_BODY" in text
    assert "recheck: `src/billing/db.py` changed since this was written" in text
    assert (
        "this was tried and is wrong: Retry flaky billing jobs with a sleep: When billing jobs "
        "fail intermittently (refuted: the sleep hid a race in the billing queue; see "
    ) in text
    assert "REFUTED_BODY" not in text  # never served as a fact to follow


def test_claude_code_gets_the_recheck_mark_and_the_refuted_warning(
    e2e_repo: Path, mock_anthropic: MockAnthropic, run_claude: ClaudeRunner
) -> None:
    lorebook(e2e_repo, "init", "--harnesses", "claude")
    prepare(e2e_repo)
    proc = run_claude(e2e_repo, PROMPT)
    requests = mock_anthropic.main_requests()
    assert requests, describe(proc)
    assert_marked_and_warned(all_text(requests[0]))
    log = e2e_repo / ".lorebook/_logs/hook-errors.log"
    assert not log.exists(), log.read_text()


def test_codex_gets_the_recheck_mark_and_the_refuted_warning(
    e2e_repo: Path, codex_home: Path, mock_responses: MockResponses, run_codex: CodexRunner
) -> None:
    env = codex_env(codex_home)
    lorebook(e2e_repo, "init", "--harnesses", "codex", env=env)
    prepare(e2e_repo, env)
    proc = run_codex(e2e_repo, PROMPT)
    requests = mock_responses.main_requests()
    assert requests, describe(proc)
    assert_marked_and_warned(codex_text(requests[0]))
    log = e2e_repo / ".lorebook/_logs/hook-errors.log"
    assert not log.exists(), log.read_text()
