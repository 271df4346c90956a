"""Capture with the real Claude Code client: the session is staged, redacted, once."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.e2e.conftest import ClaudeRunner, describe
from tests.e2e.mock_anthropic import MockAnthropic
from tests.e2e.staged import staged_log, wait_staged

pytestmark = pytest.mark.e2e

TEACHING = "no, we always use `uv run pytest` here, never bare pytest"
AWS_ID = "AKIAIOSFODNN7EXAMPLE"
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"


def lorebook(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "lorebook", *args],
        cwd=repo,
        capture_output=True,
        text=True,
        check=False,
    )


def _kb_bytes(repo: Path) -> dict[str, bytes]:
    root = repo / ".lorebook"
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def test_a_session_is_staged_redacted_and_a_second_stop_changes_nothing(
    e2e_repo: Path, mock_anthropic: MockAnthropic, run_claude: ClaudeRunner, claude_home: Path
) -> None:
    assert lorebook(e2e_repo, "init", "--harnesses", "claude").returncode == 0
    session = "22222222-3333-4444-8555-666666666666"
    prompt = (
        f"{TEACHING}. Also, my keys are AWS_ACCESS_KEY_ID={AWS_ID} and "
        f"AWS_SECRET_ACCESS_KEY={AWS_SECRET}. <private>my salary is 12345</private> thanks"
    )
    proc = run_claude(e2e_repo, prompt, session_id=session)
    assert mock_anthropic.main_requests(), describe(proc)
    # Staged by the Stop hook, or, when Claude Code had not flushed its transcript yet, by
    # the detached capture its SessionEnd hook starts, which may finish after Claude exits.
    logs = wait_staged(e2e_repo / ".lorebook/_sessions", "*.json")
    assert len(logs) == 1, describe(proc)
    log = staged_log(logs[0])
    assert log["session_id"] == session
    assert log["status"] == "pending"
    users = [t["text"] for t in log["turns"] if t["role"] == "user"]
    assert any(TEACHING in text for text in users)
    everything = b"".join(_kb_bytes(e2e_repo).values())
    assert AWS_ID.encode() not in everything
    assert AWS_SECRET.encode() not in everything
    assert b"my salary" not in everything
    hook_log = e2e_repo / ".lorebook/_logs/hook-errors.log"
    assert not hook_log.exists(), hook_log.read_text()

    extracted = lorebook(e2e_repo, "extract", "--json")
    assert extracted.returncode == 0, extracted.stdout + extracted.stderr
    proposals = json.loads(logs[0].read_text())["proposals"]
    assert any(TEACHING in p["quote"] for p in proposals), proposals
    assert AWS_SECRET not in json.dumps(proposals)

    # Fire Stop as Claude would. The first re-fire may take in records Claude appended after
    # its own Stop (bookkeeping); a second one with the transcript unchanged changes no byte.
    payload = {"session_id": session, "transcript_path": _transcript_of(claude_home, session),
               "cwd": str(e2e_repo), "hook_event_name": "Stop", "stop_hook_active": False}  # fmt: skip
    settings = json.loads((e2e_repo / ".claude/settings.json").read_text())
    command = settings["hooks"]["Stop"][0]["hooks"][0]["command"]

    def stop() -> None:
        env = {"CLAUDE_PROJECT_DIR": str(e2e_repo), "PATH": "/usr/bin:/bin"}
        rerun = subprocess.run(["bash", "-c", command], input=json.dumps(payload), text=True,
                               capture_output=True, cwd=e2e_repo, env=env, check=False)  # fmt: skip
        assert (rerun.returncode, rerun.stdout) == (0, "")

    stop()
    before = _kb_bytes(e2e_repo)
    stop()
    after = _kb_bytes(e2e_repo)
    # Every hook run appends its line to the timing log (that is what it is for); nothing
    # else may change: no turn staged again, no log rewritten.
    changed = sorted(
        k
        for k in after
        if before.get(k) != after[k] and not k.startswith(".state/")
        and k != "_logs/hook-timing.log"
    )  # fmt: skip
    assert changed == []
    assert not hook_log.exists(), hook_log.read_text()


def _transcript_of(home: Path, session: str) -> str:
    found = sorted(home.rglob(f"{session}.jsonl"))
    assert found, f"no transcript for {session} under {home}"
    return str(found[0])
