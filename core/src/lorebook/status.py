"""``lorebook status``: notes, pending sessions, open conflicts, rejected claims, lint state."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from lorebook.kb import frontmatter
from lorebook.kb.lint import lint, remember_lint
from lorebook.kb.paths import KBPaths
from lorebook.kb.store import Problem, load_snapshot

SHOWN_INVALID = 3
"""Invalid notes named in the one line doctor and status give them; the rest are counted."""


def invalid_notes_line(problems: Sequence[Problem]) -> str:
    """The line for invalid notes: "1 note is invalid: PATH: why", or a count and a few.

    Such a file is in no index and never served, so doctor and status say it in one line
    (``lorebook lint`` lists every one).
    """
    count = len(problems)
    head = "1 note is invalid" if count == 1 else f"{count} notes are invalid"
    named = "; ".join(p.message.splitlines()[0] for p in problems[:SHOWN_INVALID])
    more = f" and {count - SHOWN_INVALID} more" if count > SHOWN_INVALID else ""
    return f"{head}: {named}{more}"


@dataclass(slots=True)
class Status:
    """A summary of one knowledge base."""

    notes: int = 0
    invalid: list[Problem] = field(default_factory=list)
    """Note files that cannot be read as notes: never indexed, never served."""
    by_status: dict[str, int] = field(default_factory=dict)
    by_kind: dict[str, int] = field(default_factory=dict)
    pending_sessions: int = 0
    """Captured or imported sessions that `lorebook extract` has not read yet."""
    extracted_sessions: int = 0
    """Sessions extracted whose proposals `lorebook curate` has not consumed yet."""
    proposals_to_curate: int = 0
    """The proposals those sessions hold (``left_for_review``'s extraction ``pending``)."""
    failed_sessions: int = 0
    failures: list[dict[str, str]] = field(default_factory=list)
    open_conflicts: int = 0
    rejected_claims: int = 0
    lint_errors: int = 0
    lint_warnings: int = 0
    harnesses: list[str] = field(default_factory=list)
    stale: list[dict[str, str]] = field(default_factory=list)
    """Active notes whose dependencies changed or could not be checked (id, file, mark)."""
    left_for_review: dict[str, Any] = field(default_factory=dict)
    """What bootstrap and harvest left for review (:mod:`lorebook.bootstrap.counts`)."""

    def as_json(self) -> dict[str, Any]:
        """Return the status as a JSON-ready dict."""
        return {
            "ok": True,
            "notes": self.notes,
            "invalid_notes": [
                {"path": p.path, "error": p.message.splitlines()[0]} for p in self.invalid
            ],
            "by_status": self.by_status,
            "by_kind": self.by_kind,
            "pending_sessions": self.pending_sessions,
            "extracted_sessions": self.extracted_sessions,
            "proposals_to_curate": self.proposals_to_curate,
            "failed_sessions": self.failed_sessions,
            "failures": self.failures,
            "open_conflicts": self.open_conflicts,
            "rejected_claims": self.rejected_claims,
            "lint": {"errors": self.lint_errors, "warnings": self.lint_warnings},
            "harnesses": self.harnesses,
            "stale_notes": self.stale,
            "left_for_review": self.left_for_review,
        }


def _count_sessions(paths: KBPaths, status: Status) -> None:
    from lorebook.bootstrap.counts import is_harvest

    if not paths.sessions.is_dir():
        return
    for path in sorted(paths.sessions.glob("*.json")):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            state, error = data.get("status"), data.get("error")
            harness = data.get("harness")
        except (OSError, ValueError, AttributeError):
            state, error, harness = "failed", "the session log is unreadable", None
        if state == "pending":
            status.pending_sessions += 1
        elif state == "extracted" and harness != "bootstrap" and not is_harvest(harness):
            status.extracted_sessions += 1  # bootstrap and harvest: left_for_review counts
        elif state == "failed":
            status.failed_sessions += 1
            message = str(error or "no error recorded").splitlines()[0][:200]
            status.failures.append({"log": paths.rel(path), "error": message})


def _count_conflicts(paths: KBPaths) -> int:
    if not paths.conflicts.is_dir():
        return 0
    count = 0
    for path in sorted(paths.conflicts.glob("*.md")):
        try:
            data, _ = frontmatter.split(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if data.get("status", "open") in ("open", "skipped"):
            count += 1
    return count


def _count_rejected(paths: KBPaths) -> int:
    """Distinct rejected claims in the ledger (0 when it is malformed: lint says so)."""
    from lorebook.curate.rejections import rejected_fingerprints
    from lorebook.errors import LorebookError

    try:
        return len(rejected_fingerprints(paths))
    except LorebookError:
        return 0


def compute_status(paths: KBPaths, budget: int, harnesses: list[str]) -> Status:
    """Gather the status of the knowledge base at ``paths``."""
    status = Status(harnesses=list(harnesses))
    snap = load_snapshot(paths)
    status.invalid = list(snap.problems)
    for stored in snap.notes.values():
        note = stored.note
        status.notes += 1
        status.by_status[note.status] = status.by_status.get(note.status, 0) + 1
        status.by_kind[note.kind] = status.by_kind.get(note.kind, 0) + 1
    status.by_status = dict(sorted(status.by_status.items()))
    status.by_kind = dict(sorted(status.by_kind.items()))
    _count_sessions(paths, status)
    status.open_conflicts = _count_conflicts(paths)
    status.rejected_claims = _count_rejected(paths)
    from lorebook.bootstrap.counts import left_for_review

    status.left_for_review = left_for_review(paths)
    status.proposals_to_curate = status.left_for_review["extraction"]["pending"]
    report = lint(paths, budget, snap)
    remember_lint(paths, report)
    status.lint_errors = len(report.errors)
    status.lint_warnings = len(report.warnings)
    from lorebook.validity.report import stale_notes

    status.stale = [
        {"id": i, "path": rel, "state": v.state, "mark": v.mark()}
        for i, rel, v in stale_notes(paths, snap)
    ]
    return status
