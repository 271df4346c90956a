"""Registers the ``cursor`` harness (Cursor) with lorebook.

Cheap to load: the harness class is imported when the factory is first called, and the
hook fast path never loads this module (it imports ``lorebook_cursor.events`` directly).
"""

from __future__ import annotations

from lorebook import hookimpl
from lorebook.hostkit.harnesses import lazy_factory
from lorebook.providers import HarnessSpec

SPEC = HarnessSpec(
    name="cursor",
    factory=lazy_factory("lorebook_cursor.harness:CursorHarness"),
    instruction_files=("AGENTS.md",),
    event_module="lorebook_cursor.events",
    description="Cursor (from its documentation)",
    mcp_config=".cursor/mcp.json",
)
"""Cursor: the instruction file and skill folders its host reads, its event module,
its project MCP config."""


@hookimpl
def register_harnesses() -> list[HarnessSpec]:
    """Declare the cursor harness."""
    return [SPEC]
