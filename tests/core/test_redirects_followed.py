"""A retired note id (split or renamed, ``nodes/.redirects.json``) handed to a command.

``note verify`` and ``note erratum`` change one note: given the id a note had before it was
renamed they act on the note it is now and say so; an id split into several notes is refused
naming them, and an id that was never a note is still "no note with id".
"""

from __future__ import annotations

import json
from pathlib import Path

from lorebook.kb.paths import KBPaths
from lorebook.kb.store import MarkdownStore
from tests.conftest import CliRunner
from tests.core.test_curate import add_note

OLD = "practice-run-the-linter-first"
"""The id the note had before it was renamed."""


def _renamed(repo: Path) -> str:
    """A note, and the ledger saying OLD (its former id) leads to it; return its id."""
    live = add_note(repo, "Run ruff before committing", "Before every commit")
    KBPaths(repo).redirects.write_text(json.dumps({OLD: [live]}) + "\n", encoding="utf-8")
    return live


def test_an_erratum_given_a_renamed_notes_old_id_lands_on_the_note_it_is_now(
    kb_repo: Path, cli: CliRunner
) -> None:
    live = _renamed(kb_repo)
    done = cli("note", "erratum", OLD, "ruff format too, not only ruff check", "--json",
               cwd=kb_repo)  # fmt: skip
    assert done.exit_code == 0, done.stderr  # before: "no note with id"
    assert done.json()["id"] == live
    assert f"{OLD} was retired; it is now {live}" in done.stderr
    note = MarkdownStore(kb_repo).get(live)
    assert [e.text for e in note.errata] == ["ruff format too, not only ruff check"]


def test_verify_given_a_renamed_notes_old_id_checks_the_note_it_is_now(
    kb_repo: Path, cli: CliRunner
) -> None:
    live = _renamed(kb_repo)
    done = cli("note", "verify", OLD, cwd=kb_repo)
    assert done.exit_code == 0, done.stderr  # before: "no note with id"
    assert f"{OLD} was retired; it is now {live}" in done.stderr
    assert done.stdout.startswith(f"{live} was ")


def test_an_id_split_into_several_notes_is_refused_naming_them(
    kb_repo: Path, cli: CliRunner
) -> None:
    first = add_note(kb_repo, "Run ruff before committing", "Before every commit")
    second = add_note(kb_repo, "Run mypy before committing", "Before every commit")
    ledger = {OLD: [first, second]}
    KBPaths(kb_repo).redirects.write_text(json.dumps(ledger) + "\n", encoding="utf-8")
    before = {p: p.read_bytes() for p in (kb_repo / ".lorebook/nodes").rglob("*.md")}
    done = cli("note", "erratum", OLD, "a correction", cwd=kb_repo)
    assert done.exit_code == 1
    assert f"{OLD!r} was retired; it is now {second}, {first}" in done.stderr  # sorted
    assert "name the one you mean" in done.stderr
    assert "Traceback" not in done.stderr
    assert {p: p.read_bytes() for p in (kb_repo / ".lorebook/nodes").rglob("*.md")} == before


def test_an_id_that_was_never_a_note_is_still_not_found(kb_repo: Path, cli: CliRunner) -> None:
    _renamed(kb_repo)
    done = cli("note", "verify", "practice-no-such-thing", cwd=kb_repo)
    assert done.exit_code == 1
    assert "no note with id 'practice-no-such-thing'" in done.stderr
    assert "retired" not in done.stderr


def test_review_accept_given_a_retired_id_accepts_the_unreviewed_notes_it_leads_to(
    kb_repo: Path, cli: CliRunner
) -> None:
    from lorebook import reviewstate
    from lorebook.recall.sync import reconcile

    first = add_note(kb_repo, "Run ruff before committing", "Before every commit", folder="git")
    second = add_note(kb_repo, "Run mypy before committing", "Before every commit", folder="git")
    paths = KBPaths(kb_repo)
    paths.redirects.write_text(json.dumps({OLD: [first, second]}) + "\n", encoding="utf-8")
    root = str(paths.root)
    reviewstate.mark(root, {first: f"git/{first}.md", second: f"git/{second}.md"})
    reconcile(paths)
    done = cli("review", "--accept", OLD, "--json", cwd=kb_repo)
    assert done.exit_code == 0, done.stderr  # before: "no such note"
    assert sorted(done.json()["accepted"]) == sorted([first, second])
    assert f"{OLD} was retired; it is now " in done.stderr
    assert reviewstate.unreviewed(root) == {}
    again = cli("review", "--accept", OLD, cwd=kb_repo)  # nothing left to accept
    assert again.exit_code == 1
    assert "none of them is unreviewed" in again.stderr


def test_refute_and_supersede_given_a_renamed_notes_old_id_act_on_the_note_it_is_now(
    kb_repo: Path, cli: CliRunner
) -> None:
    live = _renamed(kb_repo)
    other = add_note(kb_repo, "Run ruff and mypy before committing", "Before every commit")
    done = cli("note", "supersede", OLD, other, "--json", cwd=kb_repo)
    assert done.exit_code == 0, done.stderr  # before: "'...' is not a note"
    assert f"{OLD} was retired; it is now {live}" in done.stderr
    store = MarkdownStore(kb_repo)
    assert store.get(live).status == "superseded"
    assert store.get(other).supersedes == [live]
    refuted = cli("note", "refute", OLD, "--why", "ruff is not used here", cwd=kb_repo)
    assert refuted.exit_code == 1  # a superseded note is not refuted; the message names it
    assert live in refuted.stderr


def test_refute_given_a_renamed_notes_old_id_refutes_the_note_it_is_now(
    kb_repo: Path, cli: CliRunner
) -> None:
    live = _renamed(kb_repo)
    done = cli("note", "refute", OLD, "--why", "ruff is not used here", cwd=kb_repo)
    assert done.exit_code == 0, done.stderr  # before: "'...' is not a note"
    assert f"{OLD} was retired; it is now {live}" in done.stderr
    assert MarkdownStore(kb_repo).get(live).status == "refuted"
