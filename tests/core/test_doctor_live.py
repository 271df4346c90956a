"""``lorebook doctor --live``: a canary through every installed hook, as the host runs it."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from lorebook.canary import CANARY_SESSION
from lorebook.initialize import init_repo
from tests.conftest import CliRunner

CLAUDE_EVENTS = ("PostToolUse", "PostToolUseFailure", "PreCompact", "PreToolUse",
                 "SessionEnd", "SessionStart", "Stop", "UserPromptSubmit")  # fmt: skip


@pytest.fixture
def claude_repo(kb_repo: Path) -> Path:
    init_repo(kb_repo, ["claude"])
    return kb_repo


def _live(claude_repo: Path, cli: CliRunner) -> tuple[int, dict[str, dict[str, str]]]:
    result = cli("doctor", "--live", "--json", cwd=claude_repo)
    checks = {
        c["name"].split("live hook ", 1)[1]: c
        for c in result.json()["checks"]
        if c["name"].startswith("claude: live hook ")
    }
    return result.exit_code, checks


def test_every_installed_hook_answers_the_canary_and_leaves_no_trace(
    claude_repo: Path, cli: CliRunner
) -> None:
    code, checks = _live(claude_repo, cli)
    assert sorted(checks) == sorted(CLAUDE_EVENTS)
    assert {c["state"] for c in checks.values()} == {"ok"}, checks
    assert code == 0
    lb = claude_repo / ".lorebook"
    timing = lb / "_logs" / "hook-timing.log"
    assert CANARY_SESSION not in (timing.read_text() if timing.exists() else "")
    assert not list(lb.glob("_sessions/*"))  # the capture events staged nothing
    assert not (lb / "_logs" / "hook-errors.log").exists()
    text = cli("doctor", "--live", cwd=claude_repo).stdout
    assert "claude: live hook PostToolUse, PostToolUseFailure, " in text
    assert ": a well-formed answer came back" in text


def test_a_missing_launcher_is_a_hook_that_never_ran(claude_repo: Path, cli: CliRunner) -> None:
    (claude_repo / ".lorebook" / "bin" / "hook").unlink()
    code, checks = _live(claude_repo, cli)
    assert code == 1
    assert {c["state"] for c in checks.values()} == {"problem"}
    assert "no answer: the hook never ran" in checks["UserPromptSubmit"]["detail"]
    assert "`lorebook init`" in checks["UserPromptSubmit"]["fix"]


@pytest.mark.skipif(os.name != "posix", reason="a shell script as the launcher")
def test_a_launcher_that_prints_garbage_or_fails_is_reported(
    claude_repo: Path, cli: CliRunner
) -> None:
    launcher = claude_repo / ".lorebook" / "bin" / "hook"
    launcher.write_text('#!/bin/sh\ncase "$2" in Stop) exit 3;; esac\necho "<b>not json</b>"\n')
    launcher.chmod(launcher.stat().st_mode | stat.S_IXUSR)
    code, checks = _live(claude_repo, cli)
    assert code == 1
    # The committed command ends in `|| true`: the host sees exit 0; the canary sees no answer.
    assert checks["Stop"]["detail"].startswith("no answer: the hook never ran")
    assert "printed something that is not JSON" in checks["SessionStart"]["detail"]


def test_a_hook_that_logs_an_error_is_reported(claude_repo: Path, cli: CliRunner) -> None:
    launcher = claude_repo / ".lorebook" / "bin" / "hook"
    text = launcher.read_text()
    assert "'lorebook_claude.events'" in text
    launcher.write_text(text.replace("'lorebook_claude.events'", "'lorebook_claude.gone'"))
    code, checks = _live(claude_repo, cli)
    assert code == 1
    assert checks["UserPromptSubmit"]["detail"].startswith("the hook failed: ")
