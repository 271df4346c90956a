"""Codex CLI's own store of past sessions: ``$CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl``.

``CODEX_HOME`` defaults to ``~/.codex`` (shared/HARNESSES.md 2.1). Rollouts of every
project share one tree, so a rollout belongs to a repository when the ``cwd`` of its
``session_meta`` record (the first line, section 2.4) is the repository or a folder
inside it. The session id is that record's ``id`` (also ``session_id``), which is the
thread id at the end of the file name.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from lorebook.hostkit.history import PastSession, head_records, sessions_in

from .trust import codex_home

ROLLOUTS = "sessions/*/*/*/rollout-*.jsonl"
"""Where rollouts lie under ``CODEX_HOME``."""


def transcript_info(path: Path) -> PastSession | None:
    """Describe a Codex rollout from its ``session_meta`` record; None: not a rollout.

    The first record must be ``{"type": "session_meta", "payload": {...}}`` with a
    session id (``id`` or ``session_id``).
    """
    for record in head_records(path, limit=1):
        payload = record.get("payload")
        if record.get("type") != "session_meta" or not isinstance(payload, Mapping):
            return None
        session_id = _text(payload.get("id")) or _text(payload.get("session_id"))
        if session_id is None:
            return None
        started = _text(payload.get("timestamp")) or _text(record.get("timestamp"))
        return PastSession(session_id, path, _text(payload.get("cwd")), started)
    return None


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


def past_sessions(repo: Path, env: Mapping[str, str] | None = None) -> list[PastSession]:
    """Every Codex session whose working directory is ``repo`` or a folder inside it."""
    return sessions_in(codex_home(env), ROLLOUTS, transcript_info, repo)
