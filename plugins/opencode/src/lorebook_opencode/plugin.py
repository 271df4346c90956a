"""Registers the ``opencode`` harness with lorebook.

Loading this module stays cheap: the harness class is imported only when the factory is
called, and the hook fast path imports ``lorebook_opencode.events`` directly.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lorebook import hookimpl
from lorebook.providers import HarnessSpec

if TYPE_CHECKING:
    from lorebook.harness import Harness


def make_harness() -> Harness:
    """Build the OpenCode harness (imported on first use)."""
    from .harness import OpenCodeHarness

    return OpenCodeHarness()


@hookimpl
def register_harnesses() -> list[HarnessSpec]:
    """Declare OpenCode: where it reads instructions and skills, and its event module."""
    return [
        HarnessSpec(
            name="opencode",
            factory=make_harness,
            instruction_files=("AGENTS.md",),
            event_module="lorebook_opencode.events",
            skill_dirs=(".agents/skills",),
            description="OpenCode",
        )
    ]
