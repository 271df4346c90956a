"""Shared fixtures: the lorebook test kit, and ways to run the real CLI."""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

pytest_plugins = ["lorebook.testing"]

REPO_ROOT = Path(__file__).resolve().parent.parent


def pytest_configure(config: pytest.Config) -> None:
    """Build the semantic piece table once per checkout, not once per isolated home.

    Hooks run in their own process, with no warm hook process started (the tests of the
    warm process turn it back on), unless ``LOREBOOK_HOOK_SERVER=1`` is set for the run:
    then the hooks of tests that do not use the test kit's ``lorebook_home`` fixture (which
    turns it off for its test), the e2e tests among them, may be answered warm, as on a
    user's machine, and the servers are stopped when the run ends.
    """
    os.environ.setdefault("LOREBOOK_HOOK_SERVER", "0")
    cache = getattr(config, "cache", None)  # absent with -p no:cacheprovider
    if cache is not None and "LOREBOOK_CACHE_DIR" not in os.environ:
        os.environ["LOREBOOK_CACHE_DIR"] = str(cache.mkdir("lorebook-cache"))


SHARED = REPO_ROOT.parent / "shared"
needs_shared = pytest.mark.skipif(
    not (SHARED / "eval").is_dir() or not (SHARED / "fixtures").is_dir(),
    reason="needs the shared evaluation data and recorded payloads in ../shared beside "
    "this clone (CI has them; they are not in the repository)",
)
"""For a test whose material comes from ``../shared`` (a fresh clone has none)."""


@pytest.fixture(scope="session", autouse=True)
def _stop_warm_hook_processes(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Stop every warm hook process a test's repository still runs when the run ends."""
    yield
    from lorebook.fastpath.client import stop_server

    for sock in tmp_path_factory.getbasetemp().rglob("hookd.sock"):
        stop_server(str(sock.parent.parent))


@dataclass(frozen=True)
class Result:
    """What one CLI run printed and returned."""

    exit_code: int
    stdout: str
    stderr: str

    def json(self) -> Any:
        """Parse stdout as the command's one JSON document."""
        return json.loads(self.stdout)


CliRunner = Callable[..., Result]


@pytest.fixture
def cli(lorebook_home: Path, monkeypatch: pytest.MonkeyPatch) -> CliRunner:
    """Run ``lorebook`` in this process (fast), exactly as the console script does."""
    from lorebook.cli.app import main

    def run(*args: str, cwd: Path | None = None, stdin: str = "") -> Result:
        out, err = io.StringIO(), io.StringIO()
        monkeypatch.setattr(sys, "argv", ["lorebook", *args])
        monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
        code = 0
        with (
            contextlib.chdir(cwd or Path.cwd()),
            contextlib.redirect_stdout(out),
            contextlib.redirect_stderr(err),
        ):
            try:
                main()
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        return Result(code, out.getvalue(), err.getvalue())

    return run


def run_lorebook(
    *args: str, cwd: Path, env: dict[str, str] | None = None, check: bool = True
) -> subprocess.CompletedProcess[str]:
    """Run ``lorebook`` as a separate process (for hash seeds, time zones, concurrency)."""
    full_env = {**os.environ, **(env or {})}
    proc = subprocess.run(
        [sys.executable, "-m", "lorebook", *args],
        cwd=cwd,
        env=full_env,
        capture_output=True,
        text=True,
        check=False,
    )
    if check and proc.returncode != 0:
        raise AssertionError(
            f"lorebook {' '.join(args)} exited {proc.returncode}\n{proc.stdout}\n{proc.stderr}"
        )
    return proc


FAKE_HOST = {"fake": "tests.core.fake_host_events"}
"""The test host's event module (``tests/core/fake_host_events.py``), for :func:`fire_raw`."""


def fire_raw(
    repo: Path,
    monkeypatch: pytest.MonkeyPatch,
    argv: list[str],
    payload: dict[str, Any] | bytes,
    *,
    modules: dict[str, str] | None = None,
) -> str:
    """Run one hook event in this process, as the launcher does; return what it printed.

    ``argv`` is the launcher's (``["fake", "Prompt"]``), ``payload`` the host's JSON (a
    dict, or raw bytes to feed it garbage), ``modules`` the event module of each harness
    (default :data:`FAKE_HOST`). The hook must exit 0; stdin and stdout are put back after.
    """
    from lorebook.hook import run

    data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    out = io.BytesIO()
    stdout = io.TextIOWrapper(out, encoding="utf-8")  # held: closing it would close ``out``
    with monkeypatch.context() as patch:
        patch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data), encoding="utf-8"))
        patch.setattr(sys, "stdout", stdout)
        assert run(argv, repo=str(repo), event_modules=modules or FAKE_HOST) == 0
    stdout.flush()
    return out.getvalue().decode()


def fire(
    repo: Path, monkeypatch: pytest.MonkeyPatch, event: str, *, session: str = "s1", **fields: Any
) -> Any:
    """Run one event of the test host in this process; return its parsed answer.

    The payload is ``session_id``, ``cwd`` (the repository) and ``fields``; the answer is
    ``None`` when the hook printed nothing.
    """
    payload = {"session_id": session, "cwd": str(repo), **fields}
    raw = fire_raw(repo, monkeypatch, ["fake", event], payload)
    return json.loads(raw) if raw else None


def hook_errors(repo: Path) -> list[str]:
    """The lines of the repository's ``hook-errors.log`` (none when it does not exist)."""
    log = repo / ".lorebook/_logs/hook-errors.log"
    return log.read_text(encoding="utf-8").splitlines() if log.exists() else []


def git(repo: Path, *args: str) -> str:
    """Run git in ``repo`` and return its stdout."""
    return subprocess.run(
        ["git", *args], cwd=repo, check=True, capture_output=True, text=True
    ).stdout
