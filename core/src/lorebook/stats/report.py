"""``lorebook stats``: what injection cost and whether the agent used it, from staged logs.

Reads every session log in ``_sessions/`` (optionally only those active since a date),
attributes each recorded injection (:mod:`lorebook.stats.attribution`), and adds the hook
latency (the host's own durations where its transcript records them, else lorebook's timing
log) and the standing cost every session pays (the pointer block in the instruction files,
the curation skill's listing line, the session-start catalog).
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from lorebook.kb.paths import KBPaths
from lorebook.models.session import SessionLog
from lorebook.stats.attribution import InjectionOutcome, attribute
from lorebook.stats.follow import injected_ids, note_facts
from lorebook.stats.timing import read_timing

EVENTS = ("session_start", "prompt", "pre_tool", "post_tool", "other")


@dataclass(slots=True)
class EventRow:
    """Per event type: injections, characters, notes carried and used."""

    event: str
    injections: int = 0
    chars: int = 0
    notes: int = 0
    used: int = 0
    broke: int = 0

    def as_json(self) -> dict[str, object]:
        """The row for ``--json``."""
        return {
            "event": self.event,
            "injections": self.injections,
            "chars": self.chars,
            "notes_injected": self.notes,
            "notes_used": self.used,
            "notes_broken": self.broke,
        }


@dataclass(slots=True)
class NoteRow:
    """Per note: times injected, characters, uses by confidence, rules broken."""

    note_id: str
    injected: int = 0
    chars: int = 0
    high: int = 0
    medium: int = 0
    low: int = 0
    broke: int = 0
    signals: dict[str, int] = field(default_factory=dict)

    @property
    def used(self) -> int:
        """Injections followed by a high or medium use."""
        return self.high + self.medium

    def as_json(self) -> dict[str, object]:
        """The row for ``--json``."""
        return {
            "note": self.note_id,
            "injected": self.injected,
            "chars": self.chars,
            "used": self.used,
            "used_high": self.high,
            "used_medium": self.medium,
            "low_only": self.low,
            "broken": self.broke,
            "signals": dict(sorted(self.signals.items())),
        }


@dataclass(slots=True)
class Latency:
    """Hook durations of one event from one source (``host`` or ``lorebook``)."""

    event: str
    source: str
    samples: list[int]

    def as_json(self) -> dict[str, object]:
        """Count, median, 95th percentile and maximum in milliseconds."""
        ordered = sorted(self.samples)
        p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]
        return {
            "event": self.event,
            "source": self.source,
            "count": len(ordered),
            "median_ms": statistics.median(ordered),
            "p95_ms": p95,
            "max_ms": ordered[-1],
        }


def parse_since(text: str) -> datetime:
    """A ``--since`` value: an ISO 8601 date or date-time (UTC when no zone is given)."""
    try:
        value = datetime.fromisoformat(text)
    except ValueError:
        raise ValueError(
            f"--since {text!r} is not a date: give YYYY-MM-DD or an ISO 8601 date-time"
        ) from None
    return value if value.tzinfo else value.replace(tzinfo=UTC)


def _stamp(text: str | None) -> datetime | None:
    if not text:
        return None
    try:
        value = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    return value if value.tzinfo else value.replace(tzinfo=UTC)


def last_activity(log: SessionLog, path: Path) -> datetime:
    """When a session was last active: its latest timestamp, else the log file's mtime."""
    stamps = [_stamp(t.timestamp) for t in log.turns] + [_stamp(i.timestamp) for i in log.injected]
    known = [s for s in stamps if s is not None]
    if known:
        return max(known)
    return datetime.fromtimestamp(path.stat().st_mtime, tz=UTC)


def load_logs(
    paths: KBPaths, since: datetime | None, problems: list[str]
) -> list[tuple[Path, SessionLog]]:
    """The staged logs active since ``since``, by file name; unreadable ones named in problems."""
    from lorebook.capture.stage import staged_logs

    return [
        (path, log)
        for path, log in staged_logs(paths, problems)
        if since is None or last_activity(log, path) >= since
    ]


def _add_outcomes(
    outcomes: Iterable[InjectionOutcome], events: dict[str, EventRow], notes: dict[str, NoteRow]
) -> None:
    for injection in outcomes:
        row = events.setdefault(injection.event, EventRow(injection.event))
        row.injections += 1
        row.chars += injection.chars
        for note in injection.notes:
            row.notes += 1
            row.used += int(note.used)
            row.broke += int(note.broke)
            stats = notes.setdefault(note.note_id, NoteRow(note.note_id))
            stats.injected += 1
            stats.chars += note.chars
            stats.broke += int(note.broke)
            level = note.confidence
            if note.used and level == "high":
                stats.high += 1
            elif note.used:
                stats.medium += 1
            elif level == "low":
                stats.low += 1
            for evidence in note.evidence:
                stats.signals[evidence.signal] = stats.signals.get(evidence.signal, 0) + 1


def latencies(logs: Iterable[SessionLog], kb_root: Path, since: datetime | None) -> list[Latency]:
    """Hook latency per event: the host's records where present, else lorebook's timing log."""
    from lorebook.stats.injections import event_of

    host: dict[str, list[int]] = {}
    for log in logs:
        for injection in log.injected:
            if injection.duration_ms is not None:
                event = event_of(injection.text, injection.host_event)
                host.setdefault(event, []).append(injection.duration_ms)
    ours: dict[str, list[int]] = {}
    cutoff = since.timestamp() if since else None
    for line in read_timing(str(kb_root)):
        name, ms, at = line.get("event"), line.get("ms"), line.get("at")
        if not isinstance(name, str) or not isinstance(ms, int):
            continue
        if cutoff is not None and not (isinstance(at, int | float) and at >= cutoff):
            continue
        ours.setdefault(name, []).append(ms)
    rows = [Latency(e, "host", s) for e, s in sorted(host.items())]
    rows += [Latency(e, "lorebook", s) for e, s in sorted(ours.items())]
    return rows


def standing_cost(
    paths: KBPaths, session_start_chars: list[int], instructions: Iterable[str] | None = None
) -> dict[str, object]:
    """Characters every session pays before its first prompt is answered.

    ``instructions`` are the files core's pointer block may be in (default: those the
    installed harness plugins name, :func:`lorebook.pointer.instruction_files`).
    """
    from lorebook.pointer import BEGIN, END, instruction_files
    from lorebook.skills import SKILL_NAME, is_ours

    pointers = {}
    for name in instruction_files() if instructions is None else instructions:
        try:
            text = (paths.repo / name).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        start, end = text.find(BEGIN), text.find(END)
        if start != -1 and end > start:
            pointers[name] = end + len(END) - start
    skills = {}
    for found in sorted(paths.repo.glob(f".*/skills/{SKILL_NAME}/SKILL.md")):
        if is_ours(found):
            skills[found.relative_to(paths.repo).as_posix()] = len(_skill_line(found))
    start_avg = (
        round(sum(session_start_chars) / len(session_start_chars)) if session_start_chars else None
    )
    total = max(pointers.values(), default=0) + max(skills.values(), default=0) + (start_avg or 0)
    return {
        "pointer_block": pointers,
        "skill_line": skills,
        "session_start_mean": start_avg,
        "per_session": total,
    }


def _skill_line(path: Path) -> str:
    """The line a host lists the skill with: ``- name: description``."""
    name = description = ""
    for line in path.read_text(encoding="utf-8").splitlines()[1:]:
        if line.strip() == "---":
            break
        if line.startswith("name:"):
            name = line.removeprefix("name:").strip()
        elif line.startswith("description:"):
            description = line.removeprefix("description:").strip()
    return f"- {name}: {description}"


@dataclass(slots=True)
class StatsReport:
    """Everything ``lorebook stats`` prints."""

    sessions: int
    """Sessions lorebook served: staged logs in which its hooks injected something."""
    since: str | None
    events: list[EventRow]
    notes: list[NoteRow]
    never_injected: list[str]
    never_used: list[str]
    latency: list[Latency]
    standing: dict[str, object]
    problems: list[str]
    staged_logs: int = 0
    """Every staged log in the window: served sessions, and imports, bootstrap documents
    and harvested memories, which no hook served and so do not count as sessions."""

    def as_json(self) -> dict[str, object]:
        """The one JSON document of ``lorebook stats --json``."""
        return {
            "ok": True,
            "sessions": self.sessions,
            "staged_logs": self.staged_logs,
            "since": self.since,
            "events": [row.as_json() for row in self.events],
            "notes": [row.as_json() for row in self.notes],
            "never_injected": self.never_injected,
            "injected_never_used": self.never_used,
            "latency": [row.as_json() for row in self.latency],
            "standing_cost": self.standing,
            "problems": self.problems,
        }


def active_note_ids(paths: KBPaths) -> list[str]:
    """Ids of the active notes in the index ([] without one)."""
    from lorebook.recall.index import NoteIndex, index_path

    index_file = Path(index_path(str(paths.root)))
    if not index_file.exists():
        return []
    with NoteIndex(str(index_file)) as index:
        rows = index.db.execute("SELECT id FROM docs WHERE status = 'active' ORDER BY id")
        return [str(row[0]) for row in rows]


def compute_stats(paths: KBPaths, since: datetime | None = None) -> StatsReport:
    """Build the report, and rewrite ``.cache/usage.json`` from every staged log."""
    from lorebook.stats.store import update_usage
    from lorebook.stats.usage import session_counts

    problems: list[str] = []
    logs = load_logs(paths, None, problems)
    facts = note_facts(paths, {n for _, log in logs for n in injected_ids(log)})
    outcomes = {path.stem: attribute(log, facts) for path, log in logs}
    update_usage(
        paths.root,
        {stem: session_counts(list(found)) for stem, found in outcomes.items()},
        replace=True,
    )
    chosen = [(p, log) for p, log in logs if since is None or last_activity(log, p) >= since]
    events: dict[str, EventRow] = {}
    notes: dict[str, NoteRow] = {}
    for path, _ in chosen:
        _add_outcomes(outcomes[path.stem], events, notes)
    starts = [i.chars for p, _ in chosen for i in outcomes[p.stem] if i.event == "session_start"]
    return StatsReport(
        sessions=sum(1 for _, log in chosen if log.injected),
        staged_logs=len(chosen),
        since=since.isoformat() if since else None,
        events=[events[e] for e in EVENTS if e in events],
        notes=sorted(notes.values(), key=lambda r: (-r.injected, r.note_id)),
        never_injected=[n for n in active_note_ids(paths) if n not in notes],
        never_used=sorted(n for n, row in notes.items() if row.used == 0),
        latency=latencies([log for _, log in chosen], paths.root, since),
        standing=standing_cost(paths, starts),
        problems=problems,
    )
