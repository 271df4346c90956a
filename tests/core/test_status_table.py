"""status: a table on a terminal, plain lines when piped, one JSON document with --json."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from lorebook.cli.status_view import print_status_table, status_rows
from lorebook.status import Status
from tests.conftest import CliRunner


class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _status() -> Status:
    return Status(notes=3, by_status={"active": 2, "superseded": 1}, by_kind={"gotcha": 3},
                  pending_sessions=2, open_conflicts=1, lint_errors=0, lint_warnings=1,
                  harnesses=["claude"])  # fmt: skip


def test_rows_say_what_to_do_next_only_when_something_waits() -> None:
    rows = {what: (value, step) for what, value, step in status_rows(_status())}
    assert rows["notes"] == ("3 (2 active, 1 superseded)", "")
    assert rows["sessions"] == ("2 pending, 0 failed", "lorebook extract")
    assert rows["conflicts"] == ("1 open", "lorebook conflict list")
    assert rows["lint"] == ("clean, 1 warning", "")
    assert rows["rejected claims"] == ("0", "")


def test_table_is_drawn_on_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    out = FakeTerminal()
    monkeypatch.setattr("sys.stdout", out)
    monkeypatch.setenv("COLUMNS", "100")
    print_status_table(_status())
    text = out.getvalue()
    assert "lorebook status" in text
    assert "2 pending, 0 failed" in text
    assert "lorebook conflict list" in text
    assert "┃" in text or "|" in text


def test_piped_status_is_plain_and_json_is_one_document(kb_repo: Path, cli: CliRunner) -> None:
    plain = cli("status", cwd=kb_repo)
    assert plain.exit_code == 0
    assert plain.stdout.startswith("notes: 0 (none); by kind: none\n")
    assert "┃" not in plain.stdout
    doc = json.loads(cli("status", "--json", cwd=kb_repo).stdout)
    assert doc["ok"] is True
    assert doc["notes"] == 0
