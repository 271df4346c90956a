"""Registers the ``claude`` harness with lorebook.

Loading this module stays cheap: the harness class (and what it imports) is imported only
when the factory is called, and the hook fast path never loads this module at all (it
imports ``lorebook_claude.events`` directly).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lorebook import hookimpl
from lorebook.providers import HarnessSpec

if TYPE_CHECKING:
    from lorebook.harness import Harness


def make_harness() -> Harness:
    """Build the Claude Code harness (imported on first use)."""
    from .harness import ClaudeHarness

    return ClaudeHarness()


@hookimpl
def register_harnesses() -> list[HarnessSpec]:
    """Declare Claude Code: its factory, the instruction file it reads, its event module."""
    return [
        HarnessSpec(
            name="claude",
            factory=make_harness,
            instruction_files=("CLAUDE.md",),
            event_module="lorebook_claude.events",
            skill_dirs=(".claude/skills",),
            description="Claude Code",
        )
    ]
