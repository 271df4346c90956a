"""Noise that buried what mattered (everyday-use issue, round 2, item 4).

Every curated note was a lint ``orphan`` warning ("lint: clean, 2509 warnings"), and
``stats`` printed every never-injected id on one line, counted imports and bootstrap
documents as sessions and printed the standing cost as a Python dict. (doctor's host
memory line is tested with harvest, in test_harvest.py.)
"""

from __future__ import annotations

from pathlib import Path

from tests.conftest import CliRunner

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
            "listed in its folder's index.md): practice-ruff-only, practice-tox-runs-the-tests; "
            "run `lorebook index rebuild`",
        }
    ]
