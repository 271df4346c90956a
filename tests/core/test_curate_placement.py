"""Where curation files a note: in the folder of its kind, unless a person put it elsewhere."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lorebook import hookimpl
from lorebook.curate.base import KbView
from lorebook.curate.placement import choose_folder, folder_kind, place_adds
from lorebook.models.curation import AddAction
from lorebook.models.session import Proposal
from lorebook.plugins import make_plugins
from tests.conftest import CliRunner
from tests.core.test_curate import add_note, curate, notes_of, proposal, stage

NODES = ".lorebook/nodes"


def _folders(report: Any) -> dict[str, str]:
    """Proposal id -> the folder its note landed in."""
    return {
        r.proposal_id: r.path.removeprefix(f"{NODES}/").rsplit("/", 1)[0]
        for r in report.results
        if r.path
    }


def test_conventions_sharing_a_tag_with_a_prohibition_are_not_filed_in_prohibition(
    kb_repo: Path,
) -> None:
    # What users saw: one shared tag (weight 3) was enough for any folder to take a note.
    add_note(kb_repo, "Never force-push to main", kind="prohibition", tags=("git",),
             body="Force-pushing rewrites history others have pulled.", folder="prohibition")  # fmt: skip
    stage(kb_repo, "s1", [
        proposal("s1", 1, "Squash commits before merging", tags=("git",)),
        proposal("s1", 2, "Write commit subjects in the imperative", tags=("git",)),
        proposal("s1", 3, "Rebase onto main before opening a pull request", tags=("git",)),
        proposal("s1", 4, "Never commit generated files", kind="prohibition", tags=("git",)),
    ])  # fmt: skip
    folders = _folders(curate(kb_repo))
    assert folders == {"s1:1": "convention", "s1:2": "convention", "s1:3": "convention",
                       "s1:4": "prohibition"}  # fmt: skip
    filed = sorted((kb_repo / NODES / "prohibition").glob("*.md"))
    assert [p.name for p in filed] == ["index.md", "practice-never-force-push-to-main.md",
                                       "prohibition-never-commit-generated-files.md"]  # fmt: skip


def test_a_folder_a_person_made_for_one_kind_takes_more_of_that_kind_only(kb_repo: Path) -> None:
    add_note(kb_repo, "Tag releases with the version number", tags=("release",), folder="release")
    add_note(kb_repo, "Publish the changelog with each release", tags=("release",),
             folder="release")  # fmt: skip
    add_note(kb_repo, "Postgres runs in docker compose", kind="location", tags=("postgres",),
             folder="database")  # fmt: skip
    add_note(kb_repo, "Use psql for ad-hoc queries", kind="tooling", tags=("postgres",),
             folder="database")  # fmt: skip
    stage(kb_repo, "s1", [
        proposal("s1", 1, "Sign every release tag", tags=("release",)),
        proposal("s1", 2, "Never release on a Friday", kind="prohibition", tags=("release",)),
        proposal("s1", 3, "Vacuum the analytics tables weekly", tags=("postgres",)),
    ])  # fmt: skip
    folders = _folders(curate(kb_repo))
    assert folders["s1:1"] == "release"  # a folder of conventions: this one fits it
    assert folders["s1:2"] == "prohibition"  # the same folder is not a prohibition's
    assert folders["s1:3"] == "convention"  # database/ mixes kinds: it takes no new note


def test_a_subfolder_of_the_kind_takes_a_note_that_fits_it(kb_repo: Path) -> None:
    add_note(kb_repo, "Pin actions by commit sha", tags=("ci",), folder="convention/ci")
    add_note(kb_repo, "Use tabs in Makefiles", tags=("make",), folder="convention")
    stage(kb_repo, "s1", [
        proposal("s1", 1, "Cache the uv download in ci", tags=("ci",)),
        proposal("s1", 2, "Keep line length at 100", tags=("style",)),
    ])  # fmt: skip
    folders = _folders(curate(kb_repo))
    assert folders == {"s1:1": "convention/ci", "s1:2": "convention"}


def test_a_note_a_person_moved_stays_where_it_is_when_merged_or_rewritten(
    kb_repo: Path, cli: CliRunner
) -> None:
    note_id = add_note(kb_repo, "Use uv to manage Python dependencies", kind="tooling",
                       folder="prohibition")  # fmt: skip
    add_note(kb_repo, "Always rebase feature branches", folder="workflow")
    stage(kb_repo, "s1", [
        proposal("s1", 1, "Manage Python dependencies with uv", kind="tooling"),
        proposal("s1", 2, "Never rebase feature branches", kind="prohibition"),
    ])  # fmt: skip
    report = curate(kb_repo)
    assert [r.action for r in report.results] == ["modify", "contradict"]
    assert report.results[0].path == f"{NODES}/prohibition/{note_id}.md"
    assert notes_of(kb_repo)[note_id].derived_from == ["claude:s1:1"]
    conflict_id = report.results[1].detail
    assert (
        cli("conflict", "resolve", conflict_id, "--decision", "accept", cwd=kb_repo).exit_code == 0
    )
    # the new claim's kind, same place; its id said "always rebase", so it says the new title
    rewritten = kb_repo / NODES / "workflow/prohibition-never-rebase-feature-branches.md"
    assert "lb_kind: prohibition" in rewritten.read_text()
    assert not (kb_repo / NODES / "workflow/practice-always-rebase-feature-branches.md").exists()
    assert not list((kb_repo / NODES / "prohibition").glob("*rebase*"))
    assert cli("lint", cwd=kb_repo).exit_code == 0


class MisfilingCurator:
    """A plugin curator that files every new note in ``prohibition/``."""

    @hookimpl
    def curate(self, proposals: list[Proposal], store: Any) -> list[Any]:
        from lorebook.curate.notes import new_note_id, note_from_proposal

        return [
            AddAction(
                proposal_id=p.id,
                note=note_from_proposal(p, new_note_id(p.type, p.title, [])),
                folder="prohibition",
                folder_summary="Prohibitions.",
            )
            for p in proposals
        ]


def test_every_curators_batch_is_filed_by_kind(kb_repo: Path) -> None:
    add_note(kb_repo, "Never force-push to main", kind="prohibition", folder="prohibition")
    stage(kb_repo, "s1", [proposal("s1", 1, "Squash commits before merging"),
                          proposal("s1", 2, "Never commit secrets", kind="prohibition")])  # fmt: skip
    plugins = make_plugins(load_external=False)
    plugins.pm.register(MisfilingCurator())
    folders = _folders(curate(kb_repo, plugins=plugins))
    assert folders == {"s1:1": "convention", "s1:2": "prohibition"}
    summaries = (kb_repo / ".lorebook/FOLDER_SUMMARIES.md").read_text()
    assert "- `convention`: Conventions: how things are done in this project." in summaries


def test_folder_kind_and_choice_follow_the_rule() -> None:
    from lorebook.models.note import Note

    def note(kind: str, title: str, tags: tuple[str, ...] = ()) -> Note:
        note_type = "map" if kind in ("feature", "vocabulary", "location") else "practice"
        return Note.model_validate({"type": note_type, "title": title, "description": "D",
                                    "tags": list(tags), "lb_id": f"{note_type}-x",
                                    "lb_kind": kind})  # fmt: skip

    convention, prohibition = note("convention", "A"), note("prohibition", "B")
    assert folder_kind("prohibition", [convention, convention]) == "prohibition"
    assert folder_kind("convention/git", []) == "convention"
    assert folder_kind("mine", [convention, convention, prohibition]) == "convention"
    assert folder_kind("mine", [convention, prohibition]) is None
    assert folder_kind("mine", []) is None
    new = note("convention", "Squash commits", ("git",))
    tagged = [note("prohibition", "Never push", ("git",))]
    assert choose_folder(new, {"prohibition": tagged}) == (
        "convention",
        "Conventions: how things are done in this project.",
    )
    assert choose_folder(new, {"prohibition": tagged, "convention": []}) == ("convention", None)
    view = KbView()
    add = AddAction(proposal_id="s:1", note=new, folder="", folder_summary=None)
    (placed,) = place_adds([add], view)
    assert isinstance(placed, AddAction)
    assert placed.folder == "convention"  # the root is of no kind
