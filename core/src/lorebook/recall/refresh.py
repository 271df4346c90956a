"""Keep every configured store's index and ``.lorebook/.cache/stores.json`` current.

Commands that open the configured stores (:func:`lorebook.kb.personal.open_stores`) and the
session-start hook call :func:`refresh_stores` or :func:`session_refresh`: each store's index
is reconciled with its notes, and ``stores.json`` (:mod:`lorebook.recall.stores`) lists the
file-backed stores the hooks rank together. Here, not in ``kb``, because it drives the index.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lorebook.kb.fsutil import write_if_changed
from lorebook.kb.personal import PersonalPaths, open_stores, store_root
from lorebook.recall.stores import stores_file

if TYPE_CHECKING:
    from lorebook.kb.paths import KBPaths
    from lorebook.models.config import Config
    from lorebook.store import NoteStore


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
