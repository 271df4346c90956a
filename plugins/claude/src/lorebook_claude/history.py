"""Claude Code's own store of past sessions: ``<config dir>/projects/<slug>/<session>.jsonl``.

The config dir is ``$CLAUDE_CONFIG_DIR``, else ``~/.claude`` (shared/HARNESSES.md 1.1).
The slug is the session's absolute working directory with ``/`` replaced by ``-``
(``/home/user/proj`` → ``-home-user-proj``; section 1.4, which also reports that every
character other than a letter or digit becomes ``-``: both spellings are looked for). A
session started in a folder inside the repository lives under that folder's slug, so
every project folder whose name extends the repository's slug is looked at, and a
transcript counts when the ``cwd`` its records carry is the repository or inside it.
Subagent transcripts (``<slug>/<session>/subagents/``) are not sessions of their own.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path

from lorebook.hostkit.history import (
    HEAD_RECORDS,
    PastSession,
    head_records,
    in_start_order,
    ran_inside,
)

_NOT_ALNUM = re.compile(r"[^A-Za-z0-9]")
_UUID_END = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
"""A session id at the end of a file name (Claude names a transcript ``<session id>.jsonl``)."""
_RECORD_TYPES = frozenset(
    {
        "user",
        "assistant",
        "attachment",
        "system",
        "summary",
        "queue-operation",
        "last-prompt",
        "file-history-snapshot",
        "progress",
    }
)
"""Record types Claude Code writes; one recognises a first record without a ``sessionId``
(since v2 most transcripts open with a ``file-history-snapshot``, which carries none)."""


def config_dir(env: Mapping[str, str] | None = None) -> Path:
    """Claude Code's config folder: ``$CLAUDE_CONFIG_DIR``, else ``~/.claude``."""
    env = os.environ if env is None else env
    value = env.get("CLAUDE_CONFIG_DIR")
    return Path(value).expanduser() if value else Path.home() / ".claude"


def project_slug(folder: Path) -> str:
    """The name of the ``projects/`` folder Claude Code uses for an absolute path."""
    return _NOT_ALNUM.sub("-", str(folder))


def _slugs(repo: Path) -> set[str]:
    """Folder names the repository may have: every non-alphanumeric, or only ``/``, as ``-``."""
    return {project_slug(repo), str(repo).replace("/", "-").replace("\\", "-")}


def _may_hold(name: str, slugs: set[str]) -> bool:
    return any(name == slug or name.startswith(slug + "-") for slug in slugs)


def transcript_info(path: Path) -> PastSession | None:
    """Describe a Claude Code transcript from its first records; None: not one.

    Claude writes one JSON object per line with a string ``type`` (no Codex ``payload``
    envelope, no ``role`` of a plain turn list): the first record is one of Claude's types
    (a ``file-history-snapshot`` first has no ``sessionId``) or carries a ``sessionId`` or
    ``uuid``. The session id, working directory and start time come from the first records
    that say (``summary`` records, of which old files open with dozens, are not counted);
    a file none of whose first records has a ``sessionId`` is not one.

    A resumed session's file, named after its own id, opens with the records of the session
    it resumed: when the file's name ends in a session id the file holds, that id is the
    session's (else its new turns were staged as the old session, or dropped as a copy), and
    its records start at the first line that names it (the ones above are the old session's).
    """
    session_id = cwd = started = None
    counted = 0
    for position, record in enumerate(head_records(path, HEAD_RECORDS * 20)):
        if position == 0 and not _claude_shaped(record):
            return None
        session_id = session_id or _text(record.get("sessionId"))
        cwd = cwd or _text(record.get("cwd"))
        started = started or _text(record.get("timestamp"))
        counted += record.get("type") != "summary"
        if (session_id and cwd and started) or counted >= HEAD_RECORDS:
            break
    named = _UUID_END.search(path.stem)
    start = 0
    if named and named.group(0) != session_id:
        found = _first_line_naming(path, named.group(0))
        if found is not None:  # a resumed session: its own records start there
            session_id, start = named.group(0), found
    if session_id is None:
        return None
    return PastSession(session_id, path, cwd, started, start)


def _first_line_naming(path: Path, session_id: str) -> int | None:
    """The byte offset of the first line that names ``session_id``, or None."""
    wanted = f'"{session_id}"'.encode()
    offset = 0
    try:
        with open(path, "rb") as handle:
            for line in handle:
                if wanted in line:
                    return offset
                offset += len(line)
    except OSError:
        return None
    return None


def _claude_shaped(record: Mapping[str, object]) -> bool:
    kind = record.get("type")
    if not isinstance(kind, str) or "payload" in record or "role" in record:
        return False
    return kind in _RECORD_TYPES or "sessionId" in record or "uuid" in record


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


def past_sessions(repo: Path, env: Mapping[str, str] | None = None) -> list[PastSession]:
    """Every Claude Code session that ran in ``repo`` or a folder inside it."""
    projects = config_dir(env) / "projects"
    slugs = _slugs(repo.resolve())
    try:
        folders = [f for f in projects.iterdir() if f.is_dir() and _may_hold(f.name, slugs)]
    except OSError:
        return []
    found = []
    for folder in folders:
        for path in sorted(folder.glob("*.jsonl")):
            info = transcript_info(path)
            if info is None:
                continue
            exact = folder.name in slugs and info.cwd is None
            if exact or ran_inside(info.cwd, repo):
                found.append(info)
    return in_start_order(found)
