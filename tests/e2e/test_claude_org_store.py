"""The organisation store with the real Claude Code client and a real PostgreSQL server.

Two repositories, each on its own "machine" (its own per-user lorebook folder, so its own
cache), configured with the same organisation. A note proposed from one is not served at
a prompt in the other; once a person approves it, session start refreshes the other's
cache (detached) and its next prompt is served the note. With the server stopped, both
repositories' hooks answer from their caches, each logs one line, and ``lorebook doctor``
says the organisation store is unreachable. Proven from what the mock model received.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import git
from tests.e2e.conftest import ClaudeRunner, describe, stream_json_events
from tests.e2e.mock_anthropic import MockAnthropic, all_text

pytest.importorskip("psycopg", reason="lorebook-postgres is not installed")

from lorebook_postgres.cache import STATUS
from lorebook_postgres.settings import CACHE_FOLDER, ENV_DSN
from tests.plugins.postgres.server import (
    Server,
    find_bindir,
    remove_server,
    start_server,
)

pytestmark = pytest.mark.e2e

ORG = "acme"
TITLE = "The billing API is called through the gateway client"
BODY = "ORG_NOTE_BODY: use the gateway client for the billing API; never call it directly."
NOTE_ID = "convention-the-billing-api-is-called-through-the-gateway-client"
PROMPT = "how do I call the billing API from a service?"
UNREACHABLE = "organisation store unreachable, serving its cache"


@dataclass(frozen=True)
class Machine:
    """A repository and the per-user lorebook folder of the machine it is cloned on."""

    repo: Path
    home: Path
    dsn: str

    @property
    def env(self) -> dict[str, str]:
        return {"LOREBOOK_HOME": str(self.home), ENV_DSN: self.dsn}

    @property
    def status_file(self) -> Path:
        return self.home / CACHE_FOLDER / ORG / ".state" / STATUS

    @property
    def log(self) -> Path:
        return self.repo / ".lorebook/_logs/hook-errors.log"

    def run(self, program: str, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        script = str(Path(sys.executable).parent / program)
        argv = [sys.executable, "-m", "lorebook"] if program == "lorebook" else [script]
        proc = subprocess.run(
            [*argv, *args], cwd=self.repo, env={**os.environ, **self.env},
            capture_output=True, text=True, timeout=120, check=False,
        )  # fmt: skip
        if check:
            assert proc.returncode == 0, describe(proc)
        return proc

    def refreshed(self) -> float:
        """When the cache refresh last recorded its outcome (0 when never)."""
        return self.status_file.stat().st_mtime if self.status_file.exists() else 0.0

    def wait_refresh(self, since: float) -> dict[str, Any]:
        """Wait for the refresh session start started (detached) to record its outcome."""
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            if self.refreshed() != since:
                return dict(json.loads(self.status_file.read_text()))
            time.sleep(0.1)
        raise AssertionError(f"no cache refresh recorded in {self.status_file} within 90 s")


@pytest.fixture
def org_server() -> Iterator[Server]:
    """A PostgreSQL server of this test's own (it is stopped midway)."""
    bindir = find_bindir()
    if bindir is None:
        pytest.skip("PostgreSQL's initdb and pg_ctl are not installed (apt-get install postgresql)")
    server = start_server(bindir)
    try:
        yield server
    finally:
        remove_server(server)


def _machine(tmp_path: Path, name: str, dsn: str) -> Machine:
    repo = tmp_path / name / "repo"
    repo.mkdir(parents=True)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "config", "user.name", "lorebook e2e")
    git(repo, "config", "user.email", "e2e@example.invalid")
    git(repo, "commit", "-q", "--allow-empty", "-m", "start")
    machine = Machine(repo, tmp_path / name / "lorebook-home", dsn)
    machine.run("lorebook", "init", "--harnesses", "claude")
    config = repo / ".lorebook/config.yaml"
    lines = [line for line in config.read_text().splitlines() if not line.startswith("stores:")]
    config.write_text("\n".join([*lines, "stores: [markdown, postgres]", f"organisation: {ORG}"]))
    machine.run("lorebook", "lint")  # writes stores.json, as any command opening the stores
    return machine


def _prompt(run_claude: ClaudeRunner, mock: MockAnthropic, machine: Machine) -> str:
    """One session with one prompt; what the model received with it (every hook exited 0)."""
    mock.clear()
    proc = run_claude(machine.repo, PROMPT, "--include-hook-events", env=machine.env)
    requests = mock.main_requests()
    assert requests, describe(proc)
    answered = {
        e["hook_event"]: e.get("exit_code")
        for e in stream_json_events(proc.stdout)
        if e.get("type") == "system" and e.get("subtype") == "hook_response"
    }
    assert answered.get("SessionStart") == 0, describe(proc)
    assert answered.get("UserPromptSubmit") == 0, describe(proc)
    return all_text(requests[0])


def _served(text: str) -> bool:
    """The note reached the model: whole (a confident match) or as a pointer to it."""
    return BODY in text or NOTE_ID in text or TITLE in text


def test_a_note_is_served_in_the_other_repository_once_approved_and_from_the_cache_when_down(
    tmp_path: Path,
    org_server: Server,
    mock_anthropic: MockAnthropic,
    run_claude: ClaudeRunner,
) -> None:
    a = _machine(tmp_path, "a", org_server.dsn)
    b = _machine(tmp_path, "b", org_server.dsn)
    added = a.run(
        "lorebook", "note", "add", "--store", "postgres", "--title", TITLE,
        "--description", "Calling the billing API from any service",
        "--body", BODY, "--kind", "convention",
    )  # fmt: skip
    assert "a proposal until approved" in added.stdout
    [proposal] = json.loads(a.run("lorebook-postgres", "review", "--json").stdout)
    assert proposal["id"] == NOTE_ID

    # Before approval: B's session start refreshes its cache; the proposal is not in it.
    since = b.refreshed()
    assert not _served(_prompt(run_claude, mock_anthropic, b))
    status = b.wait_refresh(since)
    assert (status["ok"], status["notes"]) == (True, 0)
    assert not _served(_prompt(run_claude, mock_anthropic, b))

    # A person with the right to approve accepts it.
    approved = a.run("lorebook-postgres", "approve", NOTE_ID)
    assert approved.stdout.startswith(f"approved {NOTE_ID} by ")

    # B: session start refreshes the cache (detached), then a prompt is served the note.
    since = b.refreshed()
    run_claude(b.repo, "say hi", env=b.env)
    assert b.wait_refresh(since)["notes"] == 1
    seen = _prompt(run_claude, mock_anthropic, b)
    assert BODY in seen  # whole: a confident match of a note a person approved
    since = a.refreshed()
    run_claude(a.repo, "say hi", env=a.env)
    assert a.wait_refresh(since)["notes"] == 1
    assert BODY in _prompt(run_claude, mock_anthropic, a)
    for machine in (a, b):
        assert not machine.log.exists(), machine.log.read_text()

    # The server stops: both repositories' hooks answer from their caches, one line logged.
    org_server.stop()
    for machine in (a, b):
        since = machine.refreshed()
        assert BODY in _prompt(run_claude, mock_anthropic, machine)
        status = machine.wait_refresh(since)
        assert status["ok"] is False
        lines = machine.log.read_text().splitlines()
        assert len(lines) == 1, lines
        assert UNREACHABLE in lines[0]
        doctor = machine.run("lorebook", "doctor", "--json", check=False)
        [check] = [c for c in json.loads(doctor.stdout)["checks"] if c["name"] == "store postgres"]
        assert check["state"] == "warning", check
        assert f"organisation {ORG!r}: the database is unreachable" in check["detail"]
        assert "the hooks serve the cache" in check["detail"]
