"""Every usage error exits 2, as `lorebook --help` promises ("2 the command line itself is
wrong"); a command that ran and failed exits 1 (everyday-use issue, round 2, item 5).

A usage error: an option's value that names nothing there is (a format, a harness, an
extractor, a curator), or options that do not go together. A missing file or a session id
that matches nothing is not one: the command line is well formed, the world differs.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import CliRunner

USAGE_ERRORS = [
    (["import", "x", "--format", "cnsole"],
     "unknown import format 'cnsole'; known formats: ", "did you mean 'console'?"),
    (["init", "--harnesses", "claud"],
     "unknown harness 'claud'; valid names: claude, ", "did you mean 'claude'?"),
    (["uninstall", "--harnesses", "claud"], "unknown harness 'claud'", "did you mean 'claude'?"),
    (["capture", "--harness", "gemini", "--session", "s", "--transcript", "t"],
     "unknown harness 'gemini'", "no plugin of ours provides a harness named 'gemini'"),
    (["extract", "--extractor", "rulez"], "unknown extractor 'rulez'", "did you mean 'rules'?"),
    (["curate", "--curator", "oracle"], "unknown curator 'oracle'; valid names: ", None),
    (["import"], "name transcript files to import, or use --from-harness", None),
    (["import", "--list"], "--list and --session go with --from-harness", None),
    (["import", "x.jsonl", "--from-harness", "claude"],
     "--from-harness reads the host's store: give no files, --format or --skip-invalid", None),
    (["import", "--from-harness", "vim"], "--from-harness vim: no session store to read", None),
    (["eval", "extraction", "--corpus", "c", "--sessions", "s"], "--corpus goes alone", None),
    (["note", "add", "--title", "T", "--description", "d", "--kind", "gotchas"],
     "note add: --kind: Input should be 'convention'", "did you mean 'gotcha'?"),
    (["note", "add", "--title", "T", "--description", "d", "--kind", "gotcha", "--body", "b",
      "--body-file", "b.md"], "give --body or --body-file, not both", None),
    (["note", "add", "--title", "T", "--description", "d", "--kind", "gotcha", "--store",
      "persnal"], "unknown store 'persnal'", "did you mean 'personal'?"),
    (["note", "list", "--kind", "gotchas"],
     "--kind 'gotchas': expected one of convention, ", "did you mean 'gotcha'?"),
    (["note", "list", "--status", "retired"],
     "--status 'retired': expected one of active, superseded, refuted", None),
]  # fmt: skip


@pytest.mark.parametrize(("args", "message", "hint"), USAGE_ERRORS, ids=lambda v: str(v)[:40])
def test_a_usage_error_exits_2_in_one_or_two_lines(
    args: list[str], message: str, hint: str | None, kb_repo: Path, cli: CliRunner
) -> None:
    result = cli(*args, cwd=kb_repo)
    assert result.exit_code == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert lines[0].startswith(f"lorebook: error: {message}"), result.stderr
    assert len(lines) <= 2, result.stderr
    if hint is not None:
        assert hint in lines[1]
    assert "Traceback" not in result.stderr


def test_a_usage_error_with_json_is_still_one_document_and_exit_2(
    kb_repo: Path, cli: CliRunner
) -> None:
    result = cli("init", "--harnesses", "claud", "--json", cwd=kb_repo)
    assert result.exit_code == 2
    assert result.json()["ok"] is False
    assert result.json()["error"]["message"].startswith("unknown harness 'claud'")


@pytest.mark.parametrize(
    "args",
    [["import", "missing.jsonl"], ["import", "--from-harness", "claude", "--session", "ffff"]],
    ids=lambda v: " ".join(v),
)
def test_a_well_formed_command_that_fails_still_exits_1(
    args: list[str], kb_repo: Path, cli: CliRunner
) -> None:
    assert cli(*args, cwd=kb_repo).exit_code == 1


def test_the_help_says_what_exit_2_means(cli: CliRunner) -> None:
    text = " ".join(cli("--help").stdout.split())
    assert "2 the command line itself is wrong" in text
