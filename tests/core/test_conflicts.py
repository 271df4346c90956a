"""Contradictions never overwrite: a conflict file per contradiction, and each decision
(accept, reject, keep as record, skip) does what it says."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lorebook.kb import frontmatter
from lorebook.models.curation import Conflict
from tests.conftest import CliRunner
from tests.core.test_curate import add_note, notes_of, proposal, stage

OLD_DEPENDENCY = {"path": "pyproject.toml", "sha256": "a" * 64}


@pytest.fixture
def conflicted(kb_repo: Path, cli: CliRunner) -> tuple[Path, str, Path]:
    """A note, a session contradicting it, curated: (note file, conflict id, conflict file)."""
    note_id = add_note(
        kb_repo, "Always rebase feature branches before merging", "Merging pull requests",
        body="Rebase onto main, then merge.", tags=("git",), folder="workflow",
        lb_derived_from=["claude:old:4"], lb_dependencies=[OLD_DEPENDENCY],
        lb_relates_to=[], lb_enforce="warn",
    )  # fmt: skip
    note_file = kb_repo / ".lorebook/nodes/workflow" / f"{note_id}.md"
    assert cli("index", "rebuild", cwd=kb_repo).exit_code == 0
    before = note_file.read_bytes()
    stage(kb_repo, "s9", [
        proposal("s9", 2, "Never rebase feature branches before merging",
                 "Branches other people have pulled", tags=("git", "history"),
                 body="Merge main into the branch instead; rebasing rewrites shared history."),
    ])  # fmt: skip
    result = cli("curate", "--json", cwd=kb_repo)
    assert result.exit_code == 0, result.stderr
    (path,) = result.json()["conflicts"]
    assert note_file.read_bytes() == before  # the note is not touched, not a byte
    conflict_file = kb_repo / path
    return note_file, conflict_file.stem, conflict_file


def _conflict(path: Path) -> tuple[Conflict, str]:
    data, body = frontmatter.split(path.read_text(encoding="utf-8"))
    return Conflict.model_validate(data), body


def test_a_contradiction_becomes_a_conflict_file(
    kb_repo: Path, cli: CliRunner, conflicted: tuple[Path, str, Path]
) -> None:
    _, conflict_id, path = conflicted
    assert path.parent == kb_repo / ".lorebook/conflicts"
    run, _, n = conflict_id.rpartition("-")
    assert (len(run), n) == (10, "1")
    conflict, body = _conflict(path)
    assert conflict.status == "open"
    assert conflict.target_id == "practice-always-rebase-feature-branches-before-merging"
    assert conflict.proposal.origin == "claude:s9:2"
    assert conflict.proposal.body.startswith("Merge main into the branch instead")
    assert "opposite polarity" in conflict.rationale
    for section in ("## Rationale", "## Current note", "## Proposed"):
        assert section in body
    assert "> Rebase onto main, then merge." in body
    assert "> Merge main into the branch instead; rebasing rewrites shared history." in body
    assert "Quoted from `claude:s9:2`" in body
    status = cli("status", "--json", cwd=kb_repo).json()
    assert status["open_conflicts"] == 1
    listed = cli("conflict", "list", "--json", cwd=kb_repo).json()["conflicts"]
    assert [(c["id"], c["status"], c["target_title"]) for c in listed] == [
        (conflict_id, "open", "Always rebase feature branches before merging")
    ]


OLD_ID = "practice-always-rebase-feature-branches-before-merging"
NEW_ID = "convention-never-rebase-feature-branches-before-merging"


def test_accept_rewrites_the_note_with_both_origins_and_only_new_dependencies(
    kb_repo: Path, cli: CliRunner, conflicted: tuple[Path, str, Path]
) -> None:
    note_file, conflict_id, path = conflicted
    result = cli("conflict", "resolve", conflict_id, "--decision", "accept",
                 "--why", "we merge now", "--json", cwd=kb_repo)  # fmt: skip
    assert result.exit_code == 0, result.stderr
    assert result.json()["status"] == "accepted"
    assert result.json()["renamed_to"] == NEW_ID
    notes = notes_of(kb_repo)
    assert list(notes) == [NEW_ID]  # its id said "always rebase": renamed, no second note
    assert not note_file.exists()
    assert (note_file.parent / f"{NEW_ID}.md").is_file()  # in the same folder
    ledger = json.loads((kb_repo / ".lorebook/nodes/.redirects.json").read_text())
    assert ledger == {OLD_ID: [NEW_ID]}
    shown = cli("note", "show", OLD_ID, "--json", cwd=kb_repo).json()  # the old id leads there
    assert [n["id"] for n in shown["notes"]] == [NEW_ID]
    note = notes[NEW_ID]
    assert note.title == "Never rebase feature branches before merging"
    assert note.body == "Merge main into the branch instead; rebasing rewrites shared history."
    assert note.derived_from == ["claude:old:4", "claude:s9:2"]
    assert note.dependencies == []  # the old justification does not carry over
    assert note.enforce == "none"
    assert note.tags == ["git", "history"]
    conflict, body = _conflict(path)
    assert (conflict.status, conflict.decided_because) == ("accepted", "we merge now")
    assert "## Decision\n\naccepted: we merge now" in body
    assert cli("lint", cwd=kb_repo).exit_code == 0  # indexes rebuilt
    assert cli("conflict", "list", "--json", cwd=kb_repo).json()["conflicts"] == []


def test_accept_that_renames_says_the_old_file_was_removed(
    kb_repo: Path, cli: CliRunner, conflicted: tuple[Path, str, Path]
) -> None:
    note_file, conflict_id, _ = conflicted
    done = cli("conflict", "resolve", conflict_id, "--decision", "accept", cwd=kb_repo)
    assert done.exit_code == 0, done.stderr
    lines = done.stdout.splitlines()
    old = note_file.relative_to(kb_repo).as_posix()
    new = (note_file.parent / f"{NEW_ID}.md").relative_to(kb_repo).as_posix()
    assert f"  removed {old}" in lines  # not "changed": the file is gone
    assert f"  changed {new}" in lines


def test_reject_leaves_the_note_untouched(
    kb_repo: Path, cli: CliRunner, conflicted: tuple[Path, str, Path]
) -> None:
    note_file, conflict_id, path = conflicted
    before = note_file.read_bytes()
    result = cli("conflict", "resolve", conflict_id, "--decision", "reject", cwd=kb_repo)
    assert result.exit_code == 0, result.stderr
    assert note_file.read_bytes() == before
    conflict, _ = _conflict(path)
    assert conflict.status == "rejected"
    assert conflict.decided_because is None
    assert "rejected: no reason given" in path.read_text()


def test_keep_records_the_claim_without_changing_the_note(
    kb_repo: Path, cli: CliRunner, conflicted: tuple[Path, str, Path]
) -> None:
    note_file, conflict_id, path = conflicted
    before = note_file.read_bytes()
    result = cli("conflict", "resolve", conflict_id, "--decision", "keep",
                 "--why", "true for the release branch only", cwd=kb_repo)  # fmt: skip
    assert result.exit_code == 0, result.stderr
    assert note_file.read_bytes() == before
    conflict, _ = _conflict(path)
    assert (conflict.status, conflict.decided_because) == (
        "kept",
        "true for the release branch only",
    )
    assert conflict.proposal.origin == "claude:s9:2"  # the record keeps the whole claim
    assert cli("conflict", "list", "--json", cwd=kb_repo).json()["conflicts"] == []
    every = cli("conflict", "list", "--all", "--json", cwd=kb_repo).json()["conflicts"]
    assert [c["status"] for c in every] == ["kept"]
    assert cli("status", "--json", cwd=kb_repo).json()["open_conflicts"] == 0


def test_skip_leaves_it_open_for_later(
    kb_repo: Path, cli: CliRunner, conflicted: tuple[Path, str, Path]
) -> None:
    note_file, conflict_id, path = conflicted
    before = note_file.read_bytes()
    assert cli("conflict", "resolve", conflict_id, "--decision", "skip", cwd=kb_repo).exit_code == 0
    assert note_file.read_bytes() == before
    conflict, body = _conflict(path)
    assert conflict.status == "skipped"
    assert "Decide with `lorebook conflict resolve" in body
    listed = cli("conflict", "list", "--json", cwd=kb_repo).json()["conflicts"]
    assert [(c["id"], c["status"]) for c in listed] == [(conflict_id, "skipped")]
    later = cli("conflict", "resolve", conflict_id, "--decision", "reject", cwd=kb_repo)
    assert later.exit_code == 0
    assert _conflict(path)[0].status == "rejected"
    assert "## Decision" in path.read_text()
    assert path.read_text().count("## Decision") == 1


def test_a_decided_conflict_is_a_record(
    kb_repo: Path, cli: CliRunner, conflicted: tuple[Path, str, Path]
) -> None:
    _, conflict_id, path = conflicted
    assert cli("conflict", "resolve", conflict_id, "--decision", "keep", cwd=kb_repo).exit_code == 0
    recorded = path.read_bytes()
    again = cli("conflict", "resolve", conflict_id, "--decision", "accept", "--json", cwd=kb_repo)
    assert again.exit_code == 1
    assert again.json()["ok"] is False
    assert "is decided already (kept" in again.stderr
    assert path.read_bytes() == recorded


def test_accept_without_the_target_changes_nothing(
    kb_repo: Path, cli: CliRunner, conflicted: tuple[Path, str, Path]
) -> None:
    note_file, conflict_id, path = conflicted
    note_file.unlink()
    before = path.read_bytes()
    result = cli("conflict", "resolve", conflict_id, "--decision", "accept", cwd=kb_repo)
    assert result.exit_code == 1
    assert "no longer exists" in result.stderr
    assert path.read_bytes() == before


def test_an_unknown_conflict_is_an_error(kb_repo: Path, cli: CliRunner) -> None:
    result = cli("conflict", "resolve", "0123456789-7", "--decision", "skip", cwd=kb_repo)
    assert result.exit_code == 1
    assert "no conflict '0123456789-7'" in result.stderr
    bad = cli("conflict", "resolve", "../x", "--decision", "skip", cwd=kb_repo)
    assert bad.exit_code == 1


def test_the_same_contradiction_is_recorded_once(
    kb_repo: Path, cli: CliRunner, conflicted: tuple[Path, str, Path]
) -> None:
    _, conflict_id, _ = conflicted
    log = next((kb_repo / ".lorebook/_sessions").glob("*.json"))
    log.write_text(log.read_text().replace('"status": "curated"', '"status": "extracted"'))
    again = cli("curate", "--json", cwd=kb_repo).json()
    (result,) = again["results"]
    assert (result["action"], result["status"], result["detail"]) == (
        "contradict", "already-applied", conflict_id
    )  # fmt: skip
    assert len(list((kb_repo / ".lorebook/conflicts").glob("*.md"))) == 1


def test_the_help_says_what_keep_means(cli: CliRunner) -> None:
    text = cli("conflict", "resolve", "--help").stdout
    for words in ("accept", "reject", "keep", "skip", "record of a claim", "decide later"):
        assert words in " ".join(text.split())


def test_accept_keeps_an_id_a_person_chose(kb_repo: Path, cli: CliRunner) -> None:
    note_id = add_note(kb_repo, "Always rebase feature branches before merging",
                       "Merging pull requests", tags=("git",), folder="workflow",
                       lb_id="practice-branch-policy")  # fmt: skip
    assert note_id == "practice-branch-policy"
    assert cli("index", "rebuild", cwd=kb_repo).exit_code == 0
    stage(kb_repo, "s9", [proposal("s9", 2, "Never rebase feature branches before merging",
                                   "Branches other people have pulled", tags=("git",))])  # fmt: skip
    (path,) = cli("curate", "--json", cwd=kb_repo).json()["conflicts"]
    done = cli("conflict", "resolve", Path(path).stem, "--decision", "accept", cwd=kb_repo)
    assert done.exit_code == 0, done.stderr
    assert "renamed" not in done.stdout
    assert list(notes_of(kb_repo)) == ["practice-branch-policy"]
    assert not (kb_repo / ".lorebook/nodes/.redirects.json").exists()


def test_an_accept_interrupted_after_the_new_file_is_finished_by_giving_it_again(
    kb_repo: Path,
    cli: CliRunner,
    conflicted: tuple[Path, str, Path],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from lorebook.curate import resolve
    from lorebook.kb import redirects

    note_file, conflict_id, _ = conflicted

    def dies(*_: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(resolve, "write_redirects", dies)
    cut = cli("conflict", "resolve", conflict_id, "--decision", "accept", cwd=kb_repo)
    assert cut.exit_code == 130
    monkeypatch.setattr(resolve, "write_redirects", redirects.write_redirects)
    assert note_file.exists()  # the old note is still there, and the new one beside it
    assert sorted(notes_of(kb_repo)) == [NEW_ID, OLD_ID]
    done = cli("conflict", "resolve", conflict_id, "--decision", "accept", "--json", cwd=kb_repo)
    assert done.exit_code == 0, done.stderr
    assert done.json()["renamed_to"] == NEW_ID  # not a -2: the note written before is it
    assert list(notes_of(kb_repo)) == [NEW_ID]
    assert cli("lint", cwd=kb_repo).exit_code == 0
