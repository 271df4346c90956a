"""`note add` leaves a clean knowledge base: dangling links refused, indexes refreshed."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import CliRunner

BASE = ["--description", "When running tests", "--kind", "convention", "--body", "Use tox."]


def test_lint_passes_right_after_note_add(kb_repo: Path, cli: CliRunner) -> None:
    assert cli("note", "add", "--title", "Run tests with tox", *BASE, cwd=kb_repo).exit_code == 0
    linked = cli("note", "add", "--title", "Tox envs", *BASE, "--relates-to",
                 "convention-run-tests-with-tox", cwd=kb_repo)  # fmt: skip
    assert linked.exit_code == 0, linked.stderr
    assert "wrote .lorebook/GRAPH.md" in linked.stdout
    lint = cli("lint", cwd=kb_repo)
    assert lint.exit_code == 0, lint.stdout
    assert lint.stdout.strip().endswith("0 errors, 0 warnings")
    assert "convention-tox-envs" in (kb_repo / ".lorebook/GRAPH.md").read_text()


def test_a_link_to_a_missing_note_is_refused_and_nothing_written(
    kb_repo: Path, cli: CliRunner
) -> None:
    before = sorted(p.relative_to(kb_repo) for p in (kb_repo / ".lorebook").rglob("*.md"))
    result = cli("note", "add", "--title", "Tox envs", *BASE, "--depends-on",
                 "practice-not-there", cwd=kb_repo)  # fmt: skip
    assert result.exit_code == 1
    assert result.stderr.startswith(
        "lorebook: error: --depends-on 'practice-not-there': there is no note with that id"
    )
    assert len(result.stderr.strip().splitlines()) == 2
    after = sorted(p.relative_to(kb_repo) for p in (kb_repo / ".lorebook").rglob("*.md"))
    assert after == before


def test_a_malformed_link_says_what_an_id_looks_like(kb_repo: Path, cli: CliRunner) -> None:
    result = cli("note", "add", "--title", "T", *BASE, "--relates-to", "Run Tests", cwd=kb_repo)
    assert result.exit_code == 2  # a malformed value on the command line: a usage error
    assert "must be a note id: its kind or type ('prohibition-', 'practice-'" in result.stderr
    assert "pattern" not in result.stderr
    assert "^" not in result.stderr
