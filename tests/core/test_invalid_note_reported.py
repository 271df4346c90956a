"""A note with broken front matter is never served: doctor and status must say so.

Everyday-use issue, round 2, item 3: `doctor` said "indexes: up to date" and exited 0, and
`status` counted the note nowhere; only `lint` named it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import CliRunner

BROKEN = ".lorebook/nodes/gotcha/practice-broken.md"
WHY = "invalid YAML in the frontmatter at line 2: did not find expected ',' or ']'"


@pytest.fixture
def broken_kb(kb_repo: Path, cli: CliRunner) -> Path:
    """A knowledge base with one good note and one broken one, indexes rebuilt since."""
    add = cli("note", "add", "--title", "Ruff only", "--description", "the one linter",
              "--kind", "tooling", "--body", "b", cwd=kb_repo)  # fmt: skip
    assert add.exit_code == 0, add.stderr
    (kb_repo / BROKEN).parent.mkdir(parents=True)
    (kb_repo / BROKEN).write_text("---\ntitle: [unclosed\n---\nbody\n")
    assert cli("index", "rebuild", cwd=kb_repo).exit_code == 1  # it skips the broken file
    return kb_repo


def test_doctor_fails_naming_the_invalid_note_and_why(broken_kb: Path, cli: CliRunner) -> None:
    result = cli("doctor", cwd=broken_kb)
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    at = lines.index(f"FAIL    notes: 1 note is invalid: {BROKEN}: {WHY}")
    assert lines[at + 1] == (
        "        fix: correct the front matter (`lorebook lint` lists every error); "
        "until then no session is given the note"
    )


def test_status_names_the_invalid_note_and_why(broken_kb: Path, cli: CliRunner) -> None:
    result = cli("status", cwd=broken_kb)
    assert result.exit_code == 0
    assert f"1 note is invalid: {BROKEN}: {WHY}" in result.stdout.splitlines()
    doc = cli("status", "--json", cwd=broken_kb).json()
    assert doc["invalid_notes"] == [{"path": BROKEN, "error": f"{BROKEN}: {WHY}"}]


def test_several_invalid_notes_are_counted_and_the_first_ones_named(
    broken_kb: Path, cli: CliRunner
) -> None:
    for n in range(4):
        (broken_kb / f".lorebook/nodes/gotcha/practice-more-{n}.md").write_text("no front matter\n")
    doctor = cli("doctor", "--json", cwd=broken_kb).json()
    notes = next(c for c in doctor["checks"] if c["name"] == "notes")
    assert notes["state"] == "problem"
    assert notes["detail"].startswith("5 notes are invalid: ")
    assert notes["detail"].endswith(" and 2 more")
    assert notes["detail"].count("practice-") == 3
    status = cli("status", cwd=broken_kb).stdout
    assert [line for line in status.splitlines() if "invalid" in line] == [notes["detail"]]


def test_a_healthy_knowledge_base_says_every_note_is_readable(
    kb_repo: Path, cli: CliRunner
) -> None:
    doc = cli("doctor", "--json", cwd=kb_repo).json()
    notes = next(c for c in doc["checks"] if c["name"] == "notes")
    assert (notes["state"], notes["detail"]) == ("ok", "0 notes, none invalid")
    assert "invalid" not in cli("status", cwd=kb_repo).stdout


def test_lint_says_to_mend_an_invalid_note_before_rebuilding(kb_repo: Path, cli: CliRunner) -> None:
    # A valid note broken by an edit: lint's "run `lorebook index rebuild`" alone led to a
    # rebuild that took the note out of ENTRY.md, GRAPH.md and its folder's index.
    add = cli("note", "add", "--title", "Ruff only", "--description", "the one linter",
              "--kind", "tooling", "--body", "b", cwd=kb_repo)  # fmt: skip
    assert add.exit_code == 0, add.stderr
    note = kb_repo / ".lorebook/nodes/tooling/tooling-ruff-only.md"
    note.write_text(note.read_text().replace("title: Ruff only", "title: [unclosed"))
    out = cli("lint", cwd=kb_repo).stdout
    stale = [line for line in out.splitlines() if "[stale-generated]" in line]
    assert (
        ".lorebook/ENTRY.md does not match the notes; fix the invalid notes, then run" in (stale[0])
    )
    assert all("fix the invalid notes, then run `lorebook index rebuild`" in s for s in stale)
