"""A fresh clone of a repository wired on another machine: doctor says what is missing,
the hooks stay quiet, and one `lorebook init` gives working hooks."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from lorebook.testing import FakeHost
from lorebook_claude.harness import ClaudeHarness


def _lorebook(repo: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(
        [sys.executable, "-m", "lorebook", *args],
        cwd=repo,
        capture_output=True,
        text=True,
        check=False,
    )
    if check:
        assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


def test_fresh_clone_gets_working_hooks_after_one_init(tmp_path: Path, lorebook_home: Path) -> None:
    origin = tmp_path / "origin"
    origin.mkdir()
    _git(origin, "init", "-q")
    _lorebook(origin, "init", "--harnesses", "claude")
    _lorebook(origin, "note", "add", "--title", "Run tests with uv run pytest", "--description",
              "Running the test suite", "--kind", "convention", "--body", "Never bare pytest.")  # fmt: skip
    _lorebook(origin, "index", "rebuild")
    _git(origin, "add", "-A")
    _git(origin, "commit", "-qm", "wire lorebook")
    committed = subprocess.run(
        ["git", "ls-files"], cwd=origin, capture_output=True, text=True, check=True
    ).stdout
    assert ".lorebook/bin/hook" not in committed  # the launcher is per machine
    assert ".claude/settings.json" in committed

    clone = tmp_path / "clone"
    _git(tmp_path, "clone", "-q", str(origin), str(clone))
    doctor = _lorebook(clone, "doctor", "--json", check=False)
    assert doctor.returncode == 1
    checks = {c["name"]: c for c in json.loads(doctor.stdout)["checks"]}
    assert checks["hook launcher"]["state"] == "problem"
    assert "missing on this machine" in checks["hook launcher"]["detail"]
    assert "lorebook init" in checks["hook launcher"]["fix"]

    host = FakeHost(clone, ClaudeHarness())
    prompt = {"session_id": "s1", "cwd": str(clone), "hook_event_name": "UserPromptSubmit",
              "transcript_path": "/dev/null", "prompt": "how do I run pytest here?"}  # fmt: skip
    quiet = host.fire("UserPromptSubmit", prompt)
    assert (quiet.exit_code, quiet.stdout, quiet.stderr) == (0, "", "")

    _lorebook(clone, "init")
    start = host.fire(
        "SessionStart", {**prompt, "hook_event_name": "SessionStart", "source": "startup"}
    )
    assert "# Project knowledge base" in start.json()["hookSpecificOutput"]["additionalContext"]
    run = host.fire("UserPromptSubmit", prompt)
    assert "Never bare pytest." in run.json()["hookSpecificOutput"]["additionalContext"]
    assert _lorebook(clone, "doctor").returncode == 0
    assert (
        subprocess.run(
            ["git", "status", "--porcelain"], cwd=clone, capture_output=True, text=True, check=True
        ).stdout
        == ""
    )
