"""Registers the ``copilot`` harness (GitHub Copilot CLI) with lorebook.

Cheap to load: the harness class is imported when the factory is first called, and the
hook fast path never loads this module (it imports ``lorebook_copilot.events`` directly).
"""

from __future__ import annotations

from lorebook import hookimpl
from lorebook.hostkit.harnesses import lazy_factory
from lorebook.providers import HarnessSpec

SPEC = HarnessSpec(
    name="copilot",
    factory=lazy_factory("lorebook_copilot.harness:CopilotHarness"),
    instruction_files=("AGENTS.md",),
    event_module="lorebook_copilot.events",
    skill_dirs=(".agents/skills",),
    description="GitHub Copilot CLI",
    mcp_config=".mcp.json",
)
"""GitHub Copilot CLI: the instruction file and skill folders its host reads, its event module,
its project MCP config."""


@hookimpl
def register_harnesses() -> list[HarnessSpec]:
    """Declare the copilot harness."""
    return [SPEC]
