"""Conflict files: a contradiction never overwrites a note; a person decides.

One file per contradiction, ``.lorebook/conflicts/<run>-<n>.md`` (``run``: the batch's
short id; ``n``: the contradiction's rank in the batch). Its frontmatter is the whole
:class:`~lorebook.models.curation.Conflict` (the proposal included), the lossless record;
the body renders the rationale, the current note and the proposed one for review in git and
is never read back. Decisions (``lorebook conflict resolve``):

- ``accept``: the target note is rewritten to say what the proposal says (same folder,
  both origins, the new claim's dependencies only; see
  :func:`lorebook.curate.notes.accepted_rewrite`); same id and file unless the id was made
  of the old title, then renamed to the id of the new one, the old id recorded in the
  redirects ledger (:func:`lorebook.curate.notes.accepted_id`); indexes are rebuilt.
- ``reject``: the note is untouched; the claim is dismissed.
- ``keep``: the note is untouched, and the file stays as the record of a claim someone made
  that the knowledge base does not follow (commit it as history).
- ``skip``: undecided for now; the conflict stays listed.

Decided files stay, with their ``status`` and ``decided_because``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from pydantic import ValidationError

from lorebook.errors import LorebookError
from lorebook.kb import frontmatter
from lorebook.kb.fsutil import atomic_write_text
from lorebook.kb.paths import KBPaths
from lorebook.models.curation import Conflict, ConflictStatus, ContradictAction
from lorebook.models.note import Note

Decision = Literal["accept", "reject", "keep", "skip"]
DECISION_STATUS: dict[str, ConflictStatus] = {
    "accept": "accepted",
    "reject": "rejected",
    "keep": "kept",
    "skip": "skipped",
}
UNDECIDED: frozenset[str] = frozenset({"open", "skipped"})
"""Statuses a conflict awaits a decision in (a skipped conflict stays open for later)."""

MARKER = (
    "<!-- lorebook:conflict: the frontmatter above is the record; this text is rendered "
    "for review and never read back -->"
)
_STATUS_LINE = re.compile(r"^Status: .*$", re.M)
_DECISION = "\n## Decision\n"


@dataclass(frozen=True, slots=True)
class ConflictFile:
    """A conflict as read from its file."""

    conflict: Conflict
    path: Path


@dataclass(slots=True)
class ConflictListing:
    """Every readable conflict file, and the files that could not be read."""

    conflicts: list[ConflictFile] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def conflict_path(paths: KBPaths, conflict_id: str) -> Path:
    """The file of a conflict id (ids are ``[A-Za-z0-9][A-Za-z0-9_.-]*``).

    Raises:
        LorebookError: the id is not a conflict id.
    """
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]*", conflict_id) or ".." in conflict_id:
        raise LorebookError(f"{conflict_id!r} is not a conflict id (like 3f2a9c1b7e-1)")
    return paths.conflicts / f"{conflict_id}.md"


def _quoted(text: str) -> str:
    lines = text.strip("\n").splitlines() or [""]
    return "\n".join(f"> {line}".rstrip() for line in lines)


def _status_line(conflict: Conflict) -> str:
    if conflict.status in UNDECIDED:
        return (
            f"Status: {conflict.status}. Decide with `lorebook conflict resolve {conflict.id} "
            "--decision accept|reject|keep|skip`."
        )
    return f"Status: {conflict.status}."


def render_body(conflict: Conflict, target: Note | None, target_path: str | None) -> str:
    """The review text of a new conflict file: rationale, current note, proposed note."""
    proposal = conflict.proposal
    current = (
        f"`{target.id}` in `{target_path}`\n\n**{target.title}**. {target.description}\n\n"
        f"{_quoted(target.body)}"
        if target is not None
        else f"`{conflict.target_id}` (not found when the conflict was recorded)"
    )
    return (
        f"# Conflict {conflict.id}: {proposal.title}\n\n{MARKER}\n\n{_status_line(conflict)}\n\n"
        f"## Rationale\n\n{conflict.rationale.strip()}\n\n"
        f"## Current note\n\n{current}\n\n"
        f"## Proposed\n\n**{proposal.title}**. {proposal.description}\n\n"
        f"{_quoted(proposal.body or proposal.quote)}\n\n"
        f"Quoted from `{proposal.origin}` (extractor `{proposal.extractor}`):\n\n"
        f"{_quoted(proposal.quote)}\n"
    )


def render_conflict(conflict: Conflict, body: str) -> str:
    """The whole file: the conflict as frontmatter, then the review text."""
    return frontmatter.render(conflict.model_dump(mode="json"), body)


def read_conflict(path: Path, *, source: str) -> tuple[Conflict, str]:
    """Read a conflict file: the validated record and its review text.

    Raises:
        LorebookError: the file is unreadable or its frontmatter is not a valid conflict.
    """
    try:
        data, body = frontmatter.split(path.read_text(encoding="utf-8"))
        return Conflict.model_validate(data), body
    except (OSError, UnicodeDecodeError, frontmatter.FrontmatterError) as exc:
        raise LorebookError(f"{source}: {exc}") from None
    except ValidationError as exc:
        from lorebook.kb.notes import format_validation_error

        raise LorebookError(format_validation_error(exc, source=source)) from None


def list_conflicts(paths: KBPaths, *, include_decided: bool = False) -> ConflictListing:
    """Every conflict awaiting a decision (all of them with ``include_decided``), by file."""
    listing = ConflictListing()
    folder = paths.conflicts
    for path in sorted(folder.glob("*.md")) if folder.is_dir() else []:
        if path.name.startswith("."):
            continue
        try:
            conflict, _ = read_conflict(path, source=paths.rel(path))
        except LorebookError as exc:
            listing.problems.append(exc.message)
            continue
        if include_decided or conflict.status in UNDECIDED:
            listing.conflicts.append(ConflictFile(conflict, path))
    return listing


def same_contradiction(conflict: Conflict, action: ContradictAction) -> bool:
    """True when a recorded conflict is about this very proposal and target."""
    mine, theirs = action.proposal, conflict.proposal
    return (
        conflict.target_id == action.target_id
        and theirs.id == mine.id
        and theirs.origin == mine.origin
        and theirs.title == mine.title
    )


def record_conflict(
    paths: KBPaths,
    conflict_id: str,
    action: ContradictAction,
    target: Note | None,
    target_path: str | None,
) -> Path:
    """Write the conflict file for ``action`` (a new file; never overwrites one)."""
    conflict = Conflict(
        id=conflict_id,
        target_id=action.target_id,
        rationale=action.rationale,
        proposal=action.proposal,
    )
    path = conflict_path(paths, conflict_id)
    text = render_conflict(conflict, render_body(conflict, target, target_path))
    if not path.exists():
        atomic_write_text(path, text)
    return path


def decided_text(conflict: Conflict, body: str) -> str:
    """The file text after a decision: new frontmatter, status line, a Decision section."""
    body = body.split(_DECISION, 1)[0].rstrip("\n") + "\n"
    body = _STATUS_LINE.sub(_status_line(conflict).replace("\\", "\\\\"), body, count=1)
    if conflict.status != "open":
        because = conflict.decided_because or "no reason given"
        body += f"{_DECISION}\n{conflict.status}: {because}\n"
    return render_conflict(conflict, body)


__all__ = [
    "DECISION_STATUS",
    "MARKER",
    "UNDECIDED",
    "ConflictFile",
    "ConflictListing",
    "Decision",
    "conflict_path",
    "decided_text",
    "list_conflicts",
    "read_conflict",
    "record_conflict",
    "render_body",
    "render_conflict",
    "same_contradiction",
]
