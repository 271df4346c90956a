"""The first-hour stumbles of issue 17, each as a user meets it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import CliRunner, git


def test_schema_takes_json_like_every_command(cli: CliRunner) -> None:
    plain = cli("schema", "note")
    with_json = cli("schema", "note", "--json")
    assert with_json.exit_code == 0
    assert with_json.stdout == plain.stdout
    assert json.loads(with_json.stdout)["title"] == "Note"


def test_forget_session_with_a_typo_fails_and_names_the_staged_sessions(
    kb_repo: Path, cli: CliRunner
) -> None:
    (kb_repo / ".lorebook/_sessions").mkdir()
    (kb_repo / ".lorebook/_sessions/import-abc.json").write_text(json.dumps({"session_id": "abc"}))
    result = cli("forget-session", "abd", cwd=kb_repo)
    assert result.exit_code == 1
    assert "session 'abd': lorebook keeps nothing of it here" in result.stderr
    assert "staged sessions: abc" in result.stderr


@pytest.mark.parametrize("given", ["claude:abc-123", "claude:abc-123:7", "abc-123"])
def test_forget_session_takes_the_id_as_lorebook_prints_it(
    kb_repo: Path, cli: CliRunner, given: str
) -> None:
    # extract prints "claude:<id>" and notes cite "claude:<id>:<turn>": both name the session
    sessions = kb_repo / ".lorebook/_sessions"
    sessions.mkdir()
    staged = sessions / "claude-abc-123-0f0f0f0f.json"
    staged.write_text(json.dumps({"session_id": "abc-123", "harness": "claude"}))
    result = cli("forget-session", given, cwd=kb_repo)
    assert result.exit_code == 0, result.stderr
    assert not staged.exists()
    assert "removed .lorebook/_sessions/claude-abc-123-0f0f0f0f.json" in result.stdout


@pytest.mark.parametrize("given", ["", "  ", "c"])
def test_forget_session_never_matches_a_piece_of_an_id(
    kb_repo: Path, cli: CliRunner, given: str
) -> None:
    # "" was in every file and "c" in most: every LLM trace that held it was deleted
    traces = kb_repo / ".lorebook/_logs/llm"
    traces.mkdir(parents=True)
    (traces / "curate-1.json").write_text('{"origin": "claude:abc-123:4"}')
    note = cli("note", "add", "--title", "Cache the client", "--description", "cache",
               "--kind", "convention", "--derived-from", "claude:abc-123:4", cwd=kb_repo)  # fmt: skip
    assert note.exit_code == 0, note.stderr
    result = cli("forget-session", given, cwd=kb_repo)
    assert result.exit_code in (1, 2), result.stdout
    assert (traces / "curate-1.json").is_file()
    assert "note citing it" not in result.stdout


def test_forget_session_names_the_notes_not_yet_committed_that_may_quote_it(
    kb_repo: Path, cli: CliRunner
) -> None:
    # a note curated from the session and not committed kept the person's words, while the
    # command said "note citing it (keeps only the origin id)"
    sessions = kb_repo / ".lorebook/_sessions"
    sessions.mkdir()
    (sessions / "claude-abc-123-0f0f0f0f.json").write_text(
        json.dumps({"session_id": "abc-123", "harness": "claude"})
    )
    for title in ("Cache the client", "Never use pandas in the parser"):
        note = cli("note", "add", "--title", title, "--description", "parsing", "--kind",
                   "convention", "--derived-from", "claude:abc-123:4", cwd=kb_repo)  # fmt: skip
        assert note.exit_code == 0, note.stderr
        if title == "Cache the client":
            git(kb_repo, "add", "-A")
            git(kb_repo, "commit", "-qm", "notes")
    result = cli("forget-session", "claude:abc-123", cwd=kb_repo)
    assert result.exit_code == 0, result.stderr
    fresh = ".lorebook/nodes/convention/convention-never-use-pandas-in-the-parser.md"
    assert f"note not yet committed that may quote the session's words: {fresh}" in result.stderr
    assert f"lorebook review --reject {fresh}" in result.stderr
    committed = ".lorebook/nodes/convention/convention-cache-the-client.md"
    assert f"note citing it (keeps only the origin id): {committed}" in result.stdout


def test_scan_of_a_missing_file_fails_before_scanning(kb_repo: Path, cli: CliRunner) -> None:
    result = cli("scan", "nope.txt", cwd=kb_repo)
    assert result.exit_code == 1
    assert result.stderr == "lorebook: error: nope.txt: no such file; nothing was scanned\n"


@pytest.mark.parametrize(
    ("name", "hint"),
    [
        ("codex", "pip install lorebook-codex"),
        ("gemini", "no plugin of ours provides a harness named 'gemini'"),
    ],
)
def test_install_hint_names_only_packages_that_exist(
    kb_repo: Path, cli: CliRunner, name: str, hint: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from lorebook import plugins

    monkeypatch.setattr(plugins, "get_plugins", lambda: plugins.make_plugins(load_external=False))
    result = cli("capture", "--harness", name, "--session", "s", "--transcript", "t", cwd=kb_repo)
    assert result.exit_code == 2  # a name on the command line that names nothing: usage
    assert hint in result.stderr
    assert "lorebook-gemini" not in result.stderr


def test_review_reject_takes_a_path_relative_to_the_knowledge_base(
    kb_repo: Path, cli: CliRunner
) -> None:
    git(kb_repo, "add", "-A")
    git(kb_repo, "commit", "-qm", "base")
    cli("note", "add", "--title", "Gamma rays", "--description", "d", "--kind", "gotcha",
        "--body", "b", cwd=kb_repo)  # fmt: skip
    result = cli("review", "--reject", "nodes/gotcha/gotcha-gamma-rays.md", cwd=kb_repo)
    assert result.exit_code == 0, result.stderr
    assert not (kb_repo / ".lorebook/nodes/gotcha/gotcha-gamma-rays.md").exists()


def test_empty_config_is_an_error_naming_the_file(kb_repo: Path, cli: CliRunner) -> None:
    (kb_repo / ".lorebook/config.yaml").write_text("# nothing here\n")
    result = cli("status", cwd=kb_repo)
    assert result.exit_code == 1
    assert result.stderr.startswith("lorebook: error: .lorebook/config.yaml: it holds no settings")


def test_uninstall_leaves_claude_md_and_git_config_as_they_were(
    tmp_path: Path, cli: CliRunner
) -> None:
    repo = tmp_path / "fresh"
    repo.mkdir()
    git(repo, "init", "-q")
    (repo / "CLAUDE.md").write_text("# Ours\n\nKeep this.\n")
    before = git(repo, "config", "--local", "--list")
    assert cli("init", "--harnesses", "claude", cwd=repo).exit_code == 0
    assert "merge.lorebook-generated" in git(repo, "config", "--local", "--list")
    assert "lorebook:begin" in (repo / "CLAUDE.md").read_text()
    result = cli("uninstall", cwd=repo)
    assert result.exit_code == 0, result.stderr
    assert "removed git config merge.lorebook-generated" in result.stdout
    assert (repo / "CLAUDE.md").read_text() == "# Ours\n\nKeep this.\n"
    assert git(repo, "config", "--local", "--list") == before


def test_version_names_every_installed_lorebook_distribution(cli: CliRunner) -> None:
    from importlib import metadata

    result = cli("--version")
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert lines[0] == f"lorebook {metadata.version('lorebook')}"
    for name in ("lorebook-claude", "lorebook-codex", "lorebook-copilot", "lorebook-cursor",
                 "lorebook-opencode"):  # fmt: skip
        assert f"{name} {metadata.version(name)}" in lines
    assert lines[1:] == sorted(lines[1:])


def test_note_add_names_an_empty_title_and_ids_a_title_in_other_letters(
    kb_repo: Path, cli: CliRunner
) -> None:
    empty = cli("note", "add", "--title", " ", "--description", "d", "--kind", "convention",
                cwd=kb_repo)  # fmt: skip
    assert empty.exit_code == 2
    assert "--title is empty" in empty.stderr  # not "gives no id ...; pass --id"
    chinese = cli("note", "add", "--title", "不要添加其他组件", "--description", "组件",
                  "--kind", "prohibition", "--json", cwd=kb_repo)  # fmt: skip
    assert chinese.exit_code == 0, chinese.stderr
    assert chinese.json()["id"].startswith("prohibition-note-")
    cli("review", "--accept", "all", cwd=kb_repo)
    nothing = cli("review", "--accept", "all", cwd=kb_repo)
    assert nothing.exit_code == 0
    assert nothing.stdout == "nothing to accept: no note is waiting for review\n"
