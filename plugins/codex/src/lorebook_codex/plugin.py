"""Registers the ``codex`` harness (OpenAI Codex CLI) with lorebook.

Cheap to load: the harness class is imported when the factory is first called, and the
hook fast path never loads this module (it imports ``lorebook_codex.events`` directly).
"""

from __future__ import annotations

from lorebook import hookimpl
from lorebook.hostkit.harnesses import lazy_factory
from lorebook.providers import HarnessSpec

SPEC = HarnessSpec(
    name="codex",
    factory=lazy_factory("lorebook_codex.harness:CodexHarness"),
    instruction_files=("AGENTS.md",),
    event_module="lorebook_codex.events",
    skill_dirs=(".agents/skills",),
    description="OpenAI Codex CLI",
)
"""OpenAI Codex CLI: the instruction file and skill folders its host reads, its event module."""


@hookimpl
def register_harnesses() -> list[HarnessSpec]:
    """Declare the codex harness."""
    return [SPEC]
