"""The right to approve is the database's own: a writer's role proposes, an approver's approves.

The grants are the ones the plugin's README gives an administrator (group roles, a login
role in each), so the README's recipe is tested as written.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import psycopg
import pytest

from lorebook.testing.store_contract import make_note
from lorebook_postgres.store import NotAllowedError, PostgresStore
from tests.plugins.postgres.server import Server

SCRIPT = str(Path(sys.executable).parent / "lorebook-postgres")
README_GRANTS = """
GRANT SELECT ON lorebook_notes TO {writers};
GRANT INSERT (org, id, folder, content, title, description, tags, body, kind, status)
    ON lorebook_notes TO {writers};
GRANT UPDATE (folder, content, title, description, tags, body, kind, status, version, review,
    proposed_by, proposed_at) ON lorebook_notes TO {writers};
GRANT {writers} TO {approvers};
GRANT UPDATE (approved_content, approved_version, approved_by, approved_at), DELETE
    ON lorebook_notes TO {approvers};
"""


@pytest.fixture
def roles(pg_server: Server, pg_dsn: str, org: str, cache_dir: Path) -> tuple[str, str]:
    """(a writer's DSN, an approver's DSN): login roles in the README's group roles."""
    owner = PostgresStore(org, dsn=pg_dsn, cache=cache_dir)
    owner.ids()  # creates the table as its owner
    owner.close()
    suffix = org.replace("-", "_")
    names = {k: f"{k}_{suffix}" for k in ("writers", "approvers", "dev", "lead")}
    with psycopg.connect(pg_dsn, autocommit=True) as conn:
        conn.execute(f"CREATE ROLE {names['writers']} NOLOGIN")
        conn.execute(f"CREATE ROLE {names['approvers']} NOLOGIN")
        conn.execute(README_GRANTS.format(**names))
        conn.execute(f"CREATE ROLE {names['dev']} LOGIN IN ROLE {names['writers']}")
        conn.execute(f"CREATE ROLE {names['lead']} LOGIN IN ROLE {names['approvers']}")
    return pg_server.dsn_for("postgres", names["dev"]), pg_server.dsn_for("postgres", names["lead"])


def test_a_writer_proposes_and_only_an_approver_approves(
    roles: tuple[str, str], org: str, cache_dir: Path
) -> None:
    writer_dsn, approver_dsn = roles
    writer = PostgresStore(org, dsn=writer_dsn, cache=cache_dir)
    approver = PostgresStore(org, dsn=approver_dsn, cache=cache_dir)
    try:
        writer.add(make_note("deploy-freeze", body="No deploys on Friday afternoons."))
        with pytest.raises(NotAllowedError, match=r"role 'dev_\S+' may not approve"):
            writer.approve("practice-deploy-freeze")
        with pytest.raises(NotAllowedError):
            writer.remove("practice-deploy-freeze")  # withdrawing is a reviewer's too
        with pytest.raises(NotAllowedError):
            writer.reject("practice-deploy-freeze")
        who, _ = approver.approve("practice-deploy-freeze")
        assert who.startswith("lead_")
        assert approver.proposals() == []
        writer.update(make_note("deploy-freeze", body="No deploys after Thursday noon."))
        assert [p.id for p in approver.proposals()] == ["practice-deploy-freeze"]
        approver.reject("practice-deploy-freeze")  # back to the approved text
        assert "Friday afternoons" in approver.get("practice-deploy-freeze").body
    finally:
        writer.close()
        approver.close()


def _run(repo: Path, dsn: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "LOREBOOK_POSTGRES_DSN": dsn}
    return subprocess.run(
        [SCRIPT, *args], cwd=repo, env=env, capture_output=True, text=True, timeout=60, check=False
    )


def test_approving_without_the_right_is_one_line_naming_the_role(
    roles: tuple[str, str], kb_repo: Path, org: str, cli: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    writer_dsn, approver_dsn = roles
    config = kb_repo / ".lorebook/config.yaml"
    lines = [line for line in config.read_text().splitlines() if not line.startswith("stores:")]
    config.write_text("\n".join([*lines, "stores: [markdown, postgres]", f"organisation: {org}"]))
    monkeypatch.setenv("LOREBOOK_POSTGRES_DSN", writer_dsn)
    added = cli(
        "note", "add", "--store", "postgres", "--title", "Deploys freeze on Fridays",
        "--description", "When not to deploy", "--kind", "convention", cwd=kb_repo,
    )  # fmt: skip
    assert added.exit_code == 0, added.stderr  # a writer's role proposes
    note_id = "convention-deploys-freeze-on-fridays"
    refused = _run(kb_repo, writer_dsn, "approve", note_id)
    assert refused.returncode == 1
    assert refused.stderr.startswith("lorebook-postgres: error: the database role 'dev_")
    assert "may not approve in the postgres store" in refused.stderr
    assert "Traceback" not in refused.stderr
    approved = _run(kb_repo, approver_dsn, "approve", note_id)
    assert approved.returncode == 0, approved.stderr
    assert approved.stdout.startswith(f"approved {note_id} by lead_")
