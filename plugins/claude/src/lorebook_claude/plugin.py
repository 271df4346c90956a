"""Registers the ``claude`` harness with lorebook (declared, not supported yet)."""

from __future__ import annotations

from lorebook import hookimpl
from lorebook.providers import HarnessSpec


@hookimpl
def register_harnesses() -> list[HarnessSpec]:
    """Declare Claude Code (``factory=None``: ``init`` refuses it as not supported yet)."""
    return [
        HarnessSpec(
            name="claude",
            factory=None,
            instruction_files=("CLAUDE.md",),
            description="Claude Code (not supported yet)",
        )
    ]
