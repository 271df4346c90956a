"""Registers the ``copilot`` harness with lorebook.

Loading this module stays cheap: the harness class is imported only when the factory is
called, and the hook fast path imports ``lorebook_copilot.events`` directly.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lorebook import hookimpl
from lorebook.providers import HarnessSpec

if TYPE_CHECKING:
    from lorebook.harness import Harness


def make_harness() -> Harness:
    """Build the Copilot CLI harness (imported on first use)."""
    from .harness import CopilotHarness

    return CopilotHarness()


@hookimpl
def register_harnesses() -> list[HarnessSpec]:
    """Declare GitHub Copilot CLI: where it reads instructions and skills, its event module."""
    return [
        HarnessSpec(
            name="copilot",
            factory=make_harness,
            instruction_files=("AGENTS.md",),
            event_module="lorebook_copilot.events",
            skill_dirs=(".agents/skills",),
            description="GitHub Copilot CLI",
        )
    ]
