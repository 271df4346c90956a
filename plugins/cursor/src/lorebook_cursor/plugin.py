"""Registers the ``cursor`` harness with lorebook.

Loading this module stays cheap: the harness class is imported only when the factory is
called, and the hook fast path imports ``lorebook_cursor.events`` directly.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lorebook import hookimpl
from lorebook.providers import HarnessSpec

if TYPE_CHECKING:
    from lorebook.harness import Harness


def make_harness() -> Harness:
    """Build the Cursor harness (imported on first use)."""
    from .harness import CursorHarness

    return CursorHarness()


@hookimpl
def register_harnesses() -> list[HarnessSpec]:
    """Declare Cursor: it reads AGENTS.md (its rules pointer is its own file), no skills."""
    return [
        HarnessSpec(
            name="cursor",
            factory=make_harness,
            instruction_files=("AGENTS.md",),
            event_module="lorebook_cursor.events",
            description="Cursor (from its documentation)",
        )
    ]
