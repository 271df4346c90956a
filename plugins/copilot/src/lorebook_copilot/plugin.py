"""Registers the ``copilot`` harness with lorebook (declared, not supported yet)."""

from __future__ import annotations

from lorebook import hookimpl
from lorebook.providers import HarnessSpec


@hookimpl
def register_harnesses() -> list[HarnessSpec]:
    """Declare GitHub Copilot CLI (``factory=None``: ``init`` refuses it as not supported yet)."""
    return [
        HarnessSpec(
            name="copilot",
            factory=None,
            instruction_files=("AGENTS.md",),
            description="GitHub Copilot CLI (not supported yet)",
        )
    ]
