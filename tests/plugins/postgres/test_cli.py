"""``lorebook-postgres``: review, approve (who and when), reject, status."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

SCRIPT = str(Path(sys.executable).parent / "lorebook-postgres")


def _run(repo: Path, *args: str, dsn: str | None = None) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    if dsn is not None:
        env["LOREBOOK_POSTGRES_DSN"] = dsn
    return subprocess.run(
        [SCRIPT, *args], cwd=repo, env=env, capture_output=True, text=True, timeout=60, check=False
    )


@pytest.fixture
def org_repo(kb_repo: Path, pg_dsn: str, org: str) -> Path:
    config = kb_repo / ".lorebook/config.yaml"
    lines = [line for line in config.read_text().splitlines() if not line.startswith("stores:")]
    config.write_text("\n".join([*lines, "stores: [markdown, postgres]", f"organisation: {org}"]))
    return kb_repo


def test_review_then_approve_records_who_and_when_and_serves_it(
    org_repo: Path, cli: Any, pg_dsn: str
) -> None:
    added = cli(
        "note", "add", "--store", "postgres", "--title", "Queues are named after their team",
        "--description", "Naming a new queue", "--kind", "convention", cwd=org_repo,
    )  # fmt: skip
    assert added.exit_code == 0, added.stderr
    listed = _run(org_repo, "review", "--json")
    assert listed.returncode == 0, listed.stderr
    [proposal] = json.loads(listed.stdout)
    assert proposal["id"] == "convention-queues-are-named-after-their-team"
    assert proposal["replaces_approved"] is False
    shown = _run(org_repo, "show", proposal["id"])
    assert "title: Queues are named after their team" in shown.stdout
    stale = _run(org_repo, "approve", proposal["id"], "--version", str(proposal["version"] + 1))
    assert stale.returncode == 1
    assert stale.stderr.startswith("lorebook-postgres: error: note 'convention-queues")
    approved = _run(org_repo, "approve", proposal["id"], "--version", str(proposal["version"]))
    assert approved.returncode == 0, approved.stderr
    assert approved.stdout.startswith(f"approved {proposal['id']} by lorebook at ")
    assert "no proposals await approval" in _run(org_repo, "review").stdout
    refreshed = _run(org_repo, "refresh")
    assert refreshed.stdout.startswith("1 approved notes cached (1 written, 0 removed)")
    status = json.loads(_run(org_repo, "status", "--json").stdout)
    assert status["reachable"] is True
    assert status["last_refresh"]["ok"] is True


def test_status_says_the_database_is_unreachable_in_one_line(org_repo: Path) -> None:
    down = _run(org_repo, "status", dsn="host=127.0.0.1 port=1 connect_timeout=2")
    assert down.returncode == 1
    assert "database UNREACHABLE" in down.stdout
    assert "Connection refused" in down.stdout
    assert down.stderr == ""  # the pool's own logging stays quiet


def test_no_connection_configured_is_one_clear_error(org_repo: Path) -> None:
    env_free = _run(org_repo, "review", dsn="")
    assert env_free.returncode == 1
    assert env_free.stderr.splitlines()[0] == (
        "lorebook-postgres: error: no PostgreSQL connection for the postgres store"
    )
