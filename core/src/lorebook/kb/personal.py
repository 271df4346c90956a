"""The personal store, and opening every store ``stores:`` names.

The personal store holds notes a person keeps for themselves across repositories and never
commits: markdown notes like the repository's, under the per-user data folder
(``platformdirs``' user data dir for ``lorebook``, or ``$LOREBOOK_HOME``), in
``personal/nodes/``, with their own index in ``personal/.cache/``. Its notes declare no
file dependencies: they are read from every repository, so there is no one tree to check
them against.

:func:`open_stores` opens the configured stores (an unknown name fails, listing the
valid ones); :func:`lorebook.recall.refresh.refresh_stores` also brings their indexes up to
date and writes ``.lorebook/.cache/stores.json``, which the hooks read to rank every store
together.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from lorebook.constants import ENV_HOME
from lorebook.kb.paths import KBPaths
from lorebook.kb.store import MarkdownStore
from lorebook.models.config import Config
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
    named_in = f"{paths.rel(paths.config)}, key 'stores'"
    specs = [plugins.store(name, named_in=named_in) for name in config.stores]  # all checked first
    return {spec.name: spec.factory(paths.repo) for spec in specs}


def store_root(store: NoteStore) -> Path | None:
    """The folder holding a file-backed store's ``nodes/`` and ``.cache/`` (None otherwise)."""
    paths = getattr(store, "paths", None)
    return paths.root if isinstance(paths, KBPaths) else None
