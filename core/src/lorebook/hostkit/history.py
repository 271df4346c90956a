"""A host's own store of past sessions, as ``lorebook import`` reads it.

A harness plugin whose host keeps its session transcripts on disk implements
:class:`SessionHistory` beside the :class:`~lorebook.harness.Harness` methods, so that
``lorebook import FILE`` recognises that host's transcripts and ``lorebook import
--from-harness NAME`` finds a repository's past sessions. The plugin says which files
are its host's and where they are; reading them stays ``read_transcript``'s job.

Not for the hook path: this module imports ``dataclasses``, ``json`` and ``pathlib``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from lorebook.hostkit import jsonl

HEAD_RECORDS = 50
"""How many records at the top of a transcript :func:`head_records` reads at most."""


@dataclass(frozen=True, slots=True)
class PastSession:
    """One session transcript in a host's store.

    Attributes:
        session_id: The host's session id (the id its hook events carry).
        path: The transcript file.
        cwd: The working directory the session ran in, when the transcript records it.
        started: When the session started (the host's ISO timestamp), when recorded.
        start: Where in the file the session's own records begin (0: at the top).
    """

    session_id: str
    path: Path
    cwd: str | None = None
    started: str | None = None
    start: int = 0
    """Byte offset of the session's first record: past the records of the session a resumed
    one copied into its file (Claude Code's ``--resume``), which are that session's."""


@runtime_checkable
class SessionHistory(Protocol):
    """What a harness offers when its host keeps session transcripts on disk."""

    def transcript_info(self, path: Path) -> PastSession | None:
        """Describe a transcript file of this host, or return None: not this host's.

        Decides from the first records only; never raises for a file that is not JSON.
        """
        ...

    def past_sessions(self, repo: Path) -> list[PastSession]:
        """Every session of this host that ran in ``repo`` (or a folder inside it).

        Sorted by start time, then path; empty when the host's store does not exist.
        """
        ...


def head_records(path: Path, limit: int = HEAD_RECORDS) -> Iterator[dict[str, Any]]:
    """Yield the JSON objects among the first ``limit`` complete lines of a file.

    Lines that are not JSON objects are skipped; an unreadable file yields nothing.
    """
    try:
        for index, line in jsonl.read_lines(str(path)):
            if index >= limit:
                return
            try:
                record = json.loads(line)
            except (ValueError, RecursionError):
                continue
            if isinstance(record, dict):
                yield record
    except OSError:
        return


def ran_inside(cwd: str | None, repo: Path) -> bool:
    """True when ``cwd`` is ``repo`` or a folder inside it (both resolved)."""
    if not cwd:
        return False
    try:
        where = Path(cwd).expanduser().resolve()
        root = Path(repo).expanduser().resolve()
    except (OSError, RuntimeError):
        return False
    return where == root or root in where.parents


def in_start_order(sessions: list[PastSession]) -> list[PastSession]:
    """Sessions sorted by start time (unknown first), then path."""
    return sorted(sessions, key=lambda session: (session.started or "", str(session.path)))


def sessions_in(
    store: Path, pattern: str, describe: Callable[[Path], PastSession | None], repo: Path
) -> list[PastSession]:
    """The sessions of a host's store that ran in ``repo`` or inside it, in start order.

    Args:
        store: The host's folder (``$CODEX_HOME``, ``$COPILOT_HOME``, ...).
        pattern: Where its transcripts lie under it (a glob).
        describe: The harness's ``transcript_info``.
        repo: The repository.
    """
    found = []
    for path in sorted(store.glob(pattern)):
        info = describe(path)
        if info is not None and ran_inside(info.cwd, repo):
            found.append(info)
    return in_start_order(found)
