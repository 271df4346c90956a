"""Noise that buried what mattered (everyday-use issue, round 2, item 4).

Every curated note was a lint ``orphan`` warning ("lint: clean, 2509 warnings"), and
``stats`` printed every never-injected id on one line, counted imports and bootstrap
documents as sessions and printed the standing cost as a Python dict. (doctor's host
memory line is tested with harvest, in test_harvest.py.)
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.conftest import CliRunner
from tests.e2e import stats_scenario as sc

FIXTURES = Path(__file__).parent.parent / "fixtures" / "stats"

NOTES = [
    ("Ruff only", "tooling"),
    ("No print calls", "prohibition"),
    ("Billing sandbox", "gotcha"),
    ("Tox runs the tests", "tooling"),
]


def _add_notes(repo: Path, cli: CliRunner) -> None:
    for title, kind in NOTES:
        add = cli("note", "add", "--title", title, "--description", f"{title} matters",
                  "--kind", kind, "--body", "b", cwd=repo)  # fmt: skip
        assert add.exit_code == 0, add.stderr


def test_notes_their_folder_index_lists_are_not_orphans(kb_repo: Path, cli: CliRunner) -> None:
    _add_notes(kb_repo, cli)
    result = cli("lint", cwd=kb_repo)
    assert result.exit_code == 0
    assert result.stdout == "0 errors, 0 warnings\n"
    assert "lint: clean, 0 warnings" in cli("status", cwd=kb_repo).stdout


def test_notes_no_index_lists_are_one_orphan_line(kb_repo: Path, cli: CliRunner) -> None:
    _add_notes(kb_repo, cli)
    tooling = kb_repo / ".lorebook/nodes/tooling/index.md"
    tooling.write_text("# tooling\n")  # a hand edit: its two notes are listed nowhere now
    doc = cli("lint", "--json", cwd=kb_repo).json()
    orphans = [f for f in doc["findings"] if f["code"] == "orphan"]
    assert orphans == [
        {
            "severity": "warning",
            "code": "orphan",
            "path": ".lorebook/nodes",
            "message": "2 notes no reader can reach (no link to or from another note, not "
            "listed in its folder's index.md): tooling-ruff-only, tooling-tox-runs-the-tests; "
            "run `lorebook index rebuild`",
        }
    ]


@pytest.fixture
def served_and_imported(kb_repo: Path, cli: CliRunner, tmp_path: Path) -> Path:
    """Three Claude Code sessions lorebook served (replayed) and one imported transcript."""
    from lorebook.capture.stage import capture_session
    from lorebook.kb.paths import KBPaths
    from lorebook_claude.harness import ClaudeHarness
    from tests.core.test_stats_replay import DEPLOY_NOTE_ID, UNUSED_NOTE_ID, UV_NOTE_ID

    for note, note_id in (  # the ids the recorded transcripts' injections name
        (sc.UV_NOTE, UV_NOTE_ID),
        (sc.DEPLOY_NOTE, DEPLOY_NOTE_ID),
        (sc.UNUSED_NOTE, UNUSED_NOTE_ID),
    ):
        assert cli("note", "add", *note, "--id", note_id, cwd=kb_repo).exit_code == 0
    for transcript in sorted((FIXTURES / "claude").glob("*.jsonl")):
        capture_session(KBPaths(kb_repo), ClaudeHarness(), "claude", transcript.stem,
                        str(transcript))  # fmt: skip
    old = tmp_path / "review.jsonl"
    old.write_text('{"role": "user", "text": "Never call the billing API from tests."}\n')
    assert cli("import", str(old), cwd=kb_repo).exit_code == 0
    return kb_repo


def test_stats_counts_the_sessions_lorebook_served_not_imports(
    served_and_imported: Path, cli: CliRunner
) -> None:
    doc = cli("stats", "--json", cwd=served_and_imported).json()
    assert (doc["sessions"], doc["staged_logs"]) == (3, 4)
    lines = cli("stats", cwd=served_and_imported).stdout.splitlines()
    assert lines[0] == (
        "3 sessions lorebook served (1 other staged log: imports, bootstrap documents or "
        "harvested memories, which no hook served)"
    )


def test_stats_counts_the_notes_never_injected_and_names_them_with_verbose(
    served_and_imported: Path, cli: CliRunner
) -> None:
    plain = cli("stats", cwd=served_and_imported).stdout.splitlines()
    assert "never injected in 3 sessions: 1 active note (--verbose names each)" in plain
    assert "injected, never used: none" in plain
    verbose = cli("stats", "--verbose", cwd=served_and_imported).stdout.splitlines()
    at = verbose.index("never injected in 3 sessions: 1 active note:")
    assert verbose[at + 1] == "  practice-timestamps-are-stored-in-utc"


def test_stats_prints_the_standing_cost_as_words_not_a_dict(kb_repo: Path, cli: CliRunner) -> None:
    assert cli("init", "--harnesses", "claude", cwd=kb_repo).exit_code == 0
    lines = cli("stats", cwd=kb_repo).stdout.splitlines()
    standing = next(line for line in lines if line.startswith("standing cost"))
    assert "{" not in standing
    assert re.fullmatch(
        r"standing cost per session: \d+ characters \(pointer block \d+ in CLAUDE\.md, skill "
        r"line \d+ in \.claude/skills/lorebook-curate/SKILL\.md, session start mean n/a\)",
        standing,
    ), standing


def test_the_standing_cost_says_a_host_reads_one_instruction_file(
    kb_repo: Path, cli: CliRunner
) -> None:
    # "692 characters (pointer block 469 in CLAUDE.md, 469 in AGENTS.md, skill line 223)"
    # read as parts adding up to 1,161
    assert cli("init", "--harnesses", "claude,codex", cwd=kb_repo).exit_code == 0
    lines = cli("stats", cwd=kb_repo).stdout.splitlines()
    standing = next(line for line in lines if line.startswith("standing cost"))
    assert "(pointer block the largest of " in standing, standing
