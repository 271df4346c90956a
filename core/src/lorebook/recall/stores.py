"""Which stores the hooks rank together, read from ``.lorebook/.cache/stores.json``.

A store is ranked and served through its :class:`StoreView`: its name, its open index and
where its notes live.

The hook fast path cannot load plugins, so every command that opens the configured stores
(and the session-start hook) writes this file (:func:`lorebook.recall.refresh.refresh_stores`):
the store names in config order, each with the folder holding its ``nodes/`` and
``.cache/index.sqlite``. A missing or broken file means the repository store alone.

Standard library and light lorebook modules only.
"""

from __future__ import annotations

import json
import os

from lorebook import detached
from lorebook.recall.db import sqlite3
from lorebook.recall.index import NoteIndex, index_path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

STORES_NAME = "stores.json"


HOME = "markdown"


class StoreView:
    """One store as the serving code reads it: its name, its index, where its notes live.

    Attributes:
        name: The store's provider name (``markdown``, ``personal``).
        index: Its open note index.
        nodes: The folder holding its note files.
        repo: The repository its notes' dependencies are relative to (None: the store's
            notes declare none, as for the personal store).
        prefix: How a note's location is shown: prefix + its path under ``nodes``.
    """

    __slots__ = ("index", "name", "nodes", "prefix", "repo")

    def __init__(
        self, name: str, index: NoteIndex, nodes: str, repo: str | None, prefix: str
    ) -> None:
        self.name = name
        self.index = index
        self.nodes = nodes
        self.repo = repo
        self.prefix = prefix

    @classmethod
    def home(cls, index: NoteIndex) -> StoreView:
        """The repository's own store, from its index at ``.lorebook/.cache/index.sqlite``."""
        kb_root = os.path.dirname(os.path.dirname(os.path.abspath(index.path)))
        nodes = os.path.join(kb_root, "nodes")
        return cls(HOME, index, nodes, os.path.dirname(kb_root), ".lorebook/nodes/")

    def key(self, note_id: str) -> str:
        """The session-state key of one of this store's notes."""
        return note_id if self.name == HOME else f"{self.name}:{note_id}"


def stores_file(kb_root: str) -> str:
    """Where the compiled store list lives."""
    return os.path.join(kb_root, ".cache", STORES_NAME)


def configured(kb_root: str) -> list[dict[str, Any]]:
    """The store entries of ``stores.json`` (the repository store alone when unreadable)."""
    try:
        with open(stores_file(kb_root), encoding="utf-8") as handle:
            data = json.load(handle)
    except (OSError, ValueError):
        return [{"name": HOME}]
    entries = data.get("stores") if isinstance(data, dict) else None
    if not isinstance(entries, list):
        return [{"name": HOME}]
    return [e for e in entries if isinstance(e, dict) and isinstance(e.get("name"), str)]


def open_views(kb_root: str, problems: list[str] | None = None) -> list[StoreView]:
    """Open every configured store's index read-only, in config order.

    The repository store's index must exist (it is built at session start); another
    store whose index is missing is skipped, with a line in ``problems``.
    """
    views: list[StoreView] = []
    for entry in configured(kb_root):
        name = entry["name"]
        if name == HOME:
            views.append(StoreView.home(NoteIndex(index_path(kb_root))))
            continue
        root = entry.get("root")
        if not isinstance(root, str):
            continue
        try:
            index = NoteIndex(os.path.join(root, ".cache", "index.sqlite"))
        except (OSError, sqlite3.Error) as exc:
            if problems is not None:
                problems.append(f"store {name!r} skipped: {exc}")
            continue
        nodes = os.path.join(root, "nodes")
        views.append(StoreView(name, index, nodes, None, f"{name} store: {nodes}/"))
    return views


def close_views(views: list[StoreView]) -> None:
    """Close every view's index."""
    for view in views:
        view.index.__exit__(None, None, None)


def start_refreshers(kb_root: str, problems: list[str] | None = None) -> int:
    """Start, detached, each store's cache refresh ``stores.json`` names; return how many.

    A store that ranks a local copy of a database names the command that refreshes it
    (``refresh``: an argument list). Session start runs it and does not wait: the hooks
    serve the copy as it is, never waiting on the network. A command that cannot start
    is one line in ``problems``.
    """
    started = 0
    for entry in configured(kb_root):
        argv = entry.get("refresh")
        if not isinstance(argv, list) or not argv or not all(isinstance(a, str) for a in argv):
            continue
        try:
            detached.start(argv, kb_root)
        except OSError as exc:
            if problems is not None:
                problems.append(f"store {entry['name']!r}: refresh did not start: {exc}")
            continue
        started += 1
    return started
