"""Registers the ``claude`` harness (Claude Code) with lorebook.

Cheap to load: the harness class is imported when the factory is first called, and the
hook fast path never loads this module (it imports ``lorebook_claude.events`` directly).
"""

from __future__ import annotations

from lorebook import hookimpl
from lorebook.hostkit.harnesses import lazy_factory
from lorebook.providers import HarnessSpec

SPEC = HarnessSpec(
    name="claude",
    factory=lazy_factory("lorebook_claude.harness:ClaudeHarness"),
    instruction_files=("CLAUDE.md", ".claude/CLAUDE.md"),
    event_module="lorebook_claude.events",
    skill_dirs=(".claude/skills",),
    description="Claude Code",
    mcp_config=".mcp.json",
)
"""Claude Code: the instruction file and skill folders its host reads, its event module,
its project MCP config."""


@hookimpl
def register_harnesses() -> list[HarnessSpec]:
    """Declare the claude harness."""
    return [SPEC]
