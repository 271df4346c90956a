"""Read a staged session log in the end-to-end tests (through the one reader, as dicts)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lorebook.capture.stage import load_log


def staged_log(path: Path) -> dict[str, Any]:
    """The whole staged log at ``path`` (header and body) as JSON-ready data."""
    log = load_log(path)
    assert log is not None, f"no staged log {path}"
    return log.model_dump(mode="json")


def wait_staged(folder: Path, pattern: str, seconds: float = 60) -> list[Path]:
    """The staged logs matching ``pattern``, once there are any (a detached capture is async).

    A host whose transcript is written only after its stop hook ran (Copilot CLI) is
    captured by the detached session-end capture, which may finish after the host exits.
    """
    import time

    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        found = sorted(folder.glob(pattern))
        if found:
            return found
        time.sleep(0.1)
    return []


def wait_turns(path: Path, role: str, seconds: float = 60) -> dict[str, Any]:
    """The staged log at ``path`` once it holds a ``role`` turn (or as it is at the deadline).

    The first capture of a host that writes its transcript after the stop hook (Copilot
    CLI) stages a log with no turns yet; the detached session-end capture adds them.
    """
    import time

    deadline = time.monotonic() + seconds
    while True:
        log = staged_log(path)
        if any(t["role"] == role for t in log["turns"]) or time.monotonic() >= deadline:
            return log
        time.sleep(0.1)
