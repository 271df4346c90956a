"""``lorebook stats`` on sessions of the real Codex CLI: quoted, obeyed, ignored.

The same three sessions as ``test_claude_stats`` (``stats_scenario``), run through
``codex exec`` against the mock Responses API; the Stop hook stages each one. With
``LOREBOOK_RECORD_STATS=<dir>`` the rollouts are copied there for the replay test.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.e2e import stats_scenario as sc
from tests.e2e.codex_cli import CodexRunner, codex_env, describe
from tests.e2e.mock_responses import MockResponses, Reply, all_text, function_calls

pytestmark = pytest.mark.e2e


def lorebook(repo: Path, codex_home: Path, *args: str) -> str:
    proc = subprocess.run(
        [sys.executable, "-m", "lorebook", *args],
        cwd=repo,
        env=codex_env(codex_home),
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, f"lorebook {' '.join(args)}: {proc.stdout}\n{proc.stderr}"
    return proc.stdout


def responder(request: dict[str, Any]) -> Reply | None:
    if not request.get("tools"):
        return None
    step = sc.scripted(all_text(request), len(function_calls(request)))
    if step is None:
        return None
    kind, text = step
    return Reply.say(text) if kind == "say" else Reply.call_function("exec_command", {"cmd": text})


def test_stats_attributes_the_quote_and_the_obeyed_rule_not_the_ignored_note(
    e2e_repo: Path, mock_responses: MockResponses, run_codex: CodexRunner, codex_home: Path
) -> None:
    lorebook(e2e_repo, codex_home, "init", "--harnesses", "codex")
    for note in (sc.UV_NOTE, sc.DEPLOY_NOTE, sc.UNUSED_NOTE):
        lorebook(e2e_repo, codex_home, "note", "add", *note)
    lorebook(e2e_repo, codex_home, "index", "rebuild")
    mock_responses.responder = responder
    for prompt in (sc.QUOTE_PROMPT, sc.OBEY_PROMPT, sc.IGNORE_PROMPT):
        proc = run_codex(e2e_repo, prompt)
        assert mock_responses.main_requests(), describe(proc)
    report = json.loads(lorebook(e2e_repo, codex_home, "stats", "--json"))
    notes = {row["note"]: row for row in report["notes"]}
    uv, deploy = notes[sc.UV_NOTE_ID], notes[sc.DEPLOY_NOTE_ID]
    assert report["sessions"] == 3, report
    assert (uv["injected"], uv["used"], uv["used_high"]) == (2, 1, 1), report
    assert uv["signals"].get("quoted") == 1
    assert deploy["signals"].get("obeyed", 0) >= 1, report
    assert sc.UNUSED_NOTE_ID in report["never_injected"]
    assert {row["event"] for row in report["latency"]} >= {"session_start", "prompt", "pre_tool"}
    target = os.environ.get("LOREBOOK_RECORD_STATS")
    if target:
        out = Path(target) / "codex"
        out.mkdir(parents=True, exist_ok=True)
        for found in sorted((codex_home / "sessions").rglob("rollout-*.jsonl")):
            shutil.copy(found, out / found.name)
