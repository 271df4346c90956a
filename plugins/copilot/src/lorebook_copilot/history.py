"""Copilot CLI's own store of past sessions: ``$COPILOT_HOME/session-state/<id>/events.jsonl``.

``COPILOT_HOME`` defaults to ``~/.copilot`` (shared/HARNESSES.md 4.4). A log belongs to a
repository when the ``context.cwd`` of its first record (``session.start``) is the
repository or a folder inside it.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from lorebook.hostkit.history import PastSession, head_records, sessions_in

LOGS = "session-state/*/events.jsonl"
"""Where the event logs lie under ``COPILOT_HOME``."""


def copilot_home(env: Mapping[str, str] | None = None) -> Path:
    """``$COPILOT_HOME``, else ``~/.copilot``."""
    import os

    configured = (os.environ if env is None else env).get("COPILOT_HOME")
    return Path(configured).expanduser() if configured else Path.home() / ".copilot"


def transcript_info(path: Path) -> PastSession | None:
    """Describe a Copilot event log from its ``session.start`` record; None: not one."""
    for record in head_records(path, limit=1):
        data = record.get("data")
        if record.get("type") != "session.start" or not isinstance(data, Mapping):
            return None
        session_id = data.get("sessionId")
        if not isinstance(session_id, str) or not session_id:
            return None
        context = data.get("context")
        cwd = context.get("cwd") if isinstance(context, Mapping) else None
        started = data.get("startTime")
        return PastSession(
            session_id,
            path,
            cwd if isinstance(cwd, str) else None,
            started if isinstance(started, str) else None,
        )
    return None


def past_sessions(repo: Path, env: Mapping[str, str] | None = None) -> list[PastSession]:
    """Every Copilot session whose working directory is ``repo`` or a folder inside it."""
    return sessions_in(copilot_home(env), LOGS, transcript_info, repo)
