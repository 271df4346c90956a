"""Registers the ``codex`` harness with lorebook.

Loading this module stays cheap: the harness class (and what it imports) is imported only
when the factory is called, and the hook fast path never loads this module at all (it
imports ``lorebook_codex.events`` directly).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lorebook import hookimpl
from lorebook.providers import HarnessSpec

if TYPE_CHECKING:
    from lorebook.harness import Harness


def make_harness() -> Harness:
    """Build the Codex CLI harness (imported on first use)."""
    from .harness import CodexHarness

    return CodexHarness()


@hookimpl
def register_harnesses() -> list[HarnessSpec]:
    """Declare OpenAI Codex CLI: its factory, the instruction file it reads, its event module."""
    return [
        HarnessSpec(
            name="codex",
            factory=make_harness,
            instruction_files=("AGENTS.md",),
            event_module="lorebook_codex.events",
            skill_dirs=(".agents/skills",),
            description="OpenAI Codex CLI",
        )
    ]
