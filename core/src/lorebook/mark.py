"""``lorebook mark``: stage a teaching moment as a proposal of the session it was marked in.

The agent (or a person) runs ``lorebook mark --kind gotcha "..."`` during a session. The
text becomes a :class:`~lorebook.models.session.Proposal` in that session's staged log
(created when the session was not captured yet), with origin
``<harness>:<session>:<turn>``; it is never written as a note. ``lorebook curate`` then
treats it like any extracted proposal, and the human reviews the note it becomes.

Which session: ``--session <harness>:<id>`` when given; otherwise the hook timing log
(:mod:`lorebook.stats.timing`) names the sessions whose hooks ran in this repository in the
last :data:`RECENT_SECONDS`, and the one whose transcript holds this very command (the
agent's tool call, written before the tool runs) is it; its line number is the turn. When no
transcript holds it (a plain shell), it is not guessed: the proposal is staged under a
session of its own, ``mark:shell-<time>-<pid>``, ready for ``lorebook curate``.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass
from pathlib import Path

from lorebook.errors import LorebookError
from lorebook.kb.fsutil import kb_lock
from lorebook.kb.paths import KBPaths
from lorebook.models.note import KIND_TYPES, Anchors
from lorebook.models.session import Proposal, SessionLog

RECENT_SECONDS = 1800
"""How far back the timing log is searched for the session a mark comes from."""
OWN_HARNESS = "mark"
"""The harness of a mark made outside any session: it is staged under a session of its own."""
EXTRACTOR = "mark"
"""The ``extractor`` a marked proposal names."""


@dataclass(frozen=True, slots=True)
class MarkedSession:
    """The session a mark belongs to, and the turn it was made at."""

    harness: str
    session_id: str
    turn: int


def _recent_sessions(kb_root: Path) -> list[tuple[str, str, str | None]]:
    """(harness, session, transcript) of the hooks that ran lately, newest first, unique."""
    from lorebook.stats.timing import read_timing

    cutoff = time.time() - RECENT_SECONDS
    seen: dict[tuple[str, str], str | None] = {}
    for line in reversed(read_timing(str(kb_root))):
        at, harness, session = line.get("at"), line.get("harness"), line.get("session")
        if not isinstance(at, int | float) or at < cutoff:
            break
        if isinstance(harness, str) and isinstance(session, str):
            ref = line.get("transcript")
            seen.setdefault((harness, session), ref if isinstance(ref, str) else None)
    return [(h, s, ref) for (h, s), ref in seen.items()]


def _line_holding(transcript: str | None, needle: bytes) -> int | None:
    """0-based number of the last line of ``transcript`` that holds ``needle``."""
    if not transcript:
        return None
    found = None
    try:
        with open(transcript, "rb") as handle:
            for number, line in enumerate(handle):
                if needle in line:
                    found = number
    except OSError:
        return None
    return found


def find_session(paths: KBPaths, text: str) -> MarkedSession:
    """The session ``text`` was marked in (see the module docstring).

    Only a recent session whose transcript holds the text is that session: a mark from a
    plain shell is not attached to whichever session last ran a hook; it is staged under a
    session of its own (harness ``mark``), which curation takes like any other.
    """
    needle = json.dumps(text[:60], ensure_ascii=False)[1:-1].encode("utf-8")
    for harness, session, ref in _recent_sessions(paths.root):
        line = _line_holding(ref, needle)
        if line is not None:
            return MarkedSession(harness, session, line)
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    return MarkedSession(OWN_HARNESS, f"shell-{stamp}-{os.getpid()}", 0)


def parse_session(value: str) -> MarkedSession:
    """``--session <harness>:<id>`` (the turn is then the staged log's end)."""
    harness, sep, session = value.partition(":")
    if not sep or not harness or not session:
        raise LorebookError(
            f"--session {value!r} is not <harness>:<session id>", hint="e.g. claude:1234-abcd"
        )
    return MarkedSession(harness, session, -1)


def _title(text: str) -> str:
    """The first sentence (or line) of ``text``, at most 120 characters."""
    first = " ".join(text.split())
    for stop in (". ", "; ", ": "):
        if stop in first[:120]:
            first = first[: first.index(stop) + 1].rstrip(".;: ")
            break
    return first if len(first) <= 120 else first[:119].rstrip() + "\u2026"


def _proposal(
    log: SessionLog, where: MarkedSession, kind: str, text: str, files: list[str]
) -> Proposal:
    prefix = f"{log.session_id}:"
    numbers = [p.id[len(prefix) :] for p in log.proposals if p.id.startswith(prefix)]
    used = [int(n) for n in numbers if n.isdigit()]
    turn = where.turn if where.turn >= 0 else (log.turns[-1].index + 1 if log.turns else 0)
    flat = " ".join(text.split())
    return Proposal(
        id=f"{prefix}{max(used, default=-1) + 1}",
        origin=f"{log.harness}:{log.session_id}:{turn}",
        type=KIND_TYPES.get(kind, "practice"),
        kind=kind,
        title=_title(text),
        description=flat if len(flat) <= 300 else flat[:299] + "\u2026",
        body=text.strip(),
        anchors=Anchors(files=files),
        quote=text.strip(),
        extractor=EXTRACTOR,
    )


def stage_mark(
    paths: KBPaths, where: MarkedSession, kind: str, text: str, files: list[str]
) -> tuple[Path, Proposal]:
    """Add the marked proposal to its session's staged log (created when missing)."""
    from lorebook.capture.stage import _new_log, load_log, lock_path, log_path, write_log
    from lorebook.secrets.redact import redact_many

    if not text.strip():
        raise LorebookError("lorebook mark: the text is empty; say what the session taught")
    clean = redact_many([text])[0]
    target = log_path(paths, where.harness, where.session_id)
    target.parent.mkdir(parents=True, exist_ok=True)
    with kb_lock(lock_path(paths, target.stem), timeout=30):
        known = load_log(target)
        log = known or _new_log(where.harness, where.session_id)
        proposal = _proposal(log, where, kind, clean, files)
        # a marked proposal is already a proposal: a log of its own (or a curated one) is
        # ready for curation; a captured log waits for extraction with its transcript
        status = "extracted" if known is None or log.status == "curated" else log.status
        write_log(
            target,
            log.model_copy(update={"proposals": [*log.proposals, proposal], "status": status}),
        )
    return target, proposal
