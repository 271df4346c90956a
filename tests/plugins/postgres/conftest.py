"""Fixtures: one real PostgreSQL server per test process, a fresh organisation per test."""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.plugins.postgres.server import Server, find_bindir, remove_server, start_server

psycopg = pytest.importorskip("psycopg", reason="lorebook-postgres is not installed")

_orgs = itertools.count()


@pytest.fixture(scope="session")
def pg_server() -> Iterator[Server]:
    """A PostgreSQL server of the tests' own (skipped, saying why, without the binaries)."""
    bindir = find_bindir()
    if bindir is None:
        pytest.skip(
            "PostgreSQL's initdb and pg_ctl are not installed (Debian: apt-get install "
            "postgresql); the postgres store tests need a real server"
        )
    server = start_server(bindir)
    try:
        yield server
    finally:
        remove_server(server)


@pytest.fixture
def pg_dsn(pg_server: Server, monkeypatch: pytest.MonkeyPatch) -> str:
    """The server's DSN, also set as ``LOREBOOK_POSTGRES_DSN`` for the test."""
    monkeypatch.setenv("LOREBOOK_POSTGRES_DSN", pg_server.dsn)
    return pg_server.dsn


@pytest.fixture
def org() -> str:
    """An organisation no other test uses (the tests share one database)."""
    return f"org{os.getpid()}-{next(_orgs)}"


@pytest.fixture
def cache_dir(tmp_path: Path) -> Path:
    """Where the test's organisation cache lives."""
    return tmp_path / "org-cache"
