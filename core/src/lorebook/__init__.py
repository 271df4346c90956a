"""lorebook: project memory for AI coding assistants.

This module imports nothing eagerly: the hook fast path imports ``lorebook`` on every host
event, so names are resolved lazily on first access.
"""

from __future__ import annotations

__version__ = "0.1.0"

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: importing typing costs the hook path ~8 ms
if TYPE_CHECKING:
    from typing import Any

    from lorebook.hookspecs import hookimpl as hookimpl

__all__ = ["__version__", "hookimpl"]


def __getattr__(name: str) -> Any:
    """Resolve ``lorebook.hookimpl`` without importing pluggy at package import time."""
    if name == "hookimpl":
        from lorebook.hookspecs import hookimpl

        return hookimpl
    raise AttributeError(f"module 'lorebook' has no attribute {name!r}")
