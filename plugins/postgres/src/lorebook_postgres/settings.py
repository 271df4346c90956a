"""Where the organisation store connects, which organisation it serves, where its cache lives.

The connection string is a secret: it comes from ``$LOREBOOK_POSTGRES_DSN`` or the user's
own config (``postgres.toml`` in the per-user lorebook folder, ``$LOREBOOK_HOME`` or the
platform's user data dir), never from a committed file. The organisation is not a secret:
``organisation:`` in ``.lorebook/config.yaml`` names it (the user config's ``organisation``
is used when the repository names none).
"""

from __future__ import annotations

import os
import re
import tomllib
from pathlib import Path
from typing import Any

from lorebook.errors import LorebookError
from lorebook.kb.personal import user_home

ENV_DSN = "LOREBOOK_POSTGRES_DSN"
"""The connection string (libpq keywords or a ``postgresql://`` URI)."""
USER_CONFIG = "postgres.toml"
"""The user's own settings, in the per-user lorebook folder: ``dsn`` and ``organisation``."""
CACHE_FOLDER = "postgres"
"""Under the per-user folder: one read-only cache per organisation."""
ORG_RE = re.compile(r"^[a-z0-9][a-z0-9._-]{0,62}$")


class SettingsError(LorebookError):
    """The organisation store is not configured, or configured where it must not be."""


def user_config_path() -> Path:
    """The user's ``postgres.toml``."""
    return user_home() / USER_CONFIG


def user_config() -> dict[str, Any]:
    """The user's settings ({} when the file is absent).

    Raises:
        SettingsError: the file is not valid TOML, or holds an unknown key.
    """
    path = user_config_path()
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise SettingsError(f"{path}: {exc}") from None
    unknown = sorted(set(data) - {"dsn", "organisation"})
    if unknown:
        raise SettingsError(f"{path}: unknown key {unknown[0]!r} (known: dsn, organisation)")
    for key in ("dsn", "organisation"):
        if key in data and not isinstance(data[key], str):
            raise SettingsError(f"{path}: key {key!r} must be a string")
    return data


def connection_string() -> str:
    """The DSN: ``$LOREBOOK_POSTGRES_DSN``, else the user config's ``dsn``.

    Raises:
        SettingsError: neither is set.
    """
    dsn = os.environ.get(ENV_DSN) or user_config().get("dsn")
    if not dsn:
        raise SettingsError(
            "no PostgreSQL connection for the postgres store",
            hint=f'set {ENV_DSN}, or `dsn = "..."` in {user_config_path()}',
        )
    return str(dsn)


def organisation(repo: Path | None) -> str | None:
    """The organisation scope: config.yaml's ``organisation``, else the user config's.

    Raises:
        SettingsError: the user config names an invalid organisation.
    """
    if repo is not None:
        from lorebook.config import load_config
        from lorebook.kb.paths import KBPaths

        paths = KBPaths(Path(repo))
        if paths.config.exists():
            org = load_config(paths).organisation
            if org:
                return org
    org = user_config().get("organisation")
    if org is not None and not ORG_RE.match(org):
        raise SettingsError(
            f"{user_config_path()}: key 'organisation': {org!r} is not a name "
            "(lower-case letters, digits, '.', '_' and '-')"
        )
    return org


def cache_root(org: str | None) -> Path:
    """The folder holding the organisation's cached approved notes (``nodes/``, ``.cache/``)."""
    return user_home() / CACHE_FOLDER / (org or "_none")
