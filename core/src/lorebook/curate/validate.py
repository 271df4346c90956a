"""The whole batch is checked before the first write: one bad action writes nothing.

Checks, on a simulation of the knowledge base as the actions apply in order:

- the batch parses as a :class:`~lorebook.models.curation.CuratorBatch`;
- every pending proposal has exactly one action, and no action names another proposal;
- every note an action writes renders and reads back as a valid note, cites the
  proposal's origin in ``lb_derived_from``, and its edges name notes that exist;
- an ``add`` uses a new id (unique in the knowledge base and the batch) and a folder that
  passes the path validator (``""`` is the root), with a one-line summary if any;
- a ``modify`` names an existing note (or one added earlier in the batch), keeps its id and
  every origin it had;
- a ``contradict`` names an existing note and carries the pending proposal unchanged.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from lorebook.curate.base import CurationError, KbView
from lorebook.curate.gate import note_secrets, text_secrets
from lorebook.curate.notes import canonical, content_digest
from lorebook.errors import LorebookError
from lorebook.kb.notes import format_validation_error
from lorebook.kb.paths import validate_relpath
from lorebook.models.curation import (
    AddAction,
    ContradictAction,
    CuratorAction,
    CuratorBatch,
    DropAction,
    ModifyAction,
)
from lorebook.models.note import Note
from lorebook.models.session import Proposal


@dataclass(frozen=True, slots=True)
class PlannedAction:
    """One validated action with what applying it must find and leave.

    Attributes:
        action: The action, its note (if any) in the canonical form it reads back as.
        before: For a modify, the digest of the target as the batch found it.
        after: For an add or modify, the digest of the note it writes.
    """

    action: CuratorAction
    before: str | None = None
    after: str | None = None


def parse_batch(actions: Any) -> list[CuratorAction]:
    """Validate what a curator returned as a batch of actions.

    Raises:
        CurationError: it is not a list of valid actions.
    """
    if isinstance(actions, CuratorBatch):
        return list(actions.actions)
    try:
        return list(CuratorBatch.model_validate({"actions": list(actions)}).actions)
    except (TypeError, ValidationError) as exc:
        detail = (
            format_validation_error(exc, source="curator batch")
            if isinstance(exc, ValidationError)
            else str(exc)
        )
        raise CurationError(f"the curator returned an invalid batch:\n{detail}") from None


class _Simulation:
    """The knowledge base as the batch leaves it, action after action."""

    def __init__(self, view: KbView, pending: Mapping[str, Proposal]) -> None:
        self.notes: dict[str, Note] = dict(view.notes)
        self.pending = pending
        self.errors: list[str] = []

    def fail(self, index: int, action: CuratorAction, message: str) -> None:
        self.errors.append(f"action {index + 1} ({action.action} {action.proposal_id}): {message}")

    def check_note(self, index: int, action: CuratorAction, note: Note) -> Note | None:
        """The canonical note, or None after recording why it is not writable."""
        try:
            clean, _ = canonical(note)
        except LorebookError as exc:
            self.fail(index, action, exc.message)
            return None
        leaked = note_secrets(clean)
        if leaked:
            self.fail(index, action, f"the note holds what looks like a secret ({leaked})")
        proposal = self.pending.get(action.proposal_id)
        if proposal is not None and proposal.origin not in clean.derived_from:
            self.fail(index, action, f"lb_derived_from lacks the proposal's {proposal.origin}")
        for key, ids in clean.edges().items():
            missing = [i for i in ids if i not in self.notes and i != clean.id]
            if missing:
                self.fail(index, action, f"{key} names no note: {', '.join(missing)}")
        return clean

    def add(self, index: int, action: AddAction) -> PlannedAction:
        note = self.check_note(index, action, action.note)
        if note is None:
            return PlannedAction(action)
        if note.id in self.notes:
            self.fail(index, action, f"note id {note.id!r} is taken")
        if action.folder:
            try:
                validate_relpath(action.folder, what="folder")
            except LorebookError as exc:
                self.fail(index, action, exc.message)
        summary = action.folder_summary
        if summary is not None and (not summary.strip() or "\n" in summary.strip()):
            self.fail(index, action, "folder_summary must be one non-empty line")
        self.notes[note.id] = note
        planned = action.model_copy(update={"note": note})
        return PlannedAction(planned, after=content_digest(note))

    def modify(self, index: int, action: ModifyAction) -> PlannedAction:
        target = self.notes.get(action.target_id)
        note = self.check_note(index, action, action.note)
        if target is None:
            self.fail(index, action, f"target {action.target_id!r} does not exist")
        if note is None or target is None:
            return PlannedAction(action)
        if note.id != target.id:
            self.fail(index, action, f"the note's id {note.id!r} is not the target's")
        lost = [o for o in target.derived_from if o not in note.derived_from]
        if lost:
            self.fail(index, action, f"lb_derived_from loses {', '.join(lost)}")
        before = content_digest(target)
        self.notes[note.id] = note
        planned = action.model_copy(update={"note": note})
        return PlannedAction(planned, before=before, after=content_digest(note))

    def contradict(self, index: int, action: ContradictAction) -> PlannedAction:
        if action.target_id not in self.notes:
            self.fail(index, action, f"target {action.target_id!r} does not exist")
        if action.proposal != self.pending.get(action.proposal_id):
            self.fail(index, action, "the proposal differs from the pending one")
        if not action.rationale.strip():
            self.fail(index, action, "the rationale is empty")
        leaked = text_secrets(action.proposal.model_dump_json() + "\n" + action.rationale)
        if leaked:
            self.fail(index, action, f"the conflict would quote a secret ({leaked}); not written")
        return PlannedAction(action)


def _coverage(actions: Sequence[CuratorAction], pending: Mapping[str, Proposal]) -> list[str]:
    counts: dict[str, int] = {}
    for action in actions:
        counts[action.proposal_id] = counts.get(action.proposal_id, 0) + 1
    errors = [f"proposal {pid!r} is not pending" for pid in counts if pid not in pending]
    errors += [f"proposal {pid!r} has {n} actions" for pid, n in counts.items() if n > 1]
    errors += [f"proposal {pid!r} has no action" for pid in pending if pid not in counts]
    return errors


def validate_batch(
    actions: Sequence[CuratorAction], proposals: Sequence[Proposal], view: KbView
) -> list[PlannedAction]:
    """Check the whole batch (see the module docstring) and plan its application.

    Raises:
        CurationError: listing every problem found; nothing has been written.
    """
    pending = {p.id: p for p in proposals}
    simulation = _Simulation(view, pending)
    simulation.errors.extend(_coverage(actions, pending))
    planned = []
    for index, action in enumerate(actions):
        if isinstance(action, AddAction):
            planned.append(simulation.add(index, action))
        elif isinstance(action, ModifyAction):
            planned.append(simulation.modify(index, action))
        elif isinstance(action, ContradictAction):
            planned.append(simulation.contradict(index, action))
        else:
            if isinstance(action, DropAction) and not action.reason.strip():
                simulation.fail(index, action, "the reason is empty")
            planned.append(PlannedAction(action))
    if simulation.errors:
        raise CurationError(
            "the curator's batch is invalid; nothing was written:\n  "
            + "\n  ".join(simulation.errors),
            hint="fix the curator (or its model's answer) and run `lorebook curate` again",
        )
    return planned


__all__ = ["PlannedAction", "parse_batch", "validate_batch"]
