"""The resume brief and ``lorebook mark`` with the real Claude Code client.

* Resume: a first session writes a file and leaves it uncommitted; the second session on
  the same branch gets the brief (what was asked, the file) in its first request; a session
  in a fresh clone of the same repository gets none.
* Mark: the mock model runs ``lorebook mark --kind gotcha ...`` as a Bash tool call; the
  proposal lands in that session's staged log with its session and turn, and
  ``extract`` + ``curate`` turn it into a note.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import git
from tests.e2e.conftest import ClaudeRunner, describe
from tests.e2e.mock_anthropic import MockAnthropic, Reply, all_text
from tests.e2e.staged import staged_log

pytestmark = pytest.mark.e2e

EDIT_PROMPT = "EDIT_CASE start the greeting feature in notes.txt"
MARK_TEXT = "The billing export runs in UTC; never pass a local timezone to export_invoices()"


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


def _calls(request: dict[str, Any]) -> int:
    return sum(
        1
        for message in request.get("messages") or []
        if message.get("role") == "assistant" and isinstance(message.get("content"), list)
        for block in message["content"]
        if isinstance(block, dict) and block.get("type") == "tool_use"
    )


def test_the_second_session_gets_the_resume_brief_and_a_fresh_clone_does_not(
    e2e_repo: Path, mock_anthropic: MockAnthropic, run_claude: ClaudeRunner, tmp_path: Path
) -> None:
    lorebook(e2e_repo, "init", "--harnesses", "claude")
    git(e2e_repo, "add", "-A")
    git(e2e_repo, "commit", "-q", "-m", "lorebook")
    notes = str(e2e_repo / "notes.txt")

    def responder(request: dict[str, Any]) -> Reply | None:
        text = all_text(request)
        if "EDIT_CASE" not in text or "lorebook resume:" in text or not request.get("tools"):
            return None  # (the brief of a later session quotes the prompt)
        if _calls(request) == 0:
            return Reply.call_tool("Write", {"file_path": notes, "content": "hello\n"})
        return Reply.say("I wrote the first line; the rest is still to do.")

    mock_anthropic.responder = responder
    proc = run_claude(e2e_repo, EDIT_PROMPT, "--allowedTools", "Write")
    assert (e2e_repo / "notes.txt").exists(), describe(proc)
    first_session = "\n".join(all_text(r) for r in mock_anthropic.main_requests())
    assert "lorebook resume:" not in first_session

    mock_anthropic.clear()
    proc = run_claude(e2e_repo, "say hi")
    (request, *_) = mock_anthropic.main_requests()
    text = all_text(request)
    assert "lorebook resume: the last session on branch main" in text, describe(proc)
    assert EDIT_PROMPT in text
    assert "notes.txt (uncommitted)" in text

    mock_anthropic.clear()
    proc = run_claude(e2e_repo, "say hi again")
    assert "lorebook resume:" not in all_text(mock_anthropic.main_requests()[0])  # given once

    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(e2e_repo), str(clone))
    lorebook(clone, "init", "--harnesses", "claude")
    mock_anthropic.clear()
    proc = run_claude(clone, "say hi")
    (request, *_) = mock_anthropic.main_requests()
    assert "# Project knowledge base" in all_text(request), describe(proc)
    assert "lorebook resume:" not in all_text(request)


def test_mark_from_inside_a_session_stages_a_proposal_that_curate_turns_into_a_note(
    e2e_repo: Path, mock_anthropic: MockAnthropic, run_claude: ClaudeRunner
) -> None:
    lorebook(e2e_repo, "init", "--harnesses", "claude")
    command = f'lorebook mark --kind gotcha "{MARK_TEXT}" --anchor-file "billing/*.py"'

    def responder(request: dict[str, Any]) -> Reply | None:
        if "MARK_CASE" not in all_text(request) or not request.get("tools"):
            return None
        if _calls(request) == 0:
            return Reply.call_tool("Bash", {"command": command})
        return Reply.say("Marked it for curation.")

    mock_anthropic.responder = responder
    session = "33333333-4444-4555-8666-777777777777"
    bin_dir = str(Path(sys.executable).parent)
    env = {"PATH": bin_dir + os.pathsep + os.environ.get("PATH", "")}
    proc = run_claude(e2e_repo, "MARK_CASE remember the billing timezone rule",
                      "--allowedTools", "Bash(lorebook mark:*)", session_id=session, env=env)  # fmt: skip
    requests = mock_anthropic.main_requests()
    assert "staged proposal" in all_text(requests[-1]), describe(proc)
    (log_file,) = (e2e_repo / ".lorebook/_sessions").glob("claude-*.json")
    log = staged_log(log_file)
    (proposal,) = [p for p in log["proposals"] if p["extractor"] == "mark"]
    harness, marked_session, turn = proposal["origin"].split(":")
    assert (harness, marked_session) == ("claude", session)
    tool_turns = [t["index"] for t in log["turns"] if any("lorebook mark" in
                  json.dumps(c["input"]) for c in t["tool_calls"])]  # fmt: skip
    assert int(turn) in tool_turns
    assert proposal["anchors"]["files"] == ["billing/*.py"]
    assert not list((e2e_repo / ".lorebook/nodes").rglob("*billing*"))  # never a note directly

    lorebook(e2e_repo, "extract")
    lorebook(e2e_repo, "curate")
    notes = json.loads(lorebook(e2e_repo, "note", "list", "--json"))
    rows = notes["notes"] if isinstance(notes, dict) else notes
    (note,) = [n for n in rows if "billing export runs in UTC" in json.dumps(n)]
    assert note.get("kind", note.get("lb_kind")) == "gotcha"
