"""The ``curate`` hook, and validation of the whole batch before the first write: a batch
with one bad action writes nothing; a note changed under a resumed run is not overwritten."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from lorebook import hookimpl
from lorebook.capture.stage import load_log
from lorebook.config import load_config
from lorebook.kb.paths import KBPaths
from lorebook.kb.store import MarkdownStore
from lorebook.models.curation import AddAction, DropAction, ModifyAction
from lorebook.models.note import Note
from lorebook.models.session import Proposal
from lorebook.plugins import Plugins, make_plugins
from lorebook.testing import HookRecorder
from tests.conftest import CliRunner
from tests.core.test_curate import add_note, curate, notes_of, proposal, stage, tree


class BadCurator:
    """A plugin whose curate hook answers first with a batch that must be refused whole."""

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


def test_the_curate_hook_is_called_with_the_pending_proposals(
    kb_repo: Path, hook_recorder: HookRecorder
) -> None:
    pending = [proposal("s1", 1, "Run the linter before committing")]
    stage(kb_repo, "s1", pending)
    curate(kb_repo, plugins=hook_recorder.plugins)
    (call,) = hook_recorder.of("curate")
    assert call.kwargs["proposals"] == pending
    assert isinstance(call.kwargs["store"], MarkdownStore)
    assert isinstance(call.result, list)
    assert isinstance(call.result[0], AddAction)


def test_a_plugin_answering_first_replaces_the_rules(kb_repo: Path) -> None:
    stage(kb_repo, "s1", [proposal("s1", 1, "Run the linter before committing")])
    plugin = BadCurator([DropAction(proposal_id="s1:1", reason="the team curates by hand")])
    report = curate(kb_repo, plugins=_host(plugin))
    assert [(r.action, r.detail) for r in report.results] == [("drop", "the team curates by hand")]
    assert notes_of(kb_repo) == {}


def _note(note_id: str, origin: str) -> Note:
    return Note.model_validate({"type": "practice", "title": "T", "description": "D",
                                "lb_id": note_id, "lb_kind": "convention",
                                "lb_derived_from": [origin]})  # fmt: skip


@pytest.mark.parametrize(
    ("actions", "expected"),
    [
        (
            [AddAction(proposal_id="s1:1", note=_note("practice-a", "claude:s1:1"), folder="ok"),
             AddAction(proposal_id="s1:2", note=_note("practice-a", "claude:s1:2"), folder="ok")],
            "note id 'practice-a' is taken",
        ),
        (
            [AddAction(proposal_id="s1:1", note=_note("practice-a", "claude:s1:1"), folder="../out"),
             DropAction(proposal_id="s1:2", reason="noise")],
            "folder '../out' is not allowed",
        ),
        (
            [AddAction(proposal_id="s1:1", note=_note("practice-a", "claude:s1:1"), folder="ok"),
             ModifyAction(proposal_id="s1:2", target_id="practice-gone",
                          note=_note("practice-gone", "claude:s1:2"), rationale="dup")],
            "target 'practice-gone' does not exist",
        ),
        (
            [AddAction(proposal_id="s1:1", note=_note("practice-a", "claude:other:9"), folder="ok"),
             DropAction(proposal_id="s1:2", reason="noise")],
            "lb_derived_from lacks the proposal's claude:s1:1",
        ),
        ([DropAction(proposal_id="s1:1", reason="noise")], "proposal 's1:2' has no action"),
        ([{"action": "explode", "proposal_id": "s1:1"}], "the curator returned an invalid batch"),
    ],
)  # fmt: skip
def test_an_invalid_batch_writes_nothing(kb_repo: Path, actions: list[Any], expected: str) -> None:
    from lorebook.curate.base import CurationError

    log = stage(kb_repo, "s1", [proposal("s1", 1, "First claim"), proposal("s1", 2, "Second")])
    before = tree(kb_repo)
    with pytest.raises(CurationError, match="invalid") as caught:
        curate(kb_repo, plugins=_host(BadCurator(actions)))
    assert expected in caught.value.message
    lock = ".lorebook/.state/curate.lock"  # an empty lock file is all that appears
    assert {k: v for k, v in tree(kb_repo).items() if k != lock} == before
    assert not (kb_repo / ".lorebook/.state/curate-journal.json").exists()
    assert load_log(log).status == "extracted"  # type: ignore[union-attr]


def test_an_invalid_batch_exits_1_from_the_cli(kb_repo: Path, cli: CliRunner) -> None:
    stage(kb_repo, "s1", [proposal("s1", 1, "First claim")])
    wrong = [ModifyAction(proposal_id="s1:1", target_id="practice-gone",
                          note=_note("practice-gone", "claude:s1:1"), rationale="dup")]  # fmt: skip
    from lorebook import plugins as plugins_module

    plugins_module.get_plugins.cache_clear()
    host = plugins_module.get_plugins()
    host.pm.register(BadCurator(wrong))
    try:
        result = cli("curate", "--json", cwd=kb_repo)
    finally:
        plugins_module.get_plugins.cache_clear()
    assert result.exit_code == 1
    assert result.json()["ok"] is False
    assert "target 'practice-gone' does not exist" in result.stderr


def test_a_note_changed_under_a_resumed_run_is_not_overwritten(kb_repo: Path) -> None:
    from lorebook.curate.journal import read_journal, write_journal
    from lorebook.curate.run import _plan

    existing = add_note(kb_repo, "Use uv to manage Python dependencies")
    log = stage(kb_repo, "s1", [proposal("s1", 1, "Manage Python dependencies with uv")])
    paths = KBPaths(kb_repo)
    from lorebook.curate.run import CurateReport

    journal = _plan(paths, load_config(paths), make_plugins(load_external=False), "rules",
                    CurateReport(curator="rules"))  # fmt: skip
    assert journal is not None
    write_journal(paths, journal)  # as if the run was killed right after its journal
    assert read_journal(paths) == journal
    note_file = kb_repo / ".lorebook/nodes/convention" / f"{existing}.md"
    note_file.write_text(note_file.read_text().replace("Use uv to manage", "Use uv to handle"))
    edited = note_file.read_bytes()
    report = curate(kb_repo)
    assert report.resumed == journal.run
    (result,) = report.results
    assert (result.action, result.status) == ("modify", "failed")
    assert "changed after the batch was computed" in result.detail
    assert note_file.read_bytes() == edited
    assert load_log(log).status == "extracted"  # type: ignore[union-attr]
    assert read_journal(paths) is None
    rerun = curate(kb_repo)  # merges into the edited text
    assert [(r.action, r.status) for r in rerun.results] == [("modify", "applied")]
    merged = notes_of(kb_repo)[existing]
    assert merged.title == "Use uv to handle Python dependencies"
    assert merged.derived_from == ["claude:s1:1"]
