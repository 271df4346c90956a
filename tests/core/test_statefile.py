"""A damaged state file is refused in one line naming it and its first bad field; none is empty."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from lorebook.bootstrap.state import load_state
from lorebook.curate.journal import read_journal
from lorebook.errors import LorebookError
from lorebook.harvest.ledger import load_harvest_ledger
from lorebook.kb.paths import KBPaths
from tests.conftest import CliRunner


def test_missing_state_files_read_as_empty(kb_repo: Path) -> None:
    paths = KBPaths.for_repo(kb_repo)
    assert load_state(paths).documents == {}
    assert load_harvest_ledger(paths, "claude").entries == {}
    assert read_journal(paths) is None


@pytest.mark.parametrize(
    ("name", "read", "what"),
    [
        ("bootstrap-state.json", lambda p: load_state(p), "valid bootstrap state"),
        (
            "harvest-claude.json",
            lambda p: load_harvest_ledger(p, "claude"),
            "a valid harvest ledger",
        ),
        ("curate-journal.json", lambda p: read_journal(p), "a valid curate journal"),
    ],
)
def test_a_damaged_state_file_names_itself_and_its_field(
    kb_repo: Path, name: str, read: object, what: str
) -> None:
    paths = KBPaths.for_repo(kb_repo)
    paths.state.mkdir(parents=True, exist_ok=True)
    (paths.state / name).write_text('{"documents": 3, "entries": 3, "actions": 3}')
    with pytest.raises(LorebookError) as caught:
        read(paths)  # type: ignore[operator]
    first, *rest = str(caught.value).splitlines()
    assert re.fullmatch(rf"\.lorebook/\.state/{re.escape(name)}: not {what} \([\w.]+: .+\)", first)
    assert rest == [f"  hint: {caught.value.hint}"]
    assert (caught.value.hint or "").startswith("delete it")


def test_curate_refuses_a_damaged_journal_in_one_line(kb_repo: Path, cli: CliRunner) -> None:
    state = KBPaths.for_repo(kb_repo).state
    state.mkdir(parents=True, exist_ok=True)
    (state / "curate-journal.json").write_text("[1, 2]")
    result = cli("curate", cwd=kb_repo)
    assert result.exit_code == 1
    assert ".lorebook/.state/curate-journal.json: not a valid curate journal" in result.stderr
    assert "Traceback" not in result.stderr + result.stdout
