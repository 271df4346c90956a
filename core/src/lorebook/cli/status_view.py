"""``lorebook status`` as a rich table, for a person at a terminal.

Piped output and ``--json`` keep the plain lines (scripts read those); the table is the same
facts, laid out.
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

from lorebook.cli.output import plural

if TYPE_CHECKING:
    from lorebook.status import Status


def stdout_is_terminal() -> bool:
    """Whether a person is reading stdout (a terminal, and ``TERM`` is not ``dumb``)."""
    if os.environ.get("TERM") == "dumb":
        return False
    isatty = getattr(sys.stdout, "isatty", None)
    return bool(isatty and isatty())


def _counts(counts: dict[str, int]) -> str:
    return ", ".join(f"{n} {name}" for name, n in counts.items()) or "none"


def _step(needed: object, step: str) -> str:
    return step if needed else ""


def sessions_line(status: Status) -> str:
    """The sessions' counts: waiting for extraction, extracted and waiting for curation, failed."""
    curate = (
        f", {status.extracted_sessions} extracted with "
        f"{plural(status.proposals_to_curate, 'proposal')} for `lorebook curate`"
        if status.extracted_sessions
        else ""
    )
    return f"{status.pending_sessions} pending{curate}, {status.failed_sessions} failed"


def status_rows(status: Status) -> list[tuple[str, str, str]]:
    """(what, value, what to do) rows of the table, in reading order."""
    from lorebook.status import invalid_notes_line

    lint = "clean" if not status.lint_errors else plural(status.lint_errors, "error")
    sessions = sessions_line(status)
    sessions_step = (
        "lorebook extract"
        if status.pending_sessions
        else _step(status.extracted_sessions, "lorebook curate")
    )
    rejected = "curation drops them (.lorebook/rejected-claims.txt)"
    rows = [
        ("notes", f"{status.notes} ({_counts(status.by_status)})", ""),
        ("by kind", _counts(status.by_kind), ""),
        *([("invalid", invalid_notes_line(status.invalid), "lorebook lint")]
          if status.invalid else []),
        ("sessions", sessions, sessions_step),
        ("conflicts", f"{status.open_conflicts} open",
         _step(status.open_conflicts, "lorebook conflict list")),
        ("rejected claims", str(status.rejected_claims), _step(status.rejected_claims, rejected)),
        ("lint", f"{lint}, {plural(status.lint_warnings, 'warning')}",
         _step(status.lint_errors, "lorebook lint")),
        ("harnesses", ", ".join(status.harnesses) or "none wired",
         _step(not status.harnesses, "lorebook init --harnesses <name>")),
    ]  # fmt: skip
    rows += [
        ("failed", f"{f['log']}: {f['error']}", "lorebook extract --retry-failed")
        for f in status.failures
    ]
    left: dict[str, dict[str, int]] = getattr(status, "left_for_review", {}) or {}
    for source, counts in left.items():
        if any(counts.values()):
            value = (f"{plural(counts.get('pending', 0), 'proposal')} pending, "
                     f"{plural(counts.get('unreviewed', 0), 'note')} unreviewed, "
                     f"{plural(counts.get('conflicts', 0), 'open conflict')}")  # fmt: skip
            rows.append((source, value, "lorebook review"))
    return rows


def print_status_table(status: Status) -> None:
    """Print the status as one table on stdout.

    Each cell is plain text: a failure's message (a model's output, a file name) is not
    read as rich markup, and its control characters are shown, not sent.
    """
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    from lorebook.inject.sanitize import for_terminal

    table = Table(title="lorebook status", title_justify="left")
    table.add_column("", style="bold")
    table.add_column("state")
    table.add_column("next step", style="dim")
    for row in status_rows(status):
        table.add_row(*(Text(for_terminal(cell)) for cell in row))
    Console().print(table)
