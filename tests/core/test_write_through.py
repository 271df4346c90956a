"""Every note writer keeps the note index current as it writes: the hooks rank from the index.

The markdown store (add, update, remove) and the lifecycle commands (supersede, refute) each
update the index at once, in the process that writes, with no reconcile between: a prompt
hook answered right after the write (in another process, which never reconciles) already
serves the new state.
"""

from __future__ import annotations

from pathlib import Path

from lorebook.kb.lifecycle import refute, supersede
from lorebook.kb.paths import KBPaths
from lorebook.kb.store import MarkdownStore
from lorebook.recall.index import NoteIndex, index_path
from lorebook.testing import make_note
from tests.conftest import CliRunner

BUDGET = 100_000


def indexed(repo: Path, *ids: str) -> dict[str, tuple[str, str]]:
    """id -> (status, title) as the index holds them."""
    with NoteIndex(index_path(str(repo / ".lorebook"))) as index:
        return {i: (n.status, n.title) for i, n in index.get(list(ids)).items()}


def test_each_writer_updates_the_index_as_it_writes(kb_repo: Path, cli: CliRunner) -> None:
    store = MarkdownStore(kb_repo)
    first, second, third = "practice-first", "practice-second", "practice-third"
    store.add(make_note("first", title="Run tests with uv"))
    assert cli("index", "rebuild", cwd=kb_repo).exit_code == 0
    assert indexed(kb_repo, first) == {first: ("active", "Run tests with uv")}

    store.add(make_note("second", title="Money is integer cents"))
    assert indexed(kb_repo, second) == {second: ("active", "Money is integer cents")}

    store.update(make_note("second", title="Money is kept in integer cents"))
    assert indexed(kb_repo, second) == {second: ("active", "Money is kept in integer cents")}

    paths = KBPaths(kb_repo)
    refute(paths, second, "rounding lost cents in the ledger", budget=BUDGET)
    assert indexed(kb_repo, second)[second][0] == "refuted"

    store.add(make_note("third", title="Run tests with uv run pytest"))
    supersede(paths, first, third, budget=BUDGET)
    assert indexed(kb_repo, first, third) == {
        first: ("superseded", "Run tests with uv"),
        third: ("active", "Run tests with uv run pytest"),
    }

    store.remove(third)
    assert indexed(kb_repo, third) == {}
