"""The ``curate`` hook, and validation of the whole batch before the first write: an answer
that is not a batch writes nothing (a bad action alone is held back:
``test_curate_held_back.py``); a note changed under a resumed run is not overwritten."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from lorebook import hookimpl
from lorebook.capture.stage import load_log
from lorebook.config import load_config
from lorebook.kb.paths import KBPaths
from lorebook.kb.store import MarkdownStore
from lorebook.models.curation import AddAction, DropAction
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


@pytest.mark.parametrize("answer", ["add everything", {"actions": []}, 42])
def test_an_answer_that_is_not_a_batch_writes_nothing(kb_repo: Path, answer: Any) -> None:
    from lorebook.curate.base import CurationError

    log = stage(kb_repo, "s1", [proposal("s1", 1, "First claim"), proposal("s1", 2, "Second")])
    before = tree(kb_repo)
    with pytest.raises(CurationError, match="not a list of actions") as caught:
        curate(kb_repo, plugins=_host(BadCurator(answer)))
    assert "nothing was written" in caught.value.message
    lock = ".lorebook/.state/curate.lock"  # an empty lock file is all that appears
    assert {k: v for k, v in tree(kb_repo).items() if k != lock} == before
    assert not (kb_repo / ".lorebook/.state/curate-journal.json").exists()
    assert load_log(log).status == "extracted"  # type: ignore[union-attr]


def test_an_unusable_answer_exits_1_from_the_cli(kb_repo: Path, cli: CliRunner) -> None:
    stage(kb_repo, "s1", [proposal("s1", 1, "First claim")])
    from lorebook import plugins as plugins_module

    plugins_module.get_plugins.cache_clear()
    host = plugins_module.get_plugins()
    host.pm.register(BadCurator([{"action": "add", "proposal_id": "s1:1"}]))
    try:
        result = cli("curate", "--json", cwd=kb_repo)
    finally:
        plugins_module.get_plugins.cache_clear()
    assert result.exit_code == 1
    assert result.json()["ok"] is False
    assert "no usable action for any of the 1 proposals" in result.stderr
    assert "the curator's action 1 is not valid: field 'add.note'" in result.stderr


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
