"""Writing the usage file (the slow path: capture and ``lorebook stats``)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

from lorebook.kb.fsutil import atomic_write_text, kb_lock
from lorebook.stats.usage import VERSION, usage_path


def _load(path: Path) -> dict[str, object]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    sessions = data.get("sessions") if isinstance(data, dict) else None
    if not isinstance(data, dict) or data.get("version") != VERSION:
        return {}
    return dict(sessions) if isinstance(sessions, dict) else {}


def update_usage(
    kb_root: Path, sessions: Mapping[str, Mapping[str, list[int]]], *, replace: bool = False
) -> None:
    """Set the entries of ``sessions`` (log stem -> counts); ``replace`` drops all others."""
    path = Path(usage_path(str(kb_root)))  # .cache/ is made by the lock, never .lorebook/
    with kb_lock(path.with_name("usage.lock"), timeout=10):
        current = {} if replace else _load(path)
        current.update({stem: dict(counts) for stem, counts in sessions.items()})
        current = {stem: current[stem] for stem in sorted(current) if current[stem]}
        atomic_write_text(
            path, json.dumps({"version": VERSION, "sessions": current}, sort_keys=True) + "\n"
        )
