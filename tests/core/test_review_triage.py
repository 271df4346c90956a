"""`lorebook review` at a terminal: triage by origin, driven in a real pseudo-terminal.

pexpect starts the real command in a pty (stdin and stdout are a terminal, as for a person)
and types single keys; the knowledge base is then checked on disk and in the review state.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pexpect
import pytest

from lorebook import reviewstate
from lorebook.kb.notes import render_note
from lorebook.models.note import Note
from tests.conftest import CliRunner, git

NODES = Path(".lorebook/nodes")
PROMPT = "[a]ccept [r]eject [e]dit [s]kip, group [A/R/S], [?] [q]uit > "
ORIGINS = {
    "session": "claude:s1:{n}",
    "document": "AGENTS.md#testing",
    "harvest": "claude-memory:notes.md@0a1b2c3d",
}


def _write(repo: Path, name: str, origin: str, n: int) -> str:
    note_id = f"practice-{name}-rule-{n:03d}"
    note = Note.model_validate(
        {
            "type": "practice",
            "title": f"{name.title()} rule {n}",
            "description": f"When the {name} rule {n} applies",
            "lb_id": note_id,
            "lb_kind": "convention",
            "lb_derived_from": [origin.format(n=n)],
            "body": f"> The {name} says rule {n}.\n\nBody of {name} rule {n}.",
        }
    )
    (repo / NODES / "convention" / f"{note_id}.md").write_text(render_note(note, None))
    return note_id


@pytest.fixture
def three_origins(kb_repo: Path, cli: CliRunner) -> tuple[Path, dict[str, list[str]]]:
    """300 notes dropped into nodes/ and not committed: 100 from each of three origins."""
    git(kb_repo, "add", "-A")
    git(kb_repo, "commit", "-qm", "init")
    (kb_repo / NODES / "convention").mkdir(parents=True, exist_ok=True)
    ids = {name: [_write(kb_repo, name, o, n) for n in range(100)] for name, o in ORIGINS.items()}
    assert cli("index", "rebuild", cwd=kb_repo).exit_code == 0
    assert len(reviewstate.unreviewed(str(kb_repo / ".lorebook"))) == 300
    return kb_repo, ids


def _spawn(repo: Path, *args: str, **env: str) -> pexpect.spawn[str]:
    full = {**os.environ, "TERM": "xterm", **env}
    return pexpect.spawn(
        sys.executable, ["-m", "lorebook", "review", *args], cwd=str(repo), env=full,
        encoding="utf-8", timeout=120, dimensions=(50, 200),
    )  # fmt: skip


def _keys(child: pexpect.spawn[str], *keys: str) -> None:
    for key in keys:
        child.expect_exact(PROMPT)
        child.send(key)


def _files(repo: Path) -> set[str]:
    return {p.stem for p in (repo / NODES).rglob("practice-*.md")}


def test_three_hundred_notes_triaged_by_group_in_six_keys(
    three_origins: tuple[Path, dict[str, list[str]]],
) -> None:
    repo, ids = three_origins
    child = _spawn(repo)
    child.expect_exact("300 unreviewed notes in 3 groups")
    child.expect_exact("group 1/3: session:claude:s1: 100 notes")
    child.expect_exact("[1/100] Session rule 0 (convention)")
    child.expect_exact("> The session says rule 0.")  # its evidence
    _keys(child, "a", "r", "A")  # the first accepted, the second rejected, the rest accepted
    child.expect_exact("group 2/3: document:AGENTS.md: 100 notes")
    _keys(child, "R")  # the whole document's notes rejected
    child.expect_exact("group 3/3: harvest:claude-memory: 100 notes")
    _keys(child, "s", "A")  # the first skipped, the rest accepted
    child.expect_exact("accepted 198, rejected 101, still unreviewed 1")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0, child.before

    rejected = {ids["session"][1], *ids["document"]}
    skipped = ids["harvest"][0]
    accepted = {*ids["session"], *ids["harvest"]} - rejected - {skipped}
    assert len(accepted) == 198
    assert _files(repo) == accepted | {skipped}  # the rejected notes are gone
    assert set(reviewstate.unreviewed(str(repo / ".lorebook"))) == {skipped}
    assert set(reviewstate.reviews(str(repo / ".lorebook"))) == accepted
    assert "rejected-claims.txt" in git(repo, "status", "--porcelain")  # claims remembered


def test_quitting_keeps_what_was_decided(
    three_origins: tuple[Path, dict[str, list[str]]],
) -> None:
    repo, ids = three_origins
    child = _spawn(repo)
    _keys(child, "A", "r", "q")  # the session accepted, one document note rejected, quit
    child.expect_exact("accepted 100, rejected 1, still unreviewed 199")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert set(reviewstate.reviews(str(repo / ".lorebook"))) == set(ids["session"])
    assert ids["document"][0] not in _files(repo)
    assert len(reviewstate.unreviewed(str(repo / ".lorebook"))) == 199


def test_edit_opens_the_editor_and_accepts_the_note_as_edited(
    three_origins: tuple[Path, dict[str, list[str]]],
) -> None:
    repo, ids = three_origins
    child = _spawn(repo, "--origin", "harvest", EDITOR="sed -i s/Body/Edited/")
    child.expect_exact("group 1/1: harvest:claude-memory: 100 notes")
    _keys(child, "x")  # an unknown key shows the keys
    child.expect_exact("keys: a accept, r reject, e edit, s skip")
    _keys(child, "e", "a", "q")
    child.expect(pexpect.EOF)
    child.close()
    first = repo / NODES / "convention" / f"{ids['harvest'][0]}.md"
    assert "Edited of harvest rule 0." in first.read_text()
    assert set(reviewstate.reviews(str(repo / ".lorebook"))) == {ids["harvest"][0]}
    assert len(reviewstate.unreviewed(str(repo / ".lorebook"))) == 299


def test_without_a_terminal_review_is_grouped_and_summarised(
    three_origins: tuple[Path, dict[str, list[str]]], cli: CliRunner
) -> None:
    repo, _ = three_origins
    out = cli("review", cwd=repo)
    assert out.exit_code == 0, out.stderr
    lines = out.stdout.splitlines()
    assert len(lines) < 30, out.stdout
    assert "unreviewed notes: 300 in 3 groups by origin" in lines[1]
    for origin in ("session:claude:s1", "document:AGENTS.md", "harvest:claude-memory"):
        assert f"  {origin}: 100 notes" in lines
    assert lines.count("    ... and 97 more (--verbose lists every one)") == 3
    verbose = cli("review", "--verbose", cwd=repo).stdout
    assert verbose.count("      > The ") == 300  # every note with its evidence, then the diff
    assert "+title: Harvest rule 99" in verbose


def test_accept_and_reject_take_many_paths_or_an_origin(
    three_origins: tuple[Path, dict[str, list[str]]], cli: CliRunner
) -> None:
    repo, ids = three_origins
    kb = str(repo / ".lorebook")
    paths = [str(NODES / "convention" / f"{i}.md") for i in ids["session"][:2]]
    accepted = cli("review", "--accept", *paths, "--json", cwd=repo)
    assert accepted.json()["accepted"] == ids["session"][:2], accepted.stderr
    rejected = cli("review", "--reject", "--origin", "document", "--json", cwd=repo)
    assert rejected.exit_code == 0, rejected.stderr
    assert len(rejected.json()["rejections"]) == 100
    assert not set(ids["document"]) & _files(repo)
    assert cli("review", "--accept", "--origin", "harvest:claude-memory", cwd=repo).stdout == (
        "accepted 100 notes (--verbose lists them)\n"
    )
    assert set(reviewstate.unreviewed(kb)) == set(ids["session"][2:])


@pytest.mark.parametrize("flag", ["--reject", "--accept"])
def test_a_path_that_does_not_exist_is_named_as_such(
    three_origins: tuple[Path, dict[str, list[str]]], cli: CliRunner, flag: str
) -> None:
    repo, ids = three_origins
    missing = ".lorebook/nodes/convention/practice-no-such-rule.md"
    result = cli("review", flag, str(NODES / "convention" / f"{ids['session'][0]}.md"),
                 missing, cwd=repo)  # fmt: skip
    assert result.exit_code == 1
    assert f"no such note: {missing}" in result.stderr
    assert "outside" not in result.stderr
    assert len(reviewstate.unreviewed(str(repo / ".lorebook"))) == 300  # nothing decided


def test_rejecting_one_missing_path_relative_to_the_knowledge_base(
    three_origins: tuple[Path, dict[str, list[str]]], cli: CliRunner
) -> None:
    repo, _ = three_origins
    result = cli("review", "--reject", "nodes/convention/practice-typo.md", cwd=repo)
    assert result.exit_code == 1
    assert "no such note: nodes/convention/practice-typo.md" in result.stderr  # not "outside"


def test_rejecting_a_folders_last_note_drops_its_summary(kb_repo: Path, cli: CliRunner) -> None:
    # Curation summarised the folder it created; after a person rejected everything it put
    # there, lint warned "summary-without-folder" about lorebook's own leftover.
    from tests.core.test_curate import curate, proposal, stage

    title = "We chose Postgres over MongoDB for the ledger"
    stage(kb_repo, "s-a", [proposal("s-a", 0, title, kind="decision")])
    curate(kb_repo)
    summaries = kb_repo / ".lorebook/FOLDER_SUMMARIES.md"
    assert "- `decision`:" in summaries.read_text()
    note = ".lorebook/nodes/decision/decision-we-chose-postgres-over-mongodb-for-the-ledger.md"
    assert cli("review", "--reject", note, cwd=kb_repo).exit_code == 0
    assert "- `decision`:" not in summaries.read_text()
    assert "summary-without-folder" not in cli("lint", cwd=kb_repo).stdout


def test_each_note_of_one_section_shows_its_own_evidence(kb_repo: Path, cli: CliRunner) -> None:
    """Two rules bootstrap took from one section share their origin (AGENTS.md#workflows):
    each is shown with its own quote, not the first proposal's of that section."""
    (kb_repo / "AGENTS.md").write_text(
        "# Project\n\n## Workflows\n\n"
        "**Never hand-edit a `*.lock.yml`.** It is generated from its markdown source.\n\n"
        "Always recompile with `gh aw compile` after changing a workflow's markdown source, "
        "and commit both files together.\n"
    )
    git(kb_repo, "add", "-A")
    git(kb_repo, "commit", "-qm", "init")
    assert cli("bootstrap", cwd=kb_repo).exit_code == 0
    lines = cli("review", "--verbose", cwd=kb_repo).stdout.splitlines()
    shown = {
        line.strip().split("  ", 1)[1]: lines[i + 1].strip()
        for i, line in enumerate(lines)
        if line.startswith("    .lorebook/nodes/")
    }
    assert shown == {
        "Always recompile with `gh aw compile` after changing a workflow's markdown source, "
        "and commit both files together (convention)": "> Always recompile with `gh aw "
        "compile` after changing a workflow's markdown source, and commit both files together.",
        "Never hand-edit a `*.lock.yml` (prohibition)": "> **Never hand-edit a `*.lock.yml`.**",
    }
