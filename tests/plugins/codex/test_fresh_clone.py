"""A fresh clone of a repository wired for Codex on another machine: doctor says what is
missing (the launcher, and Codex's trust on this machine), the hooks stay quiet, and one
`lorebook init` plus a person's trust gives working hooks."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from lorebook.testing import FakeHost
from lorebook_codex.harness import CodexHarness


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


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=repo, check=True, capture_output=True, text=True
    ).stdout


def _doctor(repo: Path) -> tuple[int, dict[str, dict[str, str]]]:
    proc = _lorebook(repo, "doctor", "--json", check=False)
    return proc.returncode, {c["name"]: c for c in json.loads(proc.stdout)["checks"]}


def test_fresh_clone_gets_working_hooks_after_init_and_trust(
    tmp_path: Path, lorebook_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    codex_home = tmp_path / "codexhome"
    codex_home.mkdir()
    monkeypatch.setenv("CODEX_HOME", str(codex_home))
    origin = tmp_path / "origin"
    origin.mkdir()
    _git(origin, "init", "-q")
    _lorebook(origin, "init", "--harnesses", "codex")
    _lorebook(origin, "note", "add", "--title", "Run tests with uv run pytest", "--description",
              "Running the test suite", "--kind", "convention", "--body", "Never bare pytest.")  # fmt: skip
    _lorebook(origin, "index", "rebuild")
    _git(origin, "add", "-A")
    _git(origin, "commit", "-qm", "wire lorebook")
    committed = _git(origin, "ls-files")
    assert ".lorebook/bin/hook" not in committed  # the launcher is per machine
    assert ".codex/hooks.json" in committed
    assert "AGENTS.md" in committed

    clone = tmp_path / "clone"
    _git(tmp_path, "clone", "-q", str(origin), str(clone))
    code, checks = _doctor(clone)
    assert code == 1
    assert checks["hook launcher"]["state"] == "problem"
    assert "missing on this machine" in checks["hook launcher"]["detail"]
    hook = checks["codex: Codex hook UserPromptSubmit in .codex/hooks.json"]
    assert (hook["state"], hook["detail"]) == ("action", "unknown")  # Codex never ran here
    assert "CODEX_HOME" in hook["fix"]

    host = FakeHost(clone, CodexHarness())
    prompt = {"session_id": "s1", "cwd": str(clone), "hook_event_name": "UserPromptSubmit",
              "transcript_path": None, "prompt": "how do I run pytest here?", "turn_id": "t"}  # fmt: skip
    quiet = host.fire("UserPromptSubmit", prompt)
    assert (quiet.exit_code, quiet.stdout, quiet.stderr) == (0, "", "")

    _lorebook(clone, "init")
    sub = clone / "docs" / "deep"
    sub.mkdir(parents=True)
    host = FakeHost(sub, CodexHarness())  # Codex runs hooks in the session's folder,
    host.commands = CodexHarness().hook_commands(clone)  # with the repository's hooks.json
    start = host.fire(
        "SessionStart", {**prompt, "hook_event_name": "SessionStart", "source": "startup"}
    )
    assert "# Project knowledge base" in start.json()["hookSpecificOutput"]["additionalContext"]
    run = host.fire("UserPromptSubmit", {**prompt, "cwd": str(sub)})
    assert "Never bare pytest." in run.json()["hookSpecificOutput"]["additionalContext"]

    # Codex itself would still skip the hooks: nobody on this machine trusted them.
    (codex_home / "config.toml").write_text(
        f'[projects."{os.path.realpath(clone)}"]\ntrust_level = "trusted"\n', encoding="utf-8"
    )
    code, checks = _doctor(clone)
    assert code == 0  # a step only the user can take: "action needed", not a failure
    hook = checks["codex: Codex hook UserPromptSubmit in .codex/hooks.json"]
    assert (hook["state"], hook["detail"]) == ("action", "untrusted")
    assert "Trust all and continue" in hook["fix"]
    with (codex_home / "config.toml").open("a", encoding="utf-8") as handle:
        handle.write("\n" + CodexHarness().trust_toml(clone))  # what /hooks writes
    assert _lorebook(clone, "doctor").returncode == 0
    assert _git(clone, "status", "--porcelain") == ""
