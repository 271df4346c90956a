"""Retention and forgetting.

Per-machine session data is pruned by age, and forgetting a session removes every trace of
it that lorebook keeps outside committed notes.
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass, field
from pathlib import Path

from lorebook.kb.paths import KBPaths

PRUNE_EVERY_S = 3600
SESSIONS_DAYS = 30
LOGS_DAYS = 14
"""The retention defaults of ``config.yaml`` (a test keeps them equal to the model's)."""


def _older_than(path: Path, days: int, now: float) -> bool:
    try:
        return now - path.stat().st_mtime > days * 86400
    except OSError:
        return False


def _staged_body(path: Path) -> bool:
    """A staged log's body: it goes with its header, never on its own."""
    return path.suffix == ".jsonl" and path.with_suffix(".json").exists()


def prune(paths: KBPaths, sessions_days: int, logs_days: int) -> list[str]:
    """Delete staged session logs and log files older than the retention; return them.

    A staged log's age is its header's (extraction and curation rewrite only the header);
    its body goes with it, and so does the follow-up's tally of it (which is removed too
    when its log was deleted by other means).
    """
    from lorebook.safeopen import crosses_link

    now = time.time()
    removed = []
    for folder, days in ((paths.sessions, sessions_days), (paths.logs, logs_days)):
        if not folder.is_dir() or crosses_link(str(folder)):  # never prune through a link
            continue
        for path in sorted(folder.rglob("*")):
            if not path.is_file() or path.is_symlink() or _staged_body(path):
                continue
            if _older_than(path, days, now):
                path.unlink(missing_ok=True)
                removed.append(paths.rel(path))
                body = path.with_suffix(".jsonl")
                if folder == paths.sessions and path.suffix == ".json" and body.is_file():
                    body.unlink(missing_ok=True)
                    removed.append(paths.rel(body))
    if paths.tallies.is_dir() and not crosses_link(str(paths.tallies)):
        for tally in paths.tallies.iterdir():
            orphan = tally.suffix == ".json" and not (paths.sessions / tally.name).exists()
            if orphan and not tally.is_symlink():  # a committed link is the user's to remove
                tally.unlink(missing_ok=True)
    return removed


def _retention(paths: KBPaths) -> tuple[int, int]:
    """(sessions_days, logs_days) from the compiled config hooks read (no YAML, no pydantic)."""
    try:
        data = json.loads((paths.cache / "config.json").read_text(encoding="utf-8"))
        found = data.get("retention") if isinstance(data, dict) else None
    except (OSError, ValueError):
        found = None
    found = found if isinstance(found, dict) else {}
    values = []
    for key, default in (("sessions_days", SESSIONS_DAYS), ("logs_days", LOGS_DAYS)):
        value = found.get(key)
        values.append(value if type(value) is int and value > 0 else default)
    return values[0], values[1]


def prune_if_due(paths: KBPaths) -> list[str]:
    """Prune at most once an hour (called from capture hooks)."""
    marker = paths.state / "last-prune"
    try:
        if time.time() - marker.stat().st_mtime < PRUNE_EVERY_S:
            return []
    except OSError:
        pass
    from lorebook.safeopen import touch

    sessions_days, logs_days = _retention(paths)
    touch(str(marker))  # never through a committed link
    return prune(paths, sessions_days, logs_days)


@dataclass(slots=True)
class ForgetReport:
    """What forgetting a session removed, and what a person must look at."""

    removed: list[str] = field(default_factory=list)
    notes_citing: list[str] = field(default_factory=list)
    conflicts_quoting: list[str] = field(default_factory=list)


def _logs_of(paths: KBPaths, session_id: str) -> list[Path]:
    found = []
    if paths.sessions.is_dir():
        for path in sorted(paths.sessions.glob("*.json")):
            try:
                data = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                continue
            if isinstance(data, dict) and data.get("session_id") == session_id:
                found.append(path)
    return found


def session_named(paths: KBPaths, given: str) -> str:
    """The session ``given`` names: itself, or ``<id>`` in ``claude:<id>[:<turn>]``."""
    from lorebook.models.session import session_of

    if _logs_of(paths, given):
        return given
    origin = session_of(given)
    return origin[1] if origin else given


def forget_session(paths: KBPaths, session_id: str) -> ForgetReport:
    """Remove the staged log (with its proposals), LLM traces and hook state of a session.

    ``session_id`` may be given as lorebook prints it (:func:`session_named`). Committed
    notes keep only the opaque origin id (``<harness>:<session>:<turn>``); they are listed.
    Committed conflict files that quote the session are listed for the person to delete:
    they are never rewritten silently.
    """
    from lorebook.capture.stage import lock_path, log_files, tally_path
    from lorebook.inject.state import _state_file

    session_id = session_named(paths, session_id.strip())
    named = re.compile(rf"(?<![\w-]){re.escape(session_id)}(?![\w-])")  # s1 is not in s10
    report = ForgetReport()
    stems = []
    for path in _logs_of(paths, session_id):
        stems.append(path.stem)
        for part in log_files(path):
            if part.exists():
                part.unlink()
                report.removed.append(paths.rel(part))
    candidates = [Path(_state_file(str(paths.root), session_id))]
    candidates += [lock_path(paths, stem + end) for stem in stems for end in ("", ".follow")]
    candidates += [tally_path(paths, stem) for stem in stems]  # it holds the last prompt
    llm = paths.logs / "llm"
    if llm.is_dir():
        # Extraction traces are named after the session's log; curation traces pool many
        # sessions, so any trace that quotes the session goes too.
        candidates += [
            p for p in sorted(llm.iterdir())
            if any(p.name.startswith(s) for s in stems) or _mentions(p, named)
        ]  # fmt: skip
    for path in candidates:
        if path.exists():
            path.unlink()
            report.removed.append(paths.rel(path))
    _list_citations(paths, named, report)
    return report


def _mentions(path: Path, named: re.Pattern[str]) -> bool:
    try:
        return bool(named.search(path.read_text(encoding="utf-8", errors="replace")))
    except OSError:
        return False


def _list_citations(paths: KBPaths, named: re.Pattern[str], report: ForgetReport) -> None:
    for folder, bucket in (
        (paths.nodes, report.notes_citing),
        (paths.conflicts, report.conflicts_quoting),
    ):
        if not folder.is_dir():
            continue
        for path in sorted(folder.rglob("*.md")):
            try:
                text = path.read_text(encoding="utf-8")
            except OSError:
                continue
            if named.search(text):
                bucket.append(paths.rel(path))
