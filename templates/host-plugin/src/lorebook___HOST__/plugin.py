"""Registers the ``__HOST__`` harness with lorebook (the entry point names this module)."""

from __future__ import annotations

from lorebook import hookimpl
from lorebook.hostkit.harnesses import lazy_factory
from lorebook.providers import HarnessSpec

SPEC = HarnessSpec(
    name="__HOST__",
    factory=lazy_factory("lorebook___HOST__.harness:Harness"),
    instruction_files=("AGENTS.md",),  # the files your host reads as instructions
    event_module="lorebook___HOST__.events",  # imported by the hook launcher
    skill_dirs=(".agents/skills",),  # where your host lists project skills, if it does
    mcp_config=None,  # the project MCP config file your host reads (".mcp.json"), if any
    description="__HOST_TITLE__",
)


@hookimpl
def register_harnesses() -> list[HarnessSpec]:
    """Declare the __HOST__ harness."""
    return [SPEC]
