"""Registers the ``opencode`` harness with lorebook (declared, not supported yet)."""

from __future__ import annotations

from lorebook import hookimpl
from lorebook.providers import HarnessSpec


@hookimpl
def register_harnesses() -> list[HarnessSpec]:
    """Declare OpenCode (``factory=None``: ``init`` refuses it as not supported yet)."""
    return [
        HarnessSpec(
            name="opencode",
            factory=None,
            instruction_files=("AGENTS.md",),
            description="OpenCode (not supported yet)",
        )
    ]
