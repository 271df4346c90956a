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
