"""``lorebook stats`` on sessions of the real Claude Code client: quoted, obeyed, ignored.

Three sessions run against the mock model in one repository with three notes: the model
quotes the dependency note after it is injected at the prompt; it runs the command the
deploy note forbids, gets the note at pre-tool, then runs the allowed one; and it ignores
the dependency note in the third. The Stop hook stages each session; ``stats`` must
attribute the first two and not the third. With ``LOREBOOK_RECORD_STATS=<dir>`` the
transcripts are copied there (``tests/fixtures/stats/`` holds the ones the replay test uses).
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
from tests.e2e.conftest import ClaudeRunner, describe
from tests.e2e.mock_anthropic import MockAnthropic, Reply, all_text

pytestmark = pytest.mark.e2e


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


def responder(request: dict[str, Any]) -> Reply | None:
    calls = sum(
        1
        for message in request.get("messages") or []
        if message.get("role") == "assistant" and isinstance(message.get("content"), list)
        for block in message["content"]
        if isinstance(block, dict) and block.get("type") == "tool_use"
    )
    step = sc.scripted(all_text(request), calls)
    if step is None or not request.get("tools"):
        return None
    kind, text = step
    return Reply.say(text) if kind == "say" else Reply.call_tool("Bash", {"command": text})


def wire(repo: Path) -> None:
    lorebook(repo, "init", "--harnesses", "claude")
    for note in (sc.UV_NOTE, sc.DEPLOY_NOTE, sc.UNUSED_NOTE):
        lorebook(repo, "note", "add", *note)
    lorebook(repo, "index", "rebuild")


def test_stats_attributes_the_quote_and_the_obeyed_rule_not_the_ignored_note(
    e2e_repo: Path, mock_anthropic: MockAnthropic, run_claude: ClaudeRunner, claude_home: Path
) -> None:
    wire(e2e_repo)
    mock_anthropic.responder = responder
    allowed = ("--allowedTools", "Bash(./deploy.sh:*)", "Bash(make:*)")
    for prompt in (sc.QUOTE_PROMPT, sc.OBEY_PROMPT, sc.IGNORE_PROMPT):
        proc = run_claude(e2e_repo, prompt, *allowed)
        assert "lorebook" in "\n".join(all_text(r) for r in mock_anthropic.main_requests()), (
            describe(proc)
        )
    report = json.loads(lorebook(e2e_repo, "stats", "--json"))
    notes = {row["note"]: row for row in report["notes"]}
    uv, deploy = notes[sc.UV_NOTE_ID], notes[sc.DEPLOY_NOTE_ID]
    assert report["sessions"] == 3
    assert (uv["injected"], uv["used"], uv["used_high"]) == (2, 1, 1), report
    assert uv["signals"].get("quoted") == 1
    assert deploy["used"] >= 1, report
    assert deploy["signals"].get("obeyed", 0) >= 1, report
    assert sc.UNUSED_NOTE_ID in report["never_injected"]
    events = {row["event"]: row for row in report["events"]}
    assert events["prompt"]["injections"] == 2
    assert events["pre_tool"]["notes_used"] >= 1
    assert {row["event"] for row in report["latency"]} >= {"session_start", "prompt", "stop"}
    usage = json.loads((e2e_repo / ".lorebook/.cache/usage.json").read_text())
    assert sum(c[sc.UV_NOTE_ID][0] for c in usage["sessions"].values() if sc.UV_NOTE_ID in c) == 2
    target = os.environ.get("LOREBOOK_RECORD_STATS")
    if target:
        out = Path(target) / "claude"
        out.mkdir(parents=True, exist_ok=True)
        for found in sorted(claude_home.rglob("*.jsonl")):
            if "subagents" not in found.parts:
                shutil.copy(found, out / found.name)
