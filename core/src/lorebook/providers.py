"""Provider records: what ``register_*`` hooks return, and the objects they build.

A provider record is light (no pydantic): a name, a factory and a few facts core needs
before building the object. Config picks providers by name.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from lorebook.harness import Harness
    from lorebook.store import NoteStore


@dataclass(frozen=True, slots=True)
class HarnessSpec:
    """A harness (coding-assistant host) a plugin can wire into a repository.

    Attributes:
        name: The name users type (``lorebook init --harnesses <name>``).
        factory: Builds the harness object (``hostkit.harnesses.lazy_factory`` imports
            its module only when called). Required: a spec whose factory is not callable
            is refused when it is built, and its plugin fails alone, naming it.
        instruction_files: Repository files the host reads as instructions (``AGENTS.md``,
            for one), the preferred first; ``init`` keeps core's pointer block in one of
            them (the one holding it, else the first that exists, else the first, created)
            while any wired harness reads it, and ``uninstall`` removes it with the last.
        event_module: The module the hook launcher imports on the fast path, holding the
            event translator (it must import neither pluggy nor pydantic).
        description: One line for ``lorebook plugins`` and error messages.
        skill_dirs: Repository folders the host lists project skills from
            (``.agents/skills``, for one); ``init`` installs core's curation skill in them
            while any wired harness reads them (:mod:`lorebook.skills`).
        mcp_config: The project MCP config file the host reads, an ``mcpServers`` mapping
            (``.mcp.json``, for one), or None; ``init`` registers core's MCP server there
            while any wired harness reads it, and ``uninstall`` removes it with the last
            (:mod:`lorebook.mcp_config`).
    """

    name: str
    factory: Callable[[], Harness]
    instruction_files: tuple[str, ...] = ()
    event_module: str | None = None
    description: str = ""
    skill_dirs: tuple[str, ...] = ()
    mcp_config: str | None = None

    def __post_init__(self) -> None:
        if not callable(self.factory):
            raise TypeError(
                f"HarnessSpec {self.name!r}: factory must be a callable that builds the "
                f"harness, not {self.factory!r}"
            )


@dataclass(frozen=True, slots=True)
class StoreSpec:
    """A note store (the markdown knowledge base is the default one).

    Attributes:
        name: The name config uses (``stores: [markdown]``).
        factory: Builds the store for a repository root (the folder holding ``.lorebook/``).
        description: One line for ``lorebook plugins``.
    """

    name: str
    factory: Callable[[Any], NoteStore]
    description: str = ""


@dataclass(frozen=True, slots=True)
class ExtractorSpec:
    """A proposal extractor (deterministic, or an LLM behind a headless host or HTTP)."""

    name: str
    factory: Callable[..., Any]
    description: str = ""
    options: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class CuratorSpec:
    """A curator: turns proposals into a batch of add / modify / contradict / drop actions."""

    name: str
    factory: Callable[..., Any]
    description: str = ""
    options: dict[str, str] = field(default_factory=dict)
