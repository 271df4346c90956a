"""`lorebook import --from-harness`: past sessions found in a fake host store, laid out as
the real one (shared/HARNESSES.md 1.4 and 2.4), under an isolated HOME.

The transcripts are the recorded ones of the real clients, with the ``<PROJECT>``
placeholder the recording put in place of the probe's folder set to this test's repository.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from lorebook.capture.stage import load_log
from tests.conftest import REPO_ROOT, CliRunner

CLAUDE = REPO_ROOT / "tests/plugins/claude/fixtures/transcripts"
CODEX = REPO_ROOT / "tests/plugins/codex/fixtures/transcripts"
MAIN = "11111111-2222-4333-8444-555555555555"
DENIED = "a85451d6-36ec-439f-8afb-8104f85052e7"
SAY_HI = "d5f8e17c-750c-4631-ad90-c0328c7f5b34"
SECRET = "GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123456789"


def _place(source: Path, target: Path, project: Path, edit: tuple[str, str] = ("", "")) -> None:
    """Copy a recorded transcript into the store, run in ``project``."""
    text = source.read_text(encoding="utf-8").replace("<PROJECT>", json.dumps(str(project))[1:-1])
    if edit[0]:
        text = text.replace(*edit)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8")


def _slug(folder: Path) -> str:
    return str(folder).replace("/", "-")


@pytest.fixture
def claude_store(kb_repo: Path, lorebook_home: Path, tmp_path: Path) -> Path:
    """``~/.claude/projects/``: three sessions of the repository, one of another project."""
    projects = lorebook_home / ".claude" / "projects"
    folder = projects / _slug(kb_repo)
    _place(CLAUDE / f"{MAIN}.jsonl", folder / f"{MAIN}.jsonl", kb_repo)
    _place(CLAUDE / f"{DENIED}.jsonl", folder / f"{DENIED}.jsonl", kb_repo / "src")
    _place(
        CLAUDE / f"{SAY_HI}.jsonl",
        folder / f"{SAY_HI}.jsonl",
        kb_repo,
        ("say hi", f"say hi {SECRET}"),
    )
    elsewhere = tmp_path / "repo-old"  # its slug extends the repository's: cwd decides
    _place(CLAUDE / "tool-failure.jsonl", projects / _slug(elsewhere) / "other.jsonl", elsewhere)
    return projects


def _list(cli: CliRunner, repo: Path, harness: str) -> list[dict[str, Any]]:
    result = cli("import", "--from-harness", harness, "--list", "--json", cwd=repo)
    assert result.exit_code == 0, result.stderr
    return list(result.json()["sessions"])


def _log(path: Path) -> dict[str, Any]:
    log = load_log(path)
    assert log is not None
    return log.model_dump(mode="json")


def _staged_logs(repo: Path) -> list[Path]:
    folder = repo / ".lorebook/_sessions"
    return sorted(folder.glob("*.json")) if folder.exists() else []


@pytest.mark.usefixtures("claude_store")
def test_claude_sessions_of_this_repository_are_listed(kb_repo: Path, cli: CliRunner) -> None:
    rows = _list(cli, kb_repo, "claude")
    assert [(row["session_id"], row["prompts"]) for row in rows] == [
        (MAIN, 4),
        (DENIED, 1),
        (SAY_HI, 1),
    ]
    assert rows[0]["first_prompt"] == "say hi"
    assert "ghp_" not in json.dumps(rows)
    assert not any(row["staged"] for row in rows)
    assert _staged_logs(kb_repo) == []  # listing stages nothing
    text = cli("import", "--from-harness", "claude", "--list", cwd=kb_repo).stdout
    assert text.splitlines()[0] == "3 claude sessions of this repository"


@pytest.mark.usefixtures("claude_store")
def test_claude_history_is_staged_redacted_and_once(kb_repo: Path, cli: CliRunner) -> None:
    result = cli("import", "--from-harness", "claude", "--json", cwd=kb_repo)
    assert result.exit_code == 0, result.stderr
    imported = result.json()["imported"]
    assert [entry["session_id"] for entry in imported] == [MAIN, DENIED, SAY_HI]
    logs = {entry["session_id"]: _log(kb_repo / entry["log"]) for entry in imported}
    users = {
        sid: [t["text"] for t in log["turns"] if t["role"] == "user"] for sid, log in logs.items()
    }
    assert users[MAIN] == [
        "say hi",
        "PROBE_TOOL please print hello.txt",
        "/compact",
        "say hi again",
    ]
    assert users[DENIED] == ["PROBE_TOOL please print hello.txt"]
    assert users[SAY_HI][0].startswith("say hi GITHUB_TOKEN=")
    assert all(log["status"] == "pending" for log in logs.values())
    assert not any("ghp_" in p.read_text() for p in (kb_repo / ".lorebook/_sessions").iterdir())
    assert all(row["staged"] for row in _list(cli, kb_repo, "claude"))
    again = cli("import", "--from-harness", "claude", "--json", cwd=kb_repo).json()["imported"]
    assert [entry["changed"] for entry in again] == [False, False, False]


@pytest.mark.usefixtures("claude_store")
def test_chosen_sessions_only_and_an_unknown_one_stages_nothing(
    kb_repo: Path, cli: CliRunner
) -> None:
    bad = cli(
        "import", "--from-harness", "claude", "--session", MAIN, "--session", "ffff", cwd=kb_repo
    )
    assert bad.exit_code == 1
    assert bad.stderr.strip().splitlines() == [
        "lorebook: error: --session ffff: no claude sessions of this repository match; "
        "`lorebook import --from-harness claude --list` shows them"
    ]
    assert _staged_logs(kb_repo) == []
    ok = cli("import", "--from-harness", "claude", "--session", "a854", "--json", cwd=kb_repo)
    assert [entry["session_id"] for entry in ok.json()["imported"]] == [DENIED]
    assert len(_staged_logs(kb_repo)) == 1


def test_claude_config_dir_moves_the_store(
    kb_repo: Path, lorebook_home: Path, cli: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    moved = lorebook_home / "claude-elsewhere"
    _place(
        CLAUDE / f"{SAY_HI}.jsonl", moved / "projects" / _slug(kb_repo) / f"{SAY_HI}.jsonl", kb_repo
    )
    assert _list(cli, kb_repo, "claude") == []
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(moved))
    assert [row["session_id"] for row in _list(cli, kb_repo, "claude")] == [SAY_HI]


def _codex_store(home: Path, repo: Path, tmp_path: Path) -> None:
    """``$CODEX_HOME/sessions/YYYY/MM/DD/``: every project's rollouts in one tree."""
    day = home / "sessions" / "2026" / "11" / "30"
    rollouts = sorted(CODEX.glob("rollout-*.jsonl"))
    for source in rollouts[:3]:
        _place(source, day / source.name, repo)
    _place(rollouts[3], day / rollouts[3].name, tmp_path / "another-project")


def test_codex_rollouts_are_filtered_by_working_directory(
    kb_repo: Path, lorebook_home: Path, tmp_path: Path, cli: CliRunner
) -> None:
    _codex_store(lorebook_home / ".codex", kb_repo, tmp_path)
    rows = _list(cli, kb_repo, "codex")
    assert [row["prompts"] for row in rows] == [1, 2, 2]
    assert all(row["cwd"] == str(kb_repo) for row in rows)
    assert "01a22aaf-049a-7301-b606-21c26503b25b" not in [row["session_id"] for row in rows]
    result = cli("import", "--from-harness", "codex", "--json", cwd=kb_repo)
    assert result.exit_code == 0, result.stderr
    for entry, row in zip(result.json()["imported"], rows, strict=True):
        log = _log(kb_repo / entry["log"])
        assert log["harness"] == "codex"
        assert sum(t["role"] == "user" for t in log["turns"]) == row["prompts"]


def test_codex_home_moves_the_store(
    kb_repo: Path, tmp_path: Path, cli: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    _codex_store(tmp_path / "codexhome", kb_repo, tmp_path)
    assert _list(cli, kb_repo, "codex") == []
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codexhome"))
    assert len(_list(cli, kb_repo, "codex")) == 3


def test_no_store_lists_nothing_and_an_unknown_harness_is_one_line(
    kb_repo: Path, lorebook_home: Path, cli: CliRunner
) -> None:
    shutil.rmtree(lorebook_home / ".claude", ignore_errors=True)
    assert _list(cli, kb_repo, "claude") == []
    assert (
        cli("import", "--from-harness", "claude", cwd=kb_repo).stdout.strip() == "nothing to import"
    )
    bad = cli("import", "--from-harness", "vim", cwd=kb_repo)
    assert bad.exit_code == 2  # a usage error
    assert len(bad.stderr.strip().splitlines()) == 1
    assert "--from-harness vim: no session store to read (claude, codex" in bad.stderr


def test_each_harness_recognises_only_its_own_transcripts(tmp_path: Path) -> None:
    from lorebook_claude.history import transcript_info as claude_info
    from lorebook_codex.history import transcript_info as codex_info

    claude_file = CLAUDE / f"{MAIN}.jsonl"
    rollout = sorted(CODEX.glob("rollout-*.jsonl"))[0]
    plain = tmp_path / "plain.jsonl"
    plain.write_text('{"session_id": "s", "harness": "import"}\n{"role": "user", "text": "hi"}\n')
    broken = tmp_path / "broken.jsonl"
    broken.write_text("not json\n")
    claude = claude_info(claude_file)
    assert claude is not None
    assert (claude.session_id, claude.cwd) == (MAIN, "<PROJECT>")
    assert claude.started == "2026-11-30T04:20:31.633Z"
    codex = codex_info(rollout)
    assert codex is not None
    assert rollout.stem.endswith("-" + codex.session_id)  # the thread id ends the name
    assert codex.cwd == "<PROJECT>"
    for other in (rollout, plain, broken, tmp_path / "missing.jsonl"):
        assert claude_info(other) is None
    for other in (claude_file, plain, broken, tmp_path / "missing.jsonl"):
        assert codex_info(other) is None
