"""Session start speaks to the model: no instruction meant for a person in its context.

What a person should do (extract the captured sessions, run lint) is said by
``lorebook status`` and ``lorebook doctor``; the model is told how many notes it may read.
"""

from __future__ import annotations

from pathlib import Path

from tests.conftest import REPO_ROOT, CliRunner
from tests.core.test_session_start_fast import start

SESSION = REPO_ROOT / "scripts" / "demo_sessions" / "01-tests-and-billing.jsonl"


def _one_note(kb_repo: Path, cli: CliRunner) -> None:
    """Wire Claude Code and add one note by hand (reviewed: a person wrote it)."""
    assert cli("init", "--harnesses", "claude", cwd=kb_repo).exit_code == 0
    added = cli("note", "add", "--title", "Money is integer cents", "--kind", "convention",
                "--description", "Floats drift.", cwd=kb_repo)  # fmt: skip
    assert added.exit_code == 0, added.stderr


def test_session_start_tells_the_model_no_command_and_status_tells_the_person(
    kb_repo: Path, cli: CliRunner
) -> None:
    _one_note(kb_repo, cli)
    assert cli("import", str(SESSION), cwd=kb_repo).exit_code == 0  # a session waits
    context, _ = start(kb_repo, "s1")
    status_lines = [line for line in context.splitlines() if line.startswith("lorebook status")]
    assert status_lines == ["lorebook status: 1 note."]
    assert "`lorebook " not in context  # no command for a person to run
    person = cli("status", cwd=kb_repo).stdout
    assert "sessions: 1 pending" in person
    assert "lint: " in person


def test_session_start_says_how_many_notes_no_person_reviewed(
    kb_repo: Path, cli: CliRunner
) -> None:
    # The catalog lists every note; with notes bootstrap or curation wrote and nobody
    # reviewed, it invited the model to read them as the team's rules.
    _one_note(kb_repo, cli)
    tool = kb_repo / ".lorebook/nodes/convention/convention-deploy-on-tuesdays.md"
    tool.write_text(
        (kb_repo / ".lorebook/nodes/convention/convention-money-is-integer-cents.md")
        .read_text()
        .replace("convention-money-is-integer-cents", "convention-deploy-on-tuesdays")
        .replace("Money is integer cents", "Deploy on Tuesdays")
    )  # dropped in by hand, not committed: unreviewed
    context, _ = start(kb_repo, "s1")
    status_lines = [line for line in context.splitlines() if line.startswith("lorebook status")]
    assert status_lines == [
        "lorebook status: 2 notes; 1 of them not reviewed by a person yet:"
        " read those as suggestions, not as the team's rules."
    ]
