"""Registers the ``opencode`` harness (OpenCode) with lorebook.

Cheap to load: the harness class is imported when the factory is first called, and the
hook fast path never loads this module (it imports ``lorebook_opencode.events`` directly).
"""

from __future__ import annotations

from lorebook import hookimpl
from lorebook.hostkit.harnesses import lazy_factory
from lorebook.providers import HarnessSpec

SPEC = HarnessSpec(
    name="opencode",
    factory=lazy_factory("lorebook_opencode.harness:OpenCodeHarness"),
    instruction_files=("AGENTS.md",),
    event_module="lorebook_opencode.events",
    skill_dirs=(".agents/skills",),
    description="OpenCode",
)
"""OpenCode: the instruction file and skill folders its host reads, its event module."""


@hookimpl
def register_harnesses() -> list[HarnessSpec]:
    """Declare the opencode harness."""
    return [SPEC]
