"""A note id may carry the note's kind (``prohibition-never-push``), and old ids stay valid."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from lorebook.models.note import ID_RE, Note
from tests.conftest import CliRunner


def _note(note_id: str, kind: str = "prohibition") -> Note:
    return Note.model_validate(
        {"type": "practice", "title": "Never push to main", "description": "When pushing",
         "lb_id": note_id, "lb_kind": kind}
    )  # fmt: skip


@pytest.mark.parametrize("note_id", ["prohibition-never-push", "practice-never-push"])
def test_an_id_starts_with_its_kind_or_its_type(note_id: str) -> None:
    assert _note(note_id).id == note_id
    assert ID_RE.match(note_id)


def test_an_id_naming_another_kind_is_refused_in_words() -> None:
    with pytest.raises(ValidationError, match="must start with its kind or its type: "
                       "'prohibition-' or 'practice-'"):  # fmt: skip
        _note("gotcha-never-push")
    with pytest.raises(ValidationError):
        _note("feature-never-push")  # a map kind on a practice


def test_note_add_takes_an_id_that_says_the_kind(kb_repo: Path, cli: CliRunner) -> None:
    added = cli("note", "add", "--title", "Never push to main", "--description", "When pushing",
                "--kind", "prohibition", "--id", "prohibition-never-push", "--body", "No.",
                cwd=kb_repo)  # fmt: skip
    assert added.exit_code == 0, added.stderr
    assert (kb_repo / ".lorebook/nodes/prohibition/prohibition-never-push.md").is_file()
    assert cli("lint", cwd=kb_repo).exit_code == 0
    shown = cli("note", "show", "prohibition-never-push", cwd=kb_repo)
    assert shown.exit_code == 0, shown.stderr


def test_note_add_mints_an_id_that_says_the_kind(kb_repo: Path, cli: CliRunner) -> None:
    added = cli("note", "add", "--title", "Never push to main", "--description", "When pushing",
                "--kind", "prohibition", "--body", "No.", "--json", cwd=kb_repo)  # fmt: skip
    assert added.exit_code == 0, added.stderr
    assert added.json()["id"] == "prohibition-never-push-to-main"  # was practice-never-push...
    assert (kb_repo / ".lorebook/nodes/prohibition/prohibition-never-push-to-main.md").is_file()
    mapped = cli("note", "add", "--title", "Billing service", "--description", "Where it is",
                 "--kind", "location", "--json", cwd=kb_repo)  # fmt: skip
    assert mapped.json()["id"] == "location-billing-service"


def test_curation_mints_an_id_that_says_the_kind(kb_repo: Path, cli: CliRunner) -> None:
    from tests.core.test_curate import notes_of, proposal, stage

    stage(kb_repo, "s1", [
        proposal("s1", 1, "Never push to main", "When pushing", kind="prohibition"),
        proposal("s1", 2, "Run the tests with uv run pytest", "Running the tests"),
    ])  # fmt: skip
    done = cli("curate", "--json", cwd=kb_repo)
    assert done.exit_code == 0, done.stderr
    assert sorted(notes_of(kb_repo)) == [
        "convention-run-the-tests-with-uv-run-pytest",
        "prohibition-never-push-to-main",
    ]
