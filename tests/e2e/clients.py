"""What the Claude Code and Codex CLI fixtures share: finding a client, its environment, running it.

A client is the pinned npm package installed by ``.ci/run`` into ``.clients/``; each run gets a
temporary HOME (with the XDG folders inside it), the loopback address bypasses any proxy, and the
client runs with stdin closed in its own process group, killed whole on timeout.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
from collections.abc import Collection, Mapping
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT


def latest_mode() -> bool:
    """Whether this run tests the newest client releases (``LOREBOOK_CLIENT_VERSIONS=latest``).

    Then the clients come from ``.clients-latest/`` (``scripts/e2e-latest`` installs them)
    and any version is accepted; by default they are the pinned ones in ``.clients/``.
    """
    return os.environ.get("LOREBOOK_CLIENT_VERSIONS") == "latest"


def find_client(name: str, variable: str) -> Path | None:
    """The ``name`` executable: ``$variable``, else ``.clients/`` (``.clients-latest/``), else PATH."""
    configured = os.environ.get(variable)
    if configured:
        return Path(configured)
    folder = ".clients-latest" if latest_mode() else ".clients"
    installed = REPO_ROOT / folder / "node_modules" / ".bin" / name
    if installed.exists():
        return installed
    if latest_mode():
        return None  # never test a pinned client from PATH as if it were the newest
    found = shutil.which(name)
    return Path(found) if found else None


def isolated_env(
    home: Path, dropped_prefixes: tuple[str, ...], dropped_names: Collection[str]
) -> dict[str, str]:
    """This process's environment with HOME and the XDG folders in ``home``.

    The variables named in ``dropped_names`` or starting with ``dropped_prefixes`` are gone and
    ``NO_PROXY``/``no_proxy`` add the loopback address.
    """
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(dropped_prefixes) and k not in dropped_names
    }
    no_proxy = ",".join(filter(None, [env.get("NO_PROXY"), "127.0.0.1", "localhost"]))
    env.update(
        HOME=str(home),
        XDG_CONFIG_HOME=str(home / ".config"),
        XDG_CACHE_HOME=str(home / ".cache"),
        XDG_DATA_HOME=str(home / ".local" / "share"),
        XDG_STATE_HOME=str(home / ".local" / "state"),
        NO_PROXY=no_proxy,
        no_proxy=no_proxy,
    )
    return env


def describe(proc: subprocess.CompletedProcess[str]) -> str:
    """A failure message: the command, its exit code, stdout and stderr."""
    return (
        f"{' '.join(map(str, proc.args))}\nexit code {proc.returncode}\n"
        f"--- stdout ---\n{proc.stdout}\n--- stderr ---\n{proc.stderr}"
    )


def run_process(
    cmd: list[str], cwd: Path, env: Mapping[str, str], timeout: float, *, name: str | None = None
) -> subprocess.CompletedProcess[str]:
    """Run a command with stdin closed, in its own process group, killed whole on timeout.

    A timeout fails the test, naming the command as ``name`` (default: the executable). Codex
    appends whatever stdin holds to the prompt, so stdin is always ``/dev/null``.
    """
    with subprocess.Popen(
        cmd,
        cwd=cwd,
        env=dict(env),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    ) as child:
        try:
            stdout, stderr = child.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(child.pid, signal.SIGKILL)
            stdout, stderr = child.communicate()
            proc = subprocess.CompletedProcess(cmd, -signal.SIGKILL, stdout, stderr)
            label = name or cmd[0]
            pytest.fail(f"{label} timed out after {timeout}s\n{describe(proc)}", pytrace=False)
    return subprocess.CompletedProcess(cmd, child.returncode, stdout, stderr)
