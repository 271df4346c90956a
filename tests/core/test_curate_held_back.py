"""Curation never gets stuck: an action that cannot be written is held back on its own.

The curator's batch is still checked whole before the first write, but a bad action no
longer refuses the batch: its proposal is dropped with one warning line (its title, its
session, why, and what the user can do, ``lorebook forget-session`` included), every other
action is written, and its session is consumed so that a rerun neither asks the curator
again nor warns again.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from lorebook import hookimpl
from lorebook.capture.stage import load_log, log_path
from lorebook.config import load_config
from lorebook.curate.base import CurationError
from lorebook.curate.rules import RulesCurator
from lorebook.kb.paths import KBPaths
from lorebook.models.curation import (
    AddAction,
    ContradictAction,
    CuratorAction,
    DropAction,
    ModifyAction,
)
from lorebook.models.note import Note
from lorebook.models.session import Proposal
from lorebook.plugins import Plugins, make_plugins
from tests.conftest import CliRunner
from tests.core.test_curate import add_note, curate, notes_of, proposal, stage, tree

TOKEN = "7f3kQ9zL2mX8pW4r"
CONTRADICTED = "Always rebase feature branches before merging"
CONTRADICTION = "Never rebase feature branches before merging"


class LeakyRationale:
    """Curates as the rules do, but a contradiction's rationale quotes a token (an LLM's
    rationale that copied what it read)."""

    @hookimpl
    def curate(self, proposals: list[Proposal], store: Any) -> list[CuratorAction]:
        actions = RulesCurator().curate(proposals, store)
        return [
            a.model_copy(update={"rationale": f"{a.rationale}; the note used api_key = {TOKEN}"})
            if isinstance(a, ContradictAction)
            else a
            for a in actions
        ]


class Scripted:
    """A plugin whose curate hook answers first with a fixed batch."""

    def __init__(self, actions: list[Any]) -> None:
        self.actions = actions

    @hookimpl
    def curate(self, proposals: list[Proposal], store: Any) -> list[Any]:
        return self.actions


def _host(*extra: object) -> Plugins:
    plugins = make_plugins(load_external=False)
    for plugin in extra:
        plugins.pm.register(plugin)
    return plugins


def _cli_with(plugin: object, cli: CliRunner, *args: str, cwd: Path) -> Any:
    """Run the CLI with ``plugin`` registered on the process-wide plugin host."""
    from lorebook import plugins as plugins_module

    plugins_module.get_plugins.cache_clear()
    plugins_module.get_plugins().pm.register(plugin)
    try:
        return cli(*args, cwd=cwd)
    finally:
        plugins_module.get_plugins.cache_clear()


def _written(repo: Path) -> str:
    """Every file curation writes or leaves outside the staged sessions."""
    root = repo / ".lorebook"
    files = [p for p in root.rglob("*") if p.is_file() and "_sessions" not in p.parts]
    return "".join(p.read_text(errors="replace") for p in files)


def _status(repo: Path, session: str) -> str:
    log = load_log(log_path(KBPaths(repo), "claude", session))
    assert log is not None
    return log.status


def _held_line(repo: Path, pid: str, title: str, session: str, why: str) -> str:
    staged = KBPaths(repo).rel(log_path(KBPaths(repo), "claude", session))
    return (
        f'lorebook: warning: proposal {pid} ("{title}", session {session}) held back: {why}; '
        f"the rest of the batch is written without it. It stays in {staged} until pruned: "
        f"write the note yourself (`lorebook note add`) if it holds, or erase the session "
        f"with `lorebook forget-session {session}`"
    )


def test_a_conflict_that_would_quote_a_secret_is_held_back_and_the_rest_is_written(
    kb_repo: Path, cli: CliRunner
) -> None:
    """What a user saw: two such conflicts refused 72 proposals, run after run."""
    existing = add_note(kb_repo, CONTRADICTED)
    stage(
        kb_repo,
        "s1",
        [
            proposal("s1", 1, CONTRADICTION),
            proposal("s1", 2, "Keep migrations reversible", kind="decision"),
        ],
    )
    stage(kb_repo, "s2", [proposal("s2", 1, "Use uv run pytest for the tests")])  # fmt: skip
    run = _cli_with(LeakyRationale(), cli, "curate", "--json", cwd=kb_repo)
    assert run.exit_code == 0, run.stderr
    assert run.stderr.splitlines() == [
        _held_line(kb_repo, "s1:1", CONTRADICTION, "s1",
                   "its contradict cannot be written: the conflict would quote what looks "
                   "like a secret (lines 6, 36)")
    ]  # fmt: skip
    report = run.json()
    assert report["held_back"] == ["s1:1"]
    assert report["conflicts"] == []
    assert (report["actions"]["add"], report["actions"]["drop"]) == (2, 1)
    assert sorted(notes_of(kb_repo)) == sorted([
        existing, "decision-keep-migrations-reversible", "convention-use-uv-run-pytest-for-the-tests"
    ])  # fmt: skip
    assert TOKEN not in _written(kb_repo)
    assert TOKEN not in run.stderr
    assert (_status(kb_repo, "s1"), _status(kb_repo, "s2")) == ("curated", "curated")
    again = _cli_with(LeakyRationale(), cli, "curate", "--json", cwd=kb_repo)
    assert (again.exit_code, again.stderr, again.json()["proposals"]) == (0, "", 0)
    assert cli("scan", cwd=kb_repo).exit_code == 0


def test_a_conflict_is_scanned_as_its_file_will_read(kb_repo: Path, cli: CliRunner) -> None:
    """A line break in a proposal is a line break in the conflict file, as in a note: the
    scan no longer reads ``password is`` and ``stored in the vault`` as one line (that made
    a harmless conflict refuse the batch). What the file would copy from its target is
    scanned too."""
    add_note(kb_repo, CONTRADICTED)
    add_note(kb_repo, "Always squash commits when merging", body=f"Use api_key = {TOKEN}.")
    stage(kb_repo, "s1", [
        proposal("s1", 1, CONTRADICTION, body="The password is\nstored in the vault."),
        proposal("s1", 2, "Never squash commits when merging"),
    ])  # fmt: skip
    before = _written(kb_repo).count(TOKEN)
    run = cli("curate", "--json", cwd=kb_repo)
    assert run.exit_code == 0, run.stderr
    report = run.json()
    assert len(report["conflicts"]) == 1
    assert report["held_back"] == ["s1:2"]
    (warning,) = run.stderr.splitlines()
    assert "the conflict would quote what looks like a secret" in warning
    assert _written(kb_repo).count(TOKEN) == before  # no second copy of the note's token
    conflict = (kb_repo / report["conflicts"][0]).read_text()
    assert "> The password is\n> stored in the vault." in conflict


def _note(note_id: str, origin: str, **extra: Any) -> Note:
    return Note.model_validate({"type": "practice", "title": "T", "description": "D",
                                "lb_id": note_id, "lb_kind": "convention",
                                "lb_derived_from": [origin], **extra})  # fmt: skip


@pytest.mark.parametrize(
    ("actions", "written", "held", "why"),
    [
        (
            [AddAction(proposal_id="s1:1", note=_note("practice-a", "claude:s1:1"), folder="ok"),
             AddAction(proposal_id="s1:2", note=_note("practice-a", "claude:s1:2"), folder="ok")],
            ["practice-a"], "s1:2", "its add cannot be written: note id 'practice-a' is taken",
        ),
        (
            [AddAction(proposal_id="s1:1", note=_note("practice-a", "claude:s1:1"), folder="../out"),
             AddAction(proposal_id="s1:2", note=_note("practice-b", "claude:s1:2"), folder="ok")],
            ["practice-b"], "s1:1", "its add cannot be written: folder '../out' is not allowed",
        ),
        (
            [AddAction(proposal_id="s1:1", note=_note("practice-a", "claude:s1:1"), folder="ok"),
             ModifyAction(proposal_id="s1:2", target_id="practice-gone",
                          note=_note("practice-gone", "claude:s1:2"), rationale="dup")],
            ["practice-a"], "s1:2",
            "its modify cannot be written: target 'practice-gone' does not exist",
        ),
        (
            [AddAction(proposal_id="s1:1", note=_note("practice-a", "claude:other:9"), folder="ok"),
             DropAction(proposal_id="s1:2", reason="noise")],
            [], "s1:1",
            "its add cannot be written: lb_derived_from lacks the proposal's claude:s1:1",
        ),
        (
            [AddAction(proposal_id="s1:1", note=_note("practice-a", "claude:s1:1",
                                                      body=f"api_key = {TOKEN}"), folder="ok"),
             AddAction(proposal_id="s1:2", note=_note("practice-b", "claude:s1:2"), folder="ok")],
            ["practice-b"], "s1:1",
            "its add cannot be written: the note holds what looks like a secret (line 17)",
        ),
        (
            [AddAction(proposal_id="s1:1", note=_note("practice-a", "claude:s1:1"), folder="ok")],
            ["practice-a"], "s1:2", "the curator gave it no action",
        ),
        (
            [AddAction(proposal_id="s1:1", note=_note("practice-a", "claude:s1:1"), folder="ok"),
             DropAction(proposal_id="s1:2", reason="noise"),
             DropAction(proposal_id="s1:2", reason="noise again")],
            ["practice-a"], "s1:2", "the curator gave it 2 actions",
        ),
        (
            [AddAction(proposal_id="s1:1", note=_note("practice-a", "claude:s1:1"), folder="ok"),
             {"action": "explode", "proposal_id": "s1:2"}],
            ["practice-a"], "s1:2", "the curator's action 2 is not valid: ",
        ),
        (
            # a merge into a note the batch added, which is held back itself: both are
            [AddAction(proposal_id="s1:1", note=_note("practice-a", "claude:s1:1"), folder="../x"),
             ModifyAction(proposal_id="s1:2", target_id="practice-a",
                          note=_note("practice-a", "claude:s1:1", lb_derived_from=[
                              "claude:s1:1", "claude:s1:2"]), rationale="dup")],
            [], "s1:1", "its add cannot be written: folder '../x' is not allowed",
        ),
    ],
)  # fmt: skip
def test_each_invalid_action_is_held_back_alone(
    kb_repo: Path, actions: list[Any], written: list[str], held: str, why: str
) -> None:
    log = stage(kb_repo, "s1", [proposal("s1", 1, "First claim"), proposal("s1", 2, "Second")])
    report = curate(kb_repo, plugins=_host(Scripted(actions)))
    assert held in report.held_back
    line = next(p for p in report.problems if p.startswith(f"proposal {held} "))
    assert f"held back: {why}" in line
    assert "`lorebook forget-session s1`" in line
    assert len(report.problems) == len(report.held_back)  # one line each, nothing else
    assert sorted(notes_of(kb_repo)) == written
    assert TOKEN not in _written(kb_repo)
    assert load_log(log).status == "curated"  # type: ignore[union-attr]
    assert not (kb_repo / ".lorebook/.state/curate-journal.json").exists()
    rerun = curate(kb_repo, plugins=_host(Scripted(actions)))
    assert (rerun.run, rerun.problems, rerun.held_back) == (None, [], [])


def test_an_action_naming_no_pending_proposal_is_left_out_with_one_line(kb_repo: Path) -> None:
    stage(kb_repo, "s1", [proposal("s1", 1, "First claim")])
    stray = DropAction(proposal_id="s9:9", reason="a proposal of another run")
    keep = AddAction(proposal_id="s1:1", note=_note("practice-a", "claude:s1:1"), folder="ok")
    report = curate(kb_repo, plugins=_host(Scripted([stray, keep])))
    assert report.problems == [
        "the curator's action 1 (drop) names no pending proposal ('s9:9'); it was left out"
    ]
    assert report.held_back == []
    assert [(r.proposal_id, r.action) for r in report.results] == [("s1:1", "add")]
    assert list(notes_of(kb_repo)) == ["practice-a"]


def test_a_reason_that_would_quote_a_secret_is_not_shown(kb_repo: Path) -> None:
    stage(kb_repo, "s1", [proposal("s1", 1, "First claim")])
    folder = f"../api_key={TOKEN}"
    bad = AddAction(proposal_id="s1:1", note=_note("practice-a", "claude:s1:1"), folder=folder)
    report = curate(kb_repo, plugins=_host(Scripted([bad])))
    (line,) = report.problems
    assert "held back: its action cannot be written (not shown: it would quote" in line
    assert TOKEN not in line
    assert TOKEN not in report.results[0].detail


def test_an_answer_with_no_usable_action_still_writes_nothing(kb_repo: Path) -> None:
    """A curator that answered nothing readable is broken, not one action: the run stops
    and the proposals wait for the next run (a model may answer better then)."""
    log = stage(kb_repo, "s1", [proposal("s1", 1, "First claim"), proposal("s1", 2, "Second")])
    before = tree(kb_repo)
    for answer in ([], [{"action": "explode", "proposal_id": "s1:1"}]):
        with pytest.raises(CurationError, match="no usable action") as caught:
            curate(kb_repo, plugins=_host(Scripted(answer)))
        assert "nothing was written" in caught.value.message
    lock = ".lorebook/.state/curate.lock"
    assert {k: v for k, v in tree(kb_repo).items() if k != lock} == before
    assert load_log(log).status == "extracted"  # type: ignore[union-attr]


def test_a_proposal_whose_files_changed_is_held_back_not_failed_forever(kb_repo: Path) -> None:
    """Its dependencies changed since it was proposed: it can never be written as it is, so
    it is held back at planning instead of failing its step (and its session) every run."""
    from lorebook.validity.record import stamp_file

    source = kb_repo / "src" / "db.py"
    source.parent.mkdir()
    source.write_text("POOL = 5\n")
    seen = stamp_file(kb_repo, "src/db.py")
    stage(kb_repo, "s1", [
        proposal("s1", 1, "The database pool holds five connections", kind="gotcha",
                 dependencies=[seen.model_dump()]),
        proposal("s1", 2, "Keep migrations reversible", kind="decision"),
    ])  # fmt: skip
    source.write_text("POOL = 9\n")
    report = curate(kb_repo)
    assert report.failed == []
    assert report.held_back == ["s1:1"]
    (line,) = report.problems
    assert "src/db.py changed since it was read" in line
    assert sorted(notes_of(kb_repo)) == ["decision-keep-migrations-reversible"]
    assert _status(kb_repo, "s1") == "curated"
    assert curate(kb_repo).run is None


def test_a_resumed_run_gives_the_warnings_of_the_run_it_finishes(kb_repo: Path) -> None:
    """The warnings are printed at the end of a run: one killed before that gave none, so
    the run that finishes its journal gives them."""
    from lorebook.curate.journal import write_journal
    from lorebook.curate.run import CurateReport, _plan

    add_note(kb_repo, CONTRADICTED)
    stage(kb_repo, "s1", [proposal("s1", 1, CONTRADICTION), proposal("s1", 2, "Keep it")])
    paths = KBPaths(kb_repo)
    plugins = _host(LeakyRationale())
    killed = CurateReport(curator="rules")
    journal = _plan(paths, load_config(paths), plugins, "rules", killed)
    assert journal is not None
    write_journal(paths, journal)  # killed right after its journal
    report = curate(kb_repo, plugins=plugins)
    assert report.resumed == journal.run
    assert killed.problems == []  # planning keeps its warnings in the journal
    (warning,) = journal.warnings
    assert warning.startswith(f'proposal s1:1 ("{CONTRADICTION}", session s1) held back: ')
    assert report.problems == [warning]
    assert report.held_back == ["s1:1"]
    assert _status(kb_repo, "s1") == "curated"


class SpoilFirstAdd:
    """Curates as the rules do, but files the first new note outside the knowledge base."""

    @hookimpl
    def curate(self, proposals: list[Proposal], store: Any) -> list[CuratorAction]:
        actions = RulesCurator().curate(proposals, store)
        first = next(i for i, a in enumerate(actions) if isinstance(a, AddAction))
        actions[first] = actions[first].model_copy(update={"folder": "../out"})
        return actions


def test_bootstrap_holds_back_the_bad_action_and_curates_the_rest(
    kb_repo: Path, cli: CliRunner
) -> None:
    rules = kb_repo / ".cursor" / "rules"
    rules.mkdir(parents=True)
    (rules / "migrations.mdc").write_text(
        "---\ndescription: Keep every database migration reversible\nalwaysApply: true\n---"
        "\n\nKeep every database migration reversible: write the downgrade with the upgrade.\n"
    )
    (rules / "linting.mdc").write_text(
        "---\ndescription: Run the linter before pushing\nalwaysApply: true\n---\n\n"
        "Always run `ruff check` before pushing a branch.\n"
    )
    run = _cli_with(SpoilFirstAdd(), cli, "bootstrap", ".cursor/rules", "--json", cwd=kb_repo)
    assert run.exit_code == 0, run.stderr
    curation = run.json()["curation"]
    (held,) = curation["held_back"]
    session = held.rpartition(":")[0]
    (warning,) = curation["problems"]
    assert warning.startswith(f"proposal {held} (")
    assert "held back: its add cannot be written: folder '../out' is not allowed" in warning
    assert warning.endswith(f"`lorebook forget-session {session}`")
    assert curation["actions"]["add"] >= 1  # the others are written
    assert not (kb_repo / ".lorebook" / "out").exists()
    assert run.json()["documents"]["left_pending"] == []
    again = _cli_with(SpoilFirstAdd(), cli, "bootstrap", ".cursor/rules", "--json", cwd=kb_repo)
    assert again.exit_code == 0, again.stderr
    assert again.json()["curation"] is None  # nothing left to curate, nothing warned again


def test_bootstrap_says_what_curation_held_back_in_its_text_output(
    kb_repo: Path, cli: CliRunner
) -> None:
    rules = kb_repo / ".cursor" / "rules"
    rules.mkdir(parents=True)
    (rules / "migrations.mdc").write_text(
        "---\ndescription: Keep every database migration reversible\nalwaysApply: true\n---"
        "\n\nKeep every database migration reversible: write the downgrade with the upgrade.\n"
    )
    run = _cli_with(SpoilFirstAdd(), cli, "bootstrap", ".cursor/rules", cwd=kb_repo)
    assert run.exit_code == 0, run.stderr
    assert "held back: its add cannot be written: folder '../out' is not allowed" in run.stderr
