"""doctor: one line per problem with one fix, a summary, exit 0 when only actions remain."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from lorebook.checks import Check
from lorebook.cli.doctor_view import group_checks, merge_whats, render
from lorebook.doctor import _state_of
from tests.conftest import CliRunner

TRUST = "run `codex` in the repository and trust the hooks"


def test_descriptions_differing_in_one_word_merge() -> None:
    whats = [f"Codex hook {e} in .codex/hooks.json" for e in ("Stop", "SessionEnd", "PreCompact")]
    assert merge_whats(whats) == "Codex hook Stop, SessionEnd, PreCompact in .codex/hooks.json"
    assert merge_whats([*whats[:2], "Codex loads this repository's hooks"]) == (
        "Codex hook Stop, SessionEnd in .codex/hooks.json; Codex loads this repository's hooks"
    )


def test_the_same_fix_is_printed_once_and_actions_do_not_fail() -> None:
    checks = [Check("python", "ok", "3.11.7")]
    checks += [Check(f"codex: Codex hook {e} in .codex/hooks.json", "action", "untrusted", TRUST)
               for e in ("SessionStart", "UserPromptSubmit", "Stop")]  # fmt: skip
    lines = render(group_checks(checks))
    assert lines == [
        "ok      python: 3.11.7",
        "action  codex: Codex hook SessionStart, UserPromptSubmit, Stop in .codex/hooks.json: "
        "untrusted",
        f"        fix: {TRUST}",
        "action needed: trust the Codex hooks (once, by hand: see fix above)",
    ]


def test_problems_are_counted_with_the_actions() -> None:
    checks = [
        Check("indexes", "problem", "stale", "run `lorebook index rebuild`"),
        Check("codex: Codex hook Stop in .codex/hooks.json", "action", "untrusted", TRUST),
    ]
    assert render(group_checks(checks))[-1] == (
        "1 problem; action needed: trust the Codex hooks (once, by hand: see fix above)"
    )


def test_what_counts_as_an_action() -> None:
    assert _state_of("untrusted", TRUST) == "action"
    assert _state_of("unknown", "there is no Codex config: run `codex` ...") == "action"
    assert _state_of("unknown", "bad JSON; then run `lorebook init --harnesses codex`") == (
        "problem"
    )
    assert _state_of("missing", "run `lorebook init`") == "problem"
    assert _state_of("ok", None) == "ok"


def test_doctor_after_init_with_codex_exits_0_with_action_needed(
    tmp_path: Path, cli: CliRunner
) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    assert cli("init", "--harnesses", "claude,codex", cwd=repo).exit_code == 0
    result = cli("doctor", cwd=repo)
    assert result.exit_code == 0, result.stdout
    lines = result.stdout.splitlines()
    assert "action needed: trust the Codex hooks" in lines[-1]
    fixes = [line for line in lines if line.lstrip().startswith("fix:")]
    assert len(fixes) == len(set(fixes))  # never the same fix twice
    codex = [line for line in lines if line.startswith("action  codex:")]
    assert len(codex) == 1
    doc = json.loads(cli("doctor", "--json", cwd=repo).stdout)
    assert doc["ok"] is True
    assert doc["action_needed"] == ["trust the Codex hooks"]


def _claude_repo(tmp_path: Path, cli: CliRunner) -> Path:
    """A new git repository with lorebook wired for Claude Code."""
    repo = tmp_path / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    assert cli("init", "--harnesses", "claude", cwd=repo).exit_code == 0
    return repo


def _check(cli: CliRunner, repo: Path, name: str) -> dict[str, Any]:
    """The one check of ``doctor --json`` named ``name``."""
    doc = json.loads(cli("doctor", "--json", cwd=repo).stdout)
    (check,) = [check for check in doc["checks"] if check["name"] == name]
    return dict(check)


def test_doctor_says_when_the_meaning_signal_is_on_but_not_installed(
    tmp_path: Path, cli: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a newcomer's install without the extra: no note was ever served whole, and doctor
    # said everything looked right
    repo = _claude_repo(tmp_path, cli)
    monkeypatch.setattr("lorebook.recall.semantic.model_files", lambda: None)
    # The index init built here keeps the word pieces it was embedded with: prompts are
    # still ranked by meaning (recall said so while doctor said words alone)
    meaning = _check(cli, repo, "meaning signal")
    assert meaning["state"] == "warning"
    assert "word pieces the index was built with elsewhere" in meaning["detail"]
    (repo / ".lorebook/.cache/index.sqlite").unlink()
    meaning = _check(cli, repo, "meaning signal")
    assert meaning["state"] == "warning"
    assert "served as one-line pointers, never whole" in meaning["detail"]
    assert "[semantic]" in meaning["fix"]  # the command for the way lorebook was installed
    config = repo / ".lorebook/config.yaml"
    config.write_text(config.read_text().replace("semantic: true", "semantic: false"))
    meaning = _check(cli, repo, "meaning signal")
    assert meaning["state"] == "ok"


def test_doctor_names_a_knowledge_base_it_cannot_write_or_whose_config_is_gone(
    tmp_path: Path, cli: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    # seen with a read-only .lorebook: doctor said all was well while every capture was lost
    repo = _claude_repo(tmp_path, cli)
    assert _check(cli, repo, "writable")["state"] == "ok"

    def read_only(*args: object, **kwargs: object) -> None:
        raise OSError(30, "Read-only file system")

    with monkeypatch.context() as patched:
        patched.setattr("tempfile.NamedTemporaryFile", read_only)
        doc = json.loads(cli("doctor", "--json", cwd=repo).stdout)
    (writable,) = [c for c in doc["checks"] if c["name"] == "writable"]
    assert writable["state"] == "problem"
    assert writable["detail"].startswith(".lorebook cannot be written (Read-only file system)")
    assert doc["ok"] is False
    (repo / ".lorebook/config.yaml").unlink()  # the notes are there, the configuration is not
    gone = cli("doctor", cwd=repo)
    assert f"{repo / '.lorebook'} has no config.yaml" in gone.stdout
    assert "it writes the configuration again and keeps the notes" in gone.stdout
