"""The hooks serve the organisation's approved notes from the local cache, never the network.

A repository configured with ``stores: [markdown, postgres]``: ``note add --store postgres``
writes a proposal; session start refreshes the cache detached (the hook does not wait);
a prompt ranks the cache beside the repository's notes. A database that is down means
the last cache is served and one line is logged.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from lorebook_postgres import settings
from lorebook_postgres.cache import STATUS
from lorebook_postgres.store import PostgresStore
from tests.conftest import fire
from tests.plugins.postgres.server import Server

PROMPT = "how do I call the billing API from a service?"
TITLE = "The billing API is called through the gateway client"


def _timed(repo: Path, monkeypatch: pytest.MonkeyPatch, event: str, **payload: Any) -> Any:
    """The hook's answer ({} when silent) and the seconds it took."""
    started = time.monotonic()
    answer = fire(repo, monkeypatch, event, **payload) or {}
    return answer, time.monotonic() - started


def _status_file(org: str) -> Path:
    return settings.cache_root(org) / ".state" / STATUS


def _start_and_wait(repo: Path, monkeypatch: pytest.MonkeyPatch, org: str) -> dict[str, Any]:
    """Session start, then wait for the detached refresh it started to record its outcome."""
    status = _status_file(org)
    before = status.stat().st_mtime_ns if status.exists() else 0
    _, elapsed = _timed(repo, monkeypatch, "Start", source="startup")
    assert elapsed < 3.0  # the hook never waits for the refresh
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if status.exists() and status.stat().st_mtime_ns != before:
            return dict(json.loads(status.read_text()))
        time.sleep(0.05)
    raise AssertionError("the detached refresh recorded nothing within 60 s")


@pytest.fixture
def org_repo(kb_repo: Path, pg_dsn: str, org: str, cli: Any) -> Path:
    config = kb_repo / ".lorebook/config.yaml"
    lines = [line for line in config.read_text().splitlines() if not line.startswith("stores:")]
    config.write_text("\n".join([*lines, "stores: [markdown, postgres]", f"organisation: {org}"]))
    assert cli("lint", cwd=kb_repo).exit_code == 0
    return kb_repo


def _approve_all(dsn: str, org: str) -> None:
    store = PostgresStore(org, dsn=dsn)
    try:
        for proposal in store.proposals():
            store.approve(proposal.id)
    finally:
        store.close()


def test_an_approved_note_is_served_at_a_prompt_and_a_proposal_is_not(
    org_repo: Path, cli: Any, pg_dsn: str, org: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    added = cli(
        "note", "add", "--store", "postgres", "--title", TITLE,
        "--description", "Calling the billing API from any service",
        "--body", "Use the gateway client for the billing API; never call it directly.",
        "--kind", "convention", cwd=org_repo,
    )  # fmt: skip
    assert added.exit_code == 0, added.stderr
    assert "a proposal until approved" in added.stdout
    assert _start_and_wait(org_repo, monkeypatch, org)["ok"] is True
    answer, _ = _timed(org_repo, monkeypatch, "Prompt", prompt=PROMPT)
    assert TITLE not in answer.get("context", "")  # proposed: not served
    _approve_all(pg_dsn, org)
    assert _start_and_wait(org_repo, monkeypatch, org)["notes"] == 1
    answer, _ = _timed(org_repo, monkeypatch, "Prompt", prompt=PROMPT)
    assert f"### {TITLE}" in answer["context"]  # whole: a person approved it
    assert f"postgres store: {settings.cache_root(org) / 'nodes'}/convention/" in answer["context"]


def test_a_database_that_is_down_serves_the_last_cache_and_logs_one_line(
    org_repo: Path,
    cli: Any,
    pg_dsn: str,
    pg_server: Server,
    org: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    store = PostgresStore(org, dsn=pg_dsn)
    try:
        store.add(_note())
        store.approve(_note().id)
    finally:
        store.close()
    assert _start_and_wait(org_repo, monkeypatch, org)["ok"] is True
    # The server is unreachable: a port nothing listens on stands in for it (stopping
    # the shared server would fail the tests running beside this one).
    monkeypatch.setenv(settings.ENV_DSN, f"host=127.0.0.1 port={_dead_port()} user=x")
    status = _start_and_wait(org_repo, monkeypatch, org)
    assert status["ok"] is False
    assert "last_ok" in status
    answer, elapsed = _timed(org_repo, monkeypatch, "Prompt", prompt=PROMPT)
    assert f"### {TITLE}" in answer["context"]  # the last cache
    assert elapsed < 1.0
    log = (org_repo / ".lorebook/_logs/hook-errors.log").read_text().splitlines()
    lines = [line for line in log if "organisation store unreachable" in line]
    assert len(lines) == 1, log
    assert "serving its cache" in lines[0]


def _note() -> Any:
    from lorebook.testing.store_contract import make_note

    return make_note(
        "billing-gateway",
        title=TITLE,
        description="Calling the billing API from any service",
        body="Use the gateway client for the billing API; never call it directly.",
    )


def _dead_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])
