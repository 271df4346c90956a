"""The smaller frictions of the everyday-use issue (round 2, item 12), each as a user meets it."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import CliRunner


def test_pack_import_of_a_missing_folder_says_so_before_the_uncommitted_changes(
    kb_repo: Path, cli: CliRunner, tmp_path: Path
) -> None:
    missing = tmp_path / "nope"
    result = cli("pack", "import", str(missing), cwd=kb_repo)  # kb_repo is not committed
    assert result.exit_code == 1
    assert result.stderr == f"lorebook: error: {missing}: no such folder; nothing was imported\n"


def test_repo_option_naming_a_missing_folder_says_no_such_folder(
    kb_repo: Path, cli: CliRunner
) -> None:
    # Run from inside a knowledge base: the missing folder must not fall back to it.
    result = cli("-C", "nonexistent", "status", cwd=kb_repo)
    assert result.exit_code == 1
    assert result.stderr == "lorebook: error: -C nonexistent: no such folder\n"
    assert result.stdout == ""


def test_a_yaml_error_in_config_is_one_line_with_its_line_and_column(
    kb_repo: Path, cli: CliRunner
) -> None:
    (kb_repo / ".lorebook/config.yaml").write_text("harnesses: [claude\nbudgets: {}\n")
    result = cli("status", cwd=kb_repo)
    assert result.exit_code == 1
    assert result.stderr == (
        "lorebook: error: .lorebook/config.yaml: invalid YAML at line 2, column 8: did not "
        "find expected ',' or ']' (while parsing a flow sequence from line 1, column 12)\n"
    )


def test_folder_describe_of_a_folder_that_does_not_exist_is_refused_and_writes_nothing(
    kb_repo: Path, cli: CliRunner
) -> None:
    add = ("note", "add", "--description", "d", "--body", "b")
    assert cli(*add, "--title", "Ruff only", "--kind", "tooling", cwd=kb_repo).exit_code == 0
    assert cli(*add, "--title", "No print", "--kind", "gotcha", cwd=kb_repo).exit_code == 0
    kb = kb_repo / ".lorebook"
    before = {p: p.read_bytes() for p in kb.rglob("*.md")}
    result = cli("folder", "describe", "toolng", "Python tools", cwd=kb_repo)
    assert result.exit_code == 1
    assert result.stderr == (
        "lorebook: error: folder 'toolng': no such folder under .lorebook/nodes/ "
        "(folders: gotcha, tooling); nothing was written\n"
        "  hint: did you mean 'tooling'?\n"
    )
    assert {p: p.read_bytes() for p in kb.rglob("*.md")} == before
    assert (
        not (kb / "FOLDER_SUMMARIES.md").exists()
        or "toolng" not in (kb / "FOLDER_SUMMARIES.md").read_text()
    )
    # An existing folder still takes its summary.
    assert cli("folder", "describe", "tooling", "Python tools", cwd=kb_repo).exit_code == 0


def test_stats_json_says_ok_like_every_command(kb_repo: Path, cli: CliRunner) -> None:
    result = cli("stats", "--json", cwd=kb_repo)
    assert result.exit_code == 0
    assert result.json()["ok"] is True


def test_import_help_lists_every_format_the_error_lists(kb_repo: Path, cli: CliRunner) -> None:
    error = cli("import", "x", "--format", "cnsole", cwd=kb_repo).stderr
    known = error.split("known formats: ", 1)[1].split("\n", 1)[0].split(", ")
    assert "copilot" in known
    help_text = " ".join(cli("import", "--help", cwd=kb_repo).stdout.split())
    listed = help_text.split("--format FORMAT", 1)[1].split("(default: guessed)", 1)[0]
    assert [name for name in known if name not in listed] == []


def test_doctor_outside_git_warns_instead_of_passing_the_merge_driver(
    tmp_path: Path, cli: CliRunner
) -> None:
    from lorebook.initialize import init_repo

    repo = tmp_path / "plain"
    repo.mkdir()
    init_repo(repo, [])
    doc = cli("doctor", "--json", cwd=repo).json()
    checks = {c["name"]: c for c in doc["checks"]}
    assert "merge driver" not in checks
    assert checks["git"] == {
        "name": "git",
        "state": "warning",
        "detail": "not inside a git repository: notes are reviewed, shared and merged "
        "with git (review, pack import and the merge driver need it)",
        "fix": "run `git init` here, then `lorebook init`",
    }


def test_stats_says_why_prompts_the_hooks_answered_are_not_counted(
    kb_repo: Path, cli: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    # "0 sessions lorebook served" under a latency table of 100 prompt runs, and nothing
    # said why: injections are read from the transcripts capture stages.
    from tests.conftest import fire

    cli("note", "add", "--title", "Run tests with uv run pytest", "--description", "Tests",
        "--kind", "tooling", cwd=kb_repo)  # fmt: skip
    fire(kb_repo, monkeypatch, "Start", source="startup")
    fire(kb_repo, monkeypatch, "Prompt", prompt="how do I run the tests? uv run pytest?")
    out = cli("stats", cwd=kb_repo).stdout
    assert "0 sessions lorebook served" in out
    assert "the hooks answered 1 prompt, yet no session capture staged holds them" in out
