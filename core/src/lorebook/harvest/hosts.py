"""Which installed hosts keep their own memory of a repository, asked of their plugins.

A harness plugin whose host keeps memories on disk implements
:class:`~lorebook.hostkit.memory.HostMemory` (where they are, and their entries for a
repository); core knows no host's layout. ``lorebook harvest --from NAME`` reads one,
``lorebook doctor`` asks each whether memories wait to be harvested.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from lorebook.errors import UsageError
from lorebook.hostkit.memory import HostMemory

if TYPE_CHECKING:
    from lorebook.plugins import Plugins

log = logging.getLogger(__name__)


def memory_hosts(plugins: Plugins | None = None) -> dict[str, HostMemory]:
    """The installed harnesses whose host keeps its own memory, by name (sorted)."""
    if plugins is None:
        from lorebook.plugins import get_plugins

        plugins = get_plugins()
    found: dict[str, HostMemory] = {}
    for name, spec in plugins.harnesses().items():
        try:
            harness = spec.factory()
        except Exception as exc:  # a broken plugin: doctor's harness checks name it
            log.warning("lorebook: harness %s could not be built: %s", name, exc)
            continue
        if isinstance(harness, HostMemory):
            found[name] = harness
    return found


def host_memory(name: str, plugins: Plugins | None = None) -> HostMemory:
    """The memory of the installed host ``name``.

    Raises:
        UsageError: no installed harness of that name keeps a memory (the message lists
            those that do).
    """
    hosts = memory_hosts(plugins)
    if name not in hosts:
        known = ", ".join(hosts) or "none installed"
        raise UsageError(f"--from {name!r}: expected one of {known}")
    return hosts[name]
