"""A note's life after it is written: superseded by a newer note, or refuted as wrong.

``supersede`` rewrites two notes (the old one points to its successor, the successor names
what it replaces) and ``refute`` one; both validate everything before the first write, write
each file atomically under the knowledge base lock, then rebuild the indexes. lint reads
the same edges back: a supersession recorded on one side only, and an active note that
says again what a refuted note said, are errors.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from lorebook.errors import LorebookError, NoteFormatError
from lorebook.kb.fsutil import atomic_write_text, kb_lock
from lorebook.kb.index import RebuildReport, rebuild_indexes
from lorebook.kb.notes import format_validation_error, render_links, render_note
from lorebook.kb.paths import KBPaths, resolve_inside
from lorebook.kb.similarity import MATCH_THRESHOLD, NEGATION, jaccard, terms
from lorebook.kb.store import Snapshot, StoredNote, load_snapshot
from lorebook.models.note import Note

if TYPE_CHECKING:
    from collections.abc import Iterable


class LifecycleError(LorebookError):
    """A supersede or refute that cannot be done (the message names the note and why)."""


@dataclass(frozen=True, slots=True)
class LifecycleChange:
    """What ``supersede`` or ``refute`` did.

    Attributes:
        action: ``supersede`` or ``refute``.
        written: The note files rewritten (repository-relative), in the order written.
        rebuilt: The index rebuild that followed (None when nothing was written).
    """

    action: Literal["supersede", "refute"]
    written: tuple[str, ...]
    rebuilt: RebuildReport | None

    @property
    def already_done(self) -> bool:
        """True when the notes already said so and nothing was written."""
        return not self.written


# --- writing ---------------------------------------------------------------------------


def _label(paths: KBPaths, stored: StoredNote) -> str:
    return f"{paths.rel(paths.nodes)}/{stored.path.as_posix()}"


def _require(paths: KBPaths, snap: Snapshot, note_id: str, role: str) -> StoredNote:
    stored = snap.notes.get(note_id)
    if stored is not None:
        return stored
    from lorebook.kb.redirects import load_redirects

    successors = load_redirects(paths).get(note_id)
    hint = f"it was retired; it is now {', '.join(successors)}" if successors else None
    raise LifecycleError(
        f"{role} {note_id!r} is not a note", hint=hint or "`lorebook note list` shows the ids"
    )


def _refuse_unreadable(snap: Snapshot) -> None:
    """Refuse to start when the indexes could not be rebuilt afterwards."""
    reasons = [p.message for p in snap.problems]
    reasons += [f"id {i!r} is used by: {', '.join(f)}" for i, f in snap.duplicates.items()]
    if reasons:
        raise LifecycleError(
            "nothing was changed: the knowledge base has notes lorebook cannot read, so the "
            "indexes could not be rebuilt afterwards:\n  " + "\n  ".join(reasons),
            hint="fix these files (`lorebook lint` lists every problem), then run this again",
        )


def _revise(note: Note, source: str, **changes: Any) -> Note:
    """Return ``note`` with ``changes``, validated like a note read from disk."""
    from pydantic import ValidationError

    try:
        return Note.model_validate({**note.model_dump(), **changes})
    except ValidationError as exc:
        raise NoteFormatError(format_validation_error(exc, source=source)) from None


def _write(paths: KBPaths, snap: Snapshot, updates: list[tuple[StoredNote, Note]]) -> list[str]:
    """Write each note where it lives, in order; the caller holds the lock."""
    from lorebook.recall.sync import index_written

    written = []
    for stored, note in updates:
        path = resolve_inside(paths.nodes, stored.path, what="note path")
        atomic_write_text(path, render_note(note, render_links(note, stored.path, snap.locate)))
        index_written(paths, stored.path.as_posix())
        written.append(paths.rel(path))
    return written


def _finish(
    paths: KBPaths, action: Literal["supersede", "refute"], written: list[str], budget: int
) -> LifecycleChange:
    if not written:
        return LifecycleChange(action, (), None)
    from lorebook.recall.sync import reconcile

    report = rebuild_indexes(paths, budget)
    reconcile(paths)
    return LifecycleChange(action, tuple(written), report)


# --- supersede -------------------------------------------------------------------------


def _newer(snap: Snapshot) -> dict[str, set[str]]:
    """Map each id to the ids recorded as newer than it, from either side of the edge."""
    graph: dict[str, set[str]] = {}
    for note_id, stored in snap.notes.items():
        graph.setdefault(note_id, set()).update(stored.note.superseded_by)
        for older in stored.note.supersedes:
            graph.setdefault(older, set()).add(note_id)
    return graph


def _path_between(graph: dict[str, set[str]], start: str, goal: str) -> list[str] | None:
    """Return a path ``start`` .. ``goal`` along ``graph`` (sorted, so deterministic)."""
    stack: list[list[str]] = [[start]]
    seen: set[str] = set()
    while stack:
        path = stack.pop()
        if path[-1] == goal:
            return path
        if path[-1] in seen:
            continue
        seen.add(path[-1])
        stack.extend([*path, nxt] for nxt in sorted(graph.get(path[-1], ()), reverse=True))
    return None


def _check_supersede(snap: Snapshot, old: Note, new: Note) -> None:
    if new.status != "active":
        detail = (
            f"superseded by {', '.join(new.superseded_by)}; supersede by that note instead"
            if new.status == "superseded"
            else f"refuted ({new.refuted_because})"
        )
        raise LifecycleError(
            f"NEW {new.id!r} is not active: it is {detail}; only an active note can "
            "supersede another"
        )
    if old.status == "refuted":
        raise LifecycleError(
            f"OLD {old.id!r} is refuted ({old.refuted_because}): a refuted note was wrong, "
            "not outdated, so it takes no successor"
        )
    cycle = _path_between(_newer(snap), new.id, old.id)
    if cycle is not None:
        raise LifecycleError(
            f"superseding {old.id!r} by {new.id!r} would make a cycle: {old.id!r} already "
            f"replaces {new.id!r} ({' -> '.join(cycle)}, each superseded by the next)"
        )


def plan_supersede(
    paths: KBPaths, snap: Snapshot, old_id: str, new_id: str
) -> list[tuple[StoredNote, Note]]:
    """Validate superseding ``old_id`` by ``new_id``; return the notes to write, OLD first.

    A side that already records the supersession is not rewritten, so running the command
    again after an interrupted run completes it.

    Raises:
        LifecycleError: the same note, a missing id, a NEW that is not active, an OLD that
            is refuted, or a cycle.
    """
    if old_id == new_id:
        raise LifecycleError(f"a note cannot supersede itself ({old_id!r})")
    old = _require(paths, snap, old_id, "OLD")
    new = _require(paths, snap, new_id, "NEW")
    _check_supersede(snap, old.note, new.note)
    updates = []
    if old.note.status != "superseded" or new_id not in old.note.superseded_by:
        successors = [
            *old.note.superseded_by,
            *([] if new_id in old.note.superseded_by else [new_id]),
        ]
        changed = _revise(
            old.note, _label(paths, old), status="superseded", superseded_by=successors
        )
        updates.append((old, changed))
    if old_id not in new.note.supersedes:
        changed = _revise(new.note, _label(paths, new), supersedes=[*new.note.supersedes, old_id])
        updates.append((new, changed))
    return updates


def supersede(paths: KBPaths, old_id: str, new_id: str, *, budget: int) -> LifecycleChange:
    """Mark ``old_id`` superseded by ``new_id`` and record the edge on both notes.

    Both notes are validated before either is written, under the knowledge base lock; each
    file is replaced atomically. OLD is written first: if the process dies between the two
    writes, OLD already gives way to NEW when notes are served, and ``lint`` reports the
    one-sided edge (``supersede-mismatch``) and the stale indexes until the command is run
    again. The indexes are rebuilt at the end.

    Args:
        paths: The knowledge base.
        old_id: The note that is outdated.
        new_id: The active note that replaces it.
        budget: ENTRY.md's character budget, for the rebuild.
    """
    with kb_lock(paths.lock):
        snap = load_snapshot(paths)
        _refuse_unreadable(snap)
        written = _write(paths, snap, plan_supersede(paths, snap, old_id, new_id))
    return _finish(paths, "supersede", written, budget)


# --- refute ----------------------------------------------------------------------------


def refute(paths: KBPaths, note_id: str, why: str, *, budget: int) -> LifecycleChange:
    """Mark an active note refuted, with the reason; its text stays as a record.

    Refuting it again with the same reason changes nothing.

    Raises:
        LifecycleError: an empty reason, a missing id, a note refuted for another reason,
            or a superseded note (outdated, not wrong: refute its successor if need be).
    """
    reason = why.strip()
    if not reason:
        raise LifecycleError("--why is empty: say what was wrong with the note")
    with kb_lock(paths.lock):
        snap = load_snapshot(paths)
        _refuse_unreadable(snap)
        stored = _require(paths, snap, note_id, "note")
        note = stored.note
        if note.status == "refuted" and note.refuted_because == reason:
            return LifecycleChange("refute", (), None)
        if note.status != "active":
            detail = (
                f"refuted already: {note.refuted_because}"
                if note.status == "refuted"
                else f"superseded by {', '.join(note.superseded_by)}: outdated, not wrong"
            )
            raise LifecycleError(f"{note_id!r} is {detail}; only an active note can be refuted")
        changed = _revise(note, _label(paths, stored), status="refuted", refuted_because=reason)
        written = _write(paths, snap, [(stored, changed)])
    return _finish(paths, "refute", written, budget)


# --- what lint checks ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class OneSided:
    """A supersession recorded on one note but not the other.

    Attributes:
        note_id: The note that records it.
        key: Its field naming the other note (``lb_superseded_by`` or ``lb_supersedes``).
        other_id: The note that does not record it back.
        old_id: The superseded note, and ``new_id`` its successor, to complete it with
            ``lorebook note supersede OLD NEW``.
    """

    note_id: str
    key: str
    other_id: str
    old_id: str
    new_id: str


def one_sided_supersessions(snap: Snapshot) -> list[OneSided]:
    """Return every supersession edge between two notes that only one of them records.

    Edges to ids that are not notes are left to the dangling-edge check.
    """
    found = []
    for note_id, stored in snap.notes.items():
        note = stored.note
        for succ in note.superseded_by:
            other = snap.notes.get(succ)
            if other is not None and note_id not in other.note.supersedes:
                found.append(OneSided(note_id, "lb_superseded_by", succ, note_id, succ))
        for older in note.supersedes:
            other = snap.notes.get(older)
            if other is not None and (
                note_id not in other.note.superseded_by or other.note.status != "superseded"
            ):
                found.append(OneSided(note_id, "lb_supersedes", older, older, note_id))
    return found


@dataclass(frozen=True, slots=True)
class Reassertion:
    """An active note that says again what a refuted note said."""

    active_id: str
    refuted_id: str
    score: float


def claim_terms(note: Note) -> frozenset[str]:
    """Return the terms of what a note claims: its title and description, as one text."""
    return terms(note.title) | terms(note.description)


def _names(note: Note, other_id: str) -> bool:
    return any(other_id in ids for ids in note.edges().values())


def reasserted_refuted(
    notes: Iterable[Note], *, threshold: float = MATCH_THRESHOLD
) -> list[Reassertion]:
    """Return each (active, refuted) pair whose claims match (see :mod:`similarity`).

    An active note that names the refuted one in an edge (``lb_relates_to``, ...) is a
    deliberate correction, not a reassertion, and is left out.
    """
    notes = list(notes)
    refuted = [(n, claim_terms(n)) for n in notes if n.status == "refuted"]
    found = []
    for note in notes:
        if note.status != "active" or not refuted:
            continue
        mine = claim_terms(note)
        for old, old_terms in refuted:
            if _names(note, old.id) or (NEGATION in mine) != (NEGATION in old_terms):
                continue
            score = jaccard(mine, old_terms)
            if score >= threshold:
                found.append(Reassertion(note.id, old.id, score))
    return found


__all__ = [
    "LifecycleChange",
    "LifecycleError",
    "OneSided",
    "Reassertion",
    "claim_terms",
    "one_sided_supersessions",
    "plan_supersede",
    "reasserted_refuted",
    "refute",
    "supersede",
]
