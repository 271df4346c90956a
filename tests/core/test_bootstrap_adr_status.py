"""Bootstrap takes from an ADR folder only the decisions in force, and no index as a record."""

from __future__ import annotations

from pathlib import Path

import pytest

from lorebook.bootstrap.drafting import in_force
from tests.conftest import CliRunner

ACCEPTED = """# 0003 — Queue every write

Status: Accepted

## Decision

Every write goes through the queue, so the memory agent is its only writer.
"""

PROPOSED = """# 0024 — Signal channel

Status: Proposed

> Draft ADR for roadmap prep; do not treat as settled.

## Decision (proposed)

Signal ships as an additive adapter over a local signal-cli daemon.
"""

SUPERSEDED = """# 0002 — SQLite for everything

## Status

Superseded by ADR-0007

## Decision

Store every table in SQLite.
"""

INDEX = """# Architecture Decision Records

Load-bearing decisions, in Nygard format.

| ADR | Title | Status |
| --- | --- | --- |
| [0003](0003-queue.md) | Queue every write | Accepted |
"""


@pytest.mark.parametrize(
    ("text", "holds"),
    [
        (ACCEPTED, True),
        (PROPOSED, False),
        (SUPERSEDED, False),
        ("# 0009 — No status line\n\n## Decision\n\nUse uv.\n", True),
        ("# 0010\n\n* **Status:** deprecated\n\n## Decision\n\nUse pip.\n", False),
    ],
)
def test_an_adr_is_in_force_unless_its_status_says_otherwise(text: str, holds: bool) -> None:
    assert in_force(text) is holds


def test_only_the_decisions_in_force_become_notes(kb_repo: Path, cli: CliRunner) -> None:
    adr = kb_repo / "docs" / "adr"
    adr.mkdir(parents=True)
    for name, text in {
        "0003-queue.md": ACCEPTED,
        "0024-signal.md": PROPOSED,
        "0002-sqlite.md": SUPERSEDED,
        "README.md": INDEX,
    }.items():
        (adr / name).write_text(text, encoding="utf-8")
    result = cli("-C", str(kb_repo), "bootstrap", "--dry-run")
    assert result.exit_code == 0, result.stderr
    decisions = [line for line in result.stdout.splitlines() if line.startswith("  + [decision]")]
    assert decisions == [
        "  + [decision] Every write goes through the queue, so the memory agent is its only writer"
    ]
    assert "decision not in force" in result.stdout  # the count says why two were left out
