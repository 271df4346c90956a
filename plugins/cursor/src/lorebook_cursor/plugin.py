"""Registers the ``cursor`` harness with lorebook (declared, not supported yet)."""

from __future__ import annotations

from lorebook import hookimpl
from lorebook.providers import HarnessSpec


@hookimpl
def register_harnesses() -> list[HarnessSpec]:
    """Declare Cursor (``factory=None``: ``init`` refuses it as not supported yet)."""
    return [
        HarnessSpec(
            name="cursor",
            factory=None,
            instruction_files=("AGENTS.md",),
            description="Cursor (not supported yet)",
        )
    ]
