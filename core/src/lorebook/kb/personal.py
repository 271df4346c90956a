"""The personal store, and opening every store ``stores:`` names.

The personal store holds notes a person keeps for themselves across repositories and never
commits: markdown notes like the repository's, under the per-user data folder
(``platformdirs``' user data dir for ``lorebook``, or ``$LOREBOOK_HOME``), in
``personal/nodes/``, with their own index in ``personal/.cache/``. Its notes declare no
file dependencies: they are read from every repository, so there is no one tree to check
them against.

:func:`refresh_stores` opens the configured stores (an unknown name fails, listing the
valid ones), brings the personal store's index up to date, and writes
``.lorebook/.cache/stores.json``, which the hooks read to rank every store together.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lorebook.constants import ENV_HOME
from lorebook.kb.fsutil import write_if_changed
from lorebook.kb.paths import KBPaths
from lorebook.kb.store import MarkdownStore
from lorebook.models.config import Config
from lorebook.recall.stores import stores_file
from lorebook.store import NoteStore

PERSONAL = "personal"


def user_home() -> Path:
    """The per-user lorebook folder: ``$LOREBOOK_HOME``, else the platform's user data dir."""
    override = os.environ.get(ENV_HOME)
    if override:
        return Path(override)
    from platformdirs import user_data_path

    return user_data_path("lorebook", appauthor=False)


@dataclass(frozen=True, slots=True)
class PersonalPaths(KBPaths):
    """The layout of the personal store: the folder itself plays ``.lorebook/``."""

    @property
    def root(self) -> Path:
        """The personal folder (it holds ``nodes/``, ``.cache/`` and ``.state/``)."""
        return self.repo


def personal_paths() -> PersonalPaths:
    """Where the personal store lives on this machine."""
    return PersonalPaths(user_home() / PERSONAL)


def open_personal_store(repo: Path | None = None) -> MarkdownStore:
    """Build the personal store (the store provider's factory; ``repo`` is not used)."""
    paths = personal_paths()
    return MarkdownStore(paths.repo, paths=paths, name=PERSONAL)


def open_stores(paths: KBPaths, config: Config) -> dict[str, NoteStore]:
    """Every store ``stores:`` names, opened, in config order.

    Raises:
        UnknownProviderError: a name no installed plugin provides (the valid ones listed).
    """
    from lorebook.plugins import get_plugins

    plugins = get_plugins()
    specs = [plugins.store(name) for name in config.stores]  # every name checked first
    return {spec.name: spec.factory(paths.repo) for spec in specs}


def store_root(store: NoteStore) -> Path | None:
    """The folder holding a file-backed store's ``nodes/`` and ``.cache/`` (None otherwise)."""
    paths = getattr(store, "paths", None)
    return paths.root if isinstance(paths, KBPaths) else None


def _refresh_argv(store: NoteStore, kb_root: str) -> list[str] | None:
    """The command a file-backed store's cache is refreshed by at session start (or None).

    A store that keeps its notes elsewhere (a database) and ranks a local copy of them
    provides ``refresh_argv(kb_root)``; the session-start hook runs it detached
    (:func:`lorebook.recall.stores.start_refreshers`) and never waits for it.
    """
    method = getattr(store, "refresh_argv", None)
    if not callable(method):
        return None
    argv = method(kb_root)
    if isinstance(argv, list) and argv and all(isinstance(a, str) for a in argv):
        return argv
    return None


def refresh_stores(paths: KBPaths, config: Config) -> dict[str, NoteStore]:
    """Open the configured stores, reconcile their indexes, write ``stores.json``.

    A store that is not file-backed (a plugin's database) cannot be ranked on the hook
    path; it is left out of ``stores.json`` and served by ``lorebook recall`` only. One
    that ranks a local copy of a database (``lorebook-postgres``) is file-backed, with the
    command that refreshes that copy in its entry.
    """
    from lorebook.recall.sync import reconcile

    stores = open_stores(paths, config)
    entries: list[dict[str, Any]] = []
    for name, store in stores.items():
        root = store_root(store)
        if name == "markdown" or root is None:
            if name == "markdown":
                entries.append({"name": name})
            continue
        store_paths = store.paths  # type: ignore[attr-defined]
        store_paths.nodes.mkdir(parents=True, exist_ok=True)
        reconcile(store_paths)  # embedded with the same piece table: one scale for every store
        entry: dict[str, Any] = {"name": name, "root": str(root)}
        refresh = _refresh_argv(store, str(paths.root))
        if refresh:
            entry["refresh"] = refresh
        entries.append(entry)
    text = json.dumps({"stores": entries}, indent=2, sort_keys=True) + "\n"
    try:
        paths.cache.mkdir(parents=True, exist_ok=True)
        write_if_changed(Path(stores_file(str(paths.root))), text)
    except OSError:
        pass  # a read-only checkout: hooks rank the repository store alone
    return stores


def session_refresh(paths: KBPaths, reloaded: Config | None) -> None:
    """At session start: keep the other stores' indexes and ``stores.json`` current.

    ``stores.json`` is rewritten when the config changed or it is missing; otherwise the
    indexes of the stores it lists are reconciled (no plugin is loaded for that).
    """
    from lorebook.recall.stores import configured
    from lorebook.recall.sync import reconcile

    if reloaded is None and not os.path.exists(stores_file(str(paths.root))):
        from lorebook.config import load_config

        reloaded = load_config(paths)
    if reloaded is not None:
        refresh_stores(paths, reloaded)
        return
    for entry in configured(str(paths.root)):
        root = entry.get("root")
        if isinstance(root, str) and os.path.isdir(os.path.join(root, "nodes")):
            reconcile(PersonalPaths(Path(root)), build_pieces=False)
