"""One `lorebook index rebuild` is enough: lint is clean after it, whoever wrote the notes."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import CliRunner

NODES = Path(".lorebook/nodes")

HAND_WRITTEN = """\
---
type: practice
title: Use uv to run the tests
description: Run the tests with uv run pytest
lb_schema: 2
lb_id: practice-use-uv
lb_kind: convention
lb_relates_to: [practice-no-bare-pytest]
---
Use `uv run pytest`.
"""

OTHER = """\
---
type: practice
title: Never run bare pytest
description: Bare pytest misses the project's environment
lb_schema: 2
lb_id: practice-no-bare-pytest
lb_kind: convention
---
Never run bare `pytest`.
"""


def test_a_hand_written_note_with_edges_needs_one_rebuild(kb_repo: Path, cli: CliRunner) -> None:
    folder = kb_repo / NODES / "convention"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "practice-use-uv.md").write_text(HAND_WRITTEN, encoding="utf-8")
    (folder / "practice-no-bare-pytest.md").write_text(OTHER, encoding="utf-8")

    first = cli("index", "rebuild", cwd=kb_repo)
    assert first.exit_code == 0, first.stderr
    assert "wrote .lorebook/nodes/convention/practice-use-uv.md" in first.stdout  # its links
    lint = cli("lint", cwd=kb_repo)
    assert lint.exit_code == 0, lint.stdout  # was: ENTRY.md and GRAPH.md stale
    assert "stale-generated" not in lint.stdout
    check = cli("index", "rebuild", "--check", "--json", cwd=kb_repo)
    assert check.json()["ok"] is True, check.stdout

    again = cli("index", "rebuild", cwd=kb_repo)
    assert again.exit_code == 0
    assert "0 files changed" in again.stdout or "up to date" in again.stdout, again.stdout


def test_a_damaged_index_file_is_rebuilt_not_an_internal_error(
    kb_repo: Path, cli: CliRunner
) -> None:
    added = cli("note", "add", "--title", "Use uv to run the tests", "--description", "uv",
                "--body", "Run the tests with `uv run pytest`.", "--kind", "tooling",
                cwd=kb_repo)  # fmt: skip
    assert added.exit_code == 0, added.stderr
    index = kb_repo / ".lorebook/.cache/index.sqlite"
    assert index.is_file()
    index.write_bytes(b"not a database " * 400)  # a crash, a bad copy, a disk error
    shown = cli("recall", "run the tests with uv", "--json", cwd=kb_repo)
    assert shown.exit_code == 0, shown.stderr
    assert [n["title"] for n in shown.json()["notes"]] == ["Use uv to run the tests"]
    index.write_bytes(b"\x00" * 4096)
    rebuilt = cli("index", "rebuild", cwd=kb_repo)
    assert rebuilt.exit_code == 0, rebuilt.stderr
    assert cli("lint", cwd=kb_repo).exit_code == 0
