"""A nudge for the person reaches the real Claude Code client, once an hour at most.

With 25 captured sessions waiting for extraction and curation (past the default
``nudges.waiting_sessions`` of 20), the first session's start asks the model to tell the
person, in one line, naming the commands; a second session within the hour is not asked.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from lorebook.capture.stage import log_path, write_log
from lorebook.kb.paths import KBPaths
from lorebook.models.session import SessionLog
from tests.e2e.conftest import ClaudeRunner, describe
from tests.e2e.mock_anthropic import MockAnthropic, all_text
from tests.e2e.test_claude_lorebook import add_note, wired

pytestmark = pytest.mark.e2e
__all__ = ["wired"]  # the fixture, used by name

TELL = "lorebook asks you to tell the person, in one line"


def stage_waiting(repo: Path, count: int) -> None:
    """Stage ``count`` captured sessions that wait for extraction, as capture writes them."""
    paths = KBPaths.for_repo(repo)
    for i in range(count):
        session = f"earlier-{i}"
        log = SessionLog(harness="claude", session_id=session, origin=f"claude:{session}",
                         transcript_hash=f"sha256:{i:064x}", transcript_length=10)  # fmt: skip
        write_log(log_path(paths, "claude", session), log)


def test_waiting_sessions_are_told_to_the_person_once_an_hour(
    wired: Path, mock_anthropic: MockAnthropic, run_claude: ClaudeRunner
) -> None:
    add_note(wired, "--title", "Run tests with uv run pytest", "--description", "Running the test suite",
             "--kind", "convention", "--body", "NOTE_BODY_UV")  # fmt: skip
    stage_waiting(wired, 25)
    proc = run_claude(wired, "say hi")
    requests = mock_anthropic.main_requests()
    assert requests, describe(proc)
    first = all_text(requests[0])
    assert "# Project knowledge base" in first
    asked = [line for line in first.splitlines() if TELL in line]
    assert len(asked) == 1, first
    assert "25 captured sessions wait to become notes" in asked[0]
    assert "`lorebook extract`, then `lorebook curate`" in asked[0]

    seen = len(requests)
    proc = run_claude(wired, "say hi again")
    requests = mock_anthropic.main_requests()[seen:]
    assert requests, describe(proc)
    second = all_text(requests[0])
    assert "# Project knowledge base" in second  # the session start still served
    assert TELL not in second  # within the hour: not asked again
    assert "captured sessions wait" not in second
    log = wired / ".lorebook/_logs/hook-errors.log"
    assert not log.exists(), log.read_text()
