"""The postgres store passes the store contract suite, on a real server."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from lorebook.testing import StoreContract
from lorebook_postgres.store import PostgresStore


class TestPostgresStore(StoreContract):
    @pytest.fixture
    def store(self, pg_dsn: str, org: str, cache_dir: Path) -> Iterator[PostgresStore]:
        store = PostgresStore(org, dsn=pg_dsn, cache=cache_dir)
        yield store
        store.close()
