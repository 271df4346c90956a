"""A fake host: replays recorded payloads through the installed hook commands.

It runs each command exactly as the host would: the command string the harness installed,
through the shell, in the repository, with the host's environment variables, the payload on
stdin. So a test exercises the committed config, the per-machine launcher and the fast path
together, without the real client.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lorebook.harness import Harness


@dataclass(frozen=True, slots=True)
class HookRun:
    """What one hook command did."""

    stdout: str
    stderr: str
    exit_code: int
    seconds: float

    def json(self) -> Any:
        """Parse stdout as JSON."""
        return json.loads(self.stdout)


class FakeHost:
    """Fires host events at a repository the way the host does.

    Example:
        >>> host = FakeHost(repo, MyHostHarness())
        >>> run = host.fire("UserPromptSubmit", {"session_id": "s", "cwd": str(repo), ...})
        >>> run.exit_code
        0
    """

    def __init__(self, repo: Path, harness: Harness, env: Mapping[str, str] | None = None) -> None:
        self.repo = repo
        self.harness = harness
        self.commands = harness.hook_commands(repo)
        self.env = {**os.environ, **harness.host_env(repo), **(env or {})}
        self.env.pop("LOREBOOK_INTERNAL", None)
        self.shell = shutil.which("bash") or "/bin/sh"

    def fire(
        self, host_event: str, payload: Mapping[str, Any] | bytes | str, *, timeout: float = 60
    ) -> HookRun:
        """Run the command installed for ``host_event`` with ``payload`` on stdin."""
        command = self.commands.get(host_event)
        if command is None:
            raise KeyError(f"no hook command is installed for {host_event!r}")
        if isinstance(payload, bytes):
            data = payload
        elif isinstance(payload, str):
            data = payload.encode("utf-8")
        else:
            data = json.dumps(payload).encode("utf-8")
        started = time.monotonic()
        proc = subprocess.run(
            [self.shell, "-c", command],
            input=data,
            cwd=self.repo,
            env=self.env,
            capture_output=True,
            timeout=timeout,
            check=False,
        )
        return HookRun(
            stdout=proc.stdout.decode("utf-8", "replace"),
            stderr=proc.stderr.decode("utf-8", "replace"),
            exit_code=proc.returncode,
            seconds=time.monotonic() - started,
        )
