"""Registers the ``postgres`` store (an organisation's notes on PostgreSQL) with lorebook.

Cheap to load: psycopg is imported when the store first connects.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lorebook import hookimpl
from lorebook.providers import StoreSpec

if TYPE_CHECKING:
    from lorebook.store import NoteStore


def _factory(repo: Any) -> NoteStore:
    from pathlib import Path

    from lorebook_postgres.store import open_store

    return open_store(Path(str(repo)) if repo is not None else None)


@hookimpl
def register_stores() -> list[StoreSpec]:
    """Declare the postgres store."""
    return [
        StoreSpec(
            name="postgres",
            factory=_factory,
            description="an organisation's notes on PostgreSQL, served once approved",
        )
    ]
