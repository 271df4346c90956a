"""Names and knobs shared by every part of lorebook, in one place."""

from __future__ import annotations

TYPE_CHECKING = False  # the hook launcher imports this module: no typing at run time
if TYPE_CHECKING:
    from typing import Literal

PROJECT_NAME = "lorebook"
"""The pluggy project name: markers and the plugin manager use it."""

HARNESS_GROUP = "lorebook.harness"
STORE_GROUP = "lorebook.store"
PLUGIN_GROUP = "lorebook.plugin"
ENTRY_POINT_GROUPS = (HARNESS_GROUP, STORE_GROUP, PLUGIN_GROUP)
"""Entry-point groups scanned for third-party plugins, in loading order."""

ENV_DISABLE_PLUGINS = "LOREBOOK_DISABLE_PLUGINS"
"""Comma-separated plugin names (entry-point names) that are not loaded."""
ENV_LOAD_PLUGINS = "LOREBOOK_LOAD_PLUGINS"
"""When set, only these comma-separated external plugins load (empty: none)."""
ENV_TRACE_PLUGINS = "LOREBOOK_TRACE_PLUGINS"
"""When set to a non-empty value, every hook call is traced to stderr."""
ENV_HOME = "LOREBOOK_HOME"
"""Overrides the per-user data folder (personal store, user state)."""
ENV_CACHE_DIR = "LOREBOOK_CACHE_DIR"
"""Overrides the per-machine cache folder (the semantic model's piece table)."""
ENV_INTERNAL = "LOREBOOK_INTERNAL"
"""Set to 1 in sessions lorebook runs itself; hooks do nothing in such a session."""
ENV_HOOK_SERVER = "LOREBOOK_HOOK_SERVER"
"""Set to 0 to keep every hook in its own process: no warm hook process is used or started."""

KB_DIRNAME = ".lorebook"
"""The knowledge base folder at the root of a repository."""

SCHEMA_VERSION: Literal[2] = 2
"""The on-disk format version written into notes (``lb_schema``) and config; an older one is
brought up to date by ``lorebook migrate run`` (:mod:`lorebook.migrate`)."""

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
