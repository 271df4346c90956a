"""``lorebook doctor --live``: fire a canary event through every installed hook.

A hook can die silently: the committed command ends in ``|| true`` (a missing launcher
must not break a session), the hook exits 0 on any failure, and the host shows nothing.
So the only proof a hook works is to run it. For each wired harness and each event its
host config installs, the canary runs the installed command string exactly as the host
does (as :class:`lorebook.testing.FakeHost` does in tests: through the shell, in the
repository, with the host's environment, the payload on stdin), then checks that a
well-formed answer came back:

- the command exited 0;
- its stdout is empty or one JSON document (what every lorebook translator renders);
- the hook's timing log gained a line for the canary's session and event, with the event
  parsed (so the launcher, the interpreter, the translator and the fast path all ran);
- the hook error log gained no line for it.

The canary payload carries each host's field names at once (a host's translator reads its
own and ignores the rest): a prompt, a harmless shell command, an empty transcript, so a
capture event stages nothing. The canary's own traces (its timing lines, its per-session
state) are removed afterwards; an error a hook logged stays in the hook error log.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lorebook.kb.paths import KBPaths

CANARY_SESSION = "lorebook-doctor-canary"
TIMING_LOG = Path("_logs") / "hook-timing.log"
ERROR_LOG = Path("_logs") / "hook-errors.log"


@dataclass(frozen=True, slots=True)
class CanaryResult:
    """What one hook answered to the canary."""

    harness: str
    host_event: str
    ok: bool
    detail: str


def canary_payload(repo: Path, host_event: str, transcript: str) -> dict[str, Any]:
    """One payload with every host's field names for the session, folder, prompt and tool."""
    command = {"command": "true"}
    return {
        "session_id": CANARY_SESSION, "sessionId": CANARY_SESSION,
        "sessionID": CANARY_SESSION, "conversation_id": CANARY_SESSION,
        "cwd": str(repo), "directory": str(repo), "workspace_roots": [str(repo)],
        "hook_event_name": host_event, "source": "startup", "stop_hook_active": False,
        "prompt": "lorebook doctor canary", "command": "true",
        "tool_name": "Bash", "toolName": "bash", "tool": "bash",
        "tool_input": command, "toolArgs": command, "args": command,
        "transcript_path": transcript, "transcriptPath": transcript,
    }  # fmt: skip


def _lines(path: Path) -> list[str]:
    try:
        return path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return []


def _well_formed(stdout: str) -> str | None:
    """None when stdout is empty or one JSON document, else what is wrong."""
    if not stdout.strip():
        return None
    try:
        json.loads(stdout)
    except ValueError:
        return f"printed something that is not JSON: {stdout.strip()[:120]!r}"
    return None


def _timed(lines: list[str], harness: str, host_event: str) -> dict[str, Any] | None:
    """The canary's timing line for this harness and event, if the hook wrote one."""
    for line in lines:
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if (
            isinstance(record, dict)
            and record.get("session") == CANARY_SESSION
            and (record.get("harness"), record.get("host_event")) == (harness, host_event)
        ):
            return record
    return None


TIMEOUT = 60.0
"""Seconds one hook command may take (longer than any host's own timeout for a hook)."""


def run_as_host(
    repo: Path, command: str, env: dict[str, str], payload: dict[str, Any]
) -> subprocess.CompletedProcess[str]:
    """Run a hook command string as a host does: a shell, in the repository, payload on stdin."""
    shell = shutil.which("bash") or "/bin/sh"
    return subprocess.run(
        [shell, "-c", command], input=json.dumps(payload), cwd=repo, env=env,
        capture_output=True, text=True, timeout=TIMEOUT, check=False,
    )  # fmt: skip


def fire_canary(
    paths: KBPaths, harness: str, host_event: str, command: str, env: dict[str, str]
) -> CanaryResult:
    """Run one installed hook command with the canary payload; judge what came back."""
    timing, errors = paths.root / TIMING_LOG, paths.root / ERROR_LOG
    seen_timing, seen_errors = len(_lines(timing)), len(_lines(errors))
    with tempfile.NamedTemporaryFile(suffix=".jsonl") as transcript:
        payload = canary_payload(paths.repo, host_event, transcript.name)
        try:
            run = run_as_host(paths.repo, command, env, payload)
        except (OSError, subprocess.SubprocessError) as exc:  # hung or unrunnable: a finding
            return CanaryResult(harness, host_event, False, f"did not run: {exc}")
    new_errors = _lines(errors)[seen_errors:]
    record = _timed(_lines(timing)[seen_timing:], harness, host_event)
    if run.returncode != 0:
        detail = f"exited {run.returncode}: {run.stderr.strip()[:160]}"
    elif (bad := _well_formed(run.stdout)) is not None:
        detail = bad
    elif new_errors:
        detail = f"the hook failed: {new_errors[-1][:200]}"
    elif record is None:
        detail = "no answer: the hook never ran (the launcher or the command did nothing)"
    elif record.get("event") is None:
        detail = "the hook could not read the event"
    else:
        return CanaryResult(harness, host_event, True, "a well-formed answer came back")
    return CanaryResult(harness, host_event, False, detail)


def _forget_canary(paths: KBPaths) -> None:
    """Remove the canary's timing lines and per-session state."""
    from lorebook.kb.fsutil import atomic_write_text

    timing = paths.root / TIMING_LOG
    lines = _lines(timing)
    kept = [line for line in lines if CANARY_SESSION not in line]
    if len(kept) != len(lines):
        atomic_write_text(timing, "".join(f"{line}\n" for line in kept))
    for folder in (paths.state, paths.cache):
        for path in folder.rglob(f"*{CANARY_SESSION}*") if folder.is_dir() else []:
            if path.is_file() and not path.is_symlink():
                path.unlink(missing_ok=True)


def live_canaries(paths: KBPaths, names: list[str]) -> list[CanaryResult]:
    """Fire the canary at every installed hook of every wired harness."""
    from lorebook.plugins import get_plugins

    results = []
    plugins = get_plugins()
    try:
        for name in names:
            harness = plugins.harness(name).factory()
            env = {**os.environ, **harness.host_env(paths.repo)}
            env.pop("LOREBOOK_INTERNAL", None)  # a session that has it makes hooks do nothing
            for host_event, command in sorted(harness.hook_commands(paths.repo).items()):
                results.append(fire_canary(paths, name, host_event, command, env))
    finally:
        _forget_canary(paths)
    return results
