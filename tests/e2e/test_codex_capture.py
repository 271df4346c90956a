"""Capture with the real Codex CLI: the session is staged redacted, and extraction proposes
its teaching moment."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.e2e.codex_cli import CodexRunner, codex_env, describe
from tests.e2e.mock_responses import MockResponses
from tests.e2e.staged import staged_log

pytestmark = pytest.mark.e2e

TEACHING = "no, we always use `uv run pytest` here, never bare pytest"
AWS_ID = "AKIAIOSFODNN7EXAMPLE"
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"


def lorebook(repo: Path, codex_home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "lorebook", *args], cwd=repo, env=codex_env(codex_home),
                          capture_output=True, text=True, check=False)  # fmt: skip


def test_a_codex_session_is_staged_redacted_and_extracted(
    e2e_repo: Path, codex_home: Path, mock_responses: MockResponses, run_codex: CodexRunner
) -> None:
    assert lorebook(e2e_repo, codex_home, "init", "--harnesses", "codex").returncode == 0
    prompt = (
        f"{TEACHING}. My keys: AWS_ACCESS_KEY_ID={AWS_ID} AWS_SECRET_ACCESS_KEY={AWS_SECRET}. "
        "<private>my salary is 12345</private> thanks"
    )
    proc = run_codex(e2e_repo, prompt)
    assert mock_responses.main_requests(), describe(proc)
    logs = sorted((e2e_repo / ".lorebook/_sessions").glob("codex-*.json"))
    assert len(logs) == 1, describe(proc)
    log = staged_log(logs[0])
    assert any(TEACHING in t["text"] for t in log["turns"] if t["role"] == "user")
    root = e2e_repo / ".lorebook"
    everything = b"".join(p.read_bytes() for p in root.rglob("*") if p.is_file())
    assert AWS_ID.encode() not in everything
    assert AWS_SECRET.encode() not in everything
    assert b"my salary" not in everything
    extracted = lorebook(e2e_repo, codex_home, "extract", "--json")
    assert extracted.returncode == 0, extracted.stdout + extracted.stderr
    proposals = json.loads(logs[0].read_text())["proposals"]
    assert any(TEACHING in p["quote"] for p in proposals), proposals
    hook_log = root / "_logs/hook-errors.log"
    assert not hook_log.exists(), hook_log.read_text()
