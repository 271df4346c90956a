"""Registers the ``codex`` harness with lorebook (declared, not supported yet)."""

from __future__ import annotations

from lorebook import hookimpl
from lorebook.providers import HarnessSpec


@hookimpl
def register_harnesses() -> list[HarnessSpec]:
    """Declare OpenAI Codex CLI (``factory=None``: ``init`` refuses it as not supported yet)."""
    return [
        HarnessSpec(
            name="codex",
            factory=None,
            instruction_files=("AGENTS.md",),
            description="OpenAI Codex CLI (not supported yet)",
        )
    ]
