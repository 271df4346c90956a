"""``lorebook doctor`` asks the organisation store whether its database answers."""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any

import pytest

from lorebook_postgres import settings
from lorebook_postgres.cache import save_status
from lorebook_postgres.store import PostgresStore


@pytest.fixture
def org_repo(kb_repo: Path, pg_dsn: str, org: str) -> Path:
    config = kb_repo / ".lorebook/config.yaml"
    lines = [line for line in config.read_text().splitlines() if not line.startswith("stores:")]
    config.write_text("\n".join([*lines, "stores: [markdown, postgres]", f"organisation: {org}"]))
    return kb_repo


def _store_check(cli: Any, repo: Path) -> dict[str, Any]:
    done = cli("doctor", "--json", cwd=repo)
    [check] = [c for c in json.loads(done.stdout)["checks"] if c["name"] == "store postgres"]
    return dict(check)


def _dead_dsn() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = int(sock.getsockname()[1])
    return f"host=127.0.0.1 port={port} user=x"


def test_doctor_says_the_database_answers(org_repo: Path, cli: Any, pg_dsn: str, org: str) -> None:
    store = PostgresStore(org, dsn=pg_dsn)
    try:
        from lorebook.testing.store_contract import make_note

        store.add(make_note("queues"))
    finally:
        store.close()
    check = _store_check(cli, org_repo)
    assert check["state"] == "ok"
    assert f"organisation {org!r}: the database answers (as lorebook)" in check["detail"]
    assert "1 proposals await approval" in check["detail"]


def test_doctor_says_the_store_is_unreachable(
    org_repo: Path, cli: Any, org: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(settings.ENV_DSN, _dead_dsn())
    check = _store_check(cli, org_repo)
    assert check["state"] == "problem"  # no cache yet: nothing of the organisation is served
    assert "the database is unreachable (connection" in check["detail"]
    assert "last refreshed never" in check["detail"]
    assert settings.ENV_DSN in check["fix"]
    done = cli("doctor", cwd=org_repo)
    assert done.exit_code == 1
    assert (
        f"FAIL    store postgres: organisation {org!r}: the database is unreachable" in done.stdout
    )
    store = PostgresStore(org)
    save_status(store.paths, ok=True, notes=3, seconds=0.1)  # a refresh succeeded once
    check = _store_check(cli, org_repo)
    assert check["state"] == "warning"  # the hooks serve the last cache
    assert "the hooks serve the cache" in check["detail"]
    assert "last refreshed never" not in check["detail"]


def test_doctor_names_a_missing_connection(
    org_repo: Path, cli: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(settings.ENV_DSN)
    check = _store_check(cli, org_repo)
    assert check["state"] == "problem"
    assert "no PostgreSQL connection for the postgres store" in check["detail"]
