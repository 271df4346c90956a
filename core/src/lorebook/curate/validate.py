"""The whole batch is checked before the first write; an unwritable action is held back alone.

Checks, on a simulation of the knowledge base as the actions apply in order:

- each item of the curator's answer parses as a
  :class:`~lorebook.models.curation.CuratorAction`;
- every pending proposal has exactly one action, and no action names another proposal;
- every note an action writes renders and reads back as a valid note, holds nothing the
  secret scan flags, cites the proposal's origin in ``lb_derived_from``, and its edges name
  notes that exist;
- an ``add`` uses a new id (unique in the knowledge base and the batch), a folder that
  passes the path validator (``""`` is the root), with a one-line summary if any, and the
  files its note rests on have not changed since they were read;
- a ``modify`` names an existing note (or one added earlier in the batch), keeps its id and
  every origin it had;
- a ``contradict`` names an existing note, carries the pending proposal unchanged, and its
  conflict file, as it would be written, holds nothing the secret scan flags.

A proposal whose action fails a check (or that has no action, or several, or an item that
does not parse) is **held back**: its action is replaced by a drop whose reason starts with
:data:`HELD_BACK` and says why, and the run warns once, naming it, its session and what the
user can do. The batch is checked again without it (an action may rest on one held back: a
merge into a note the batch was to add), until every remaining action passes; those are
written, and the held-back proposal's session is consumed like any other, so a rerun
neither asks the curator about it again nor warns again. Only an answer that gives no
usable action for any proposal it was asked about (nothing readable, or nothing at all)
refuses the run: that is a broken curator, not one action, and nothing is written.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter, ValidationError

from lorebook.curate.base import CurationError, KbView, UnusableAction
from lorebook.curate.gate import conflict_secrets, note_secrets, text_secrets
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

HELD_BACK = "held back: "
"""How the reason of a drop that holds a proposal back begins."""

AnswerItem = CuratorAction | UnusableAction
"""An item of a curator's answer, once parsed."""

_ACTION: TypeAdapter[CuratorAction] = TypeAdapter(CuratorAction)
_PARSED = (AddAction, ModifyAction, ContradictAction, DropAction, UnusableAction)


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


@dataclass(frozen=True, slots=True)
class HeldBack:
    """A proposal whose action cannot be written: it is dropped, with why."""

    proposal_id: str
    problem: str


@dataclass(slots=True)
class ValidatedBatch:
    """The batch as it will be written.

    Attributes:
        steps: Every action that passed, and a drop for each proposal held back, in order.
        held_back: The proposals held back, in the order of their drops.
        ignored: One line for each action that names no pending proposal (left out).
    """

    steps: list[PlannedAction] = field(default_factory=list)
    held_back: list[HeldBack] = field(default_factory=list)
    ignored: list[str] = field(default_factory=list)


def _one_line(text: str) -> str:
    return "; ".join(line.strip() for line in text.splitlines() if line.strip())


def parse_action(item: Any, number: int, *, label: str = "the curator's action") -> AnswerItem:
    """Validate one item of a curator's answer; one that is not valid becomes unusable.

    Args:
        item: The item (an action, or its JSON form).
        number: Its rank in the answer, from 1.
        label: How the problem names it, before its number.
    """
    if isinstance(item, _PARSED):
        return item
    try:
        return _ACTION.validate_python(item)
    except ValidationError as exc:
        detail = format_validation_error(exc, source="")
        fields = _one_line("\n".join(line.removeprefix(": ") for line in detail.splitlines()))
        named = item.get("proposal_id") if isinstance(item, Mapping) else None
        return UnusableAction(
            proposal_id=named if isinstance(named, str) else None,
            problem=f"{label} {number} is not valid: {fields}",
        )


def parse_batch(answer: Any) -> list[AnswerItem]:
    """Validate what a curator returned, item by item (an invalid one becomes unusable).

    Raises:
        CurationError: it is not a list of actions at all.
    """
    if isinstance(answer, CuratorBatch):
        return list(answer.actions)
    if isinstance(answer, str | bytes | Mapping) or not isinstance(answer, Iterable):
        raise CurationError(
            f"the curator returned a {type(answer).__name__}, not a list of actions; "
            "nothing was written"
        )
    return [parse_action(item, number) for number, item in enumerate(answer, start=1)]


def refuse_unusable_answer(answer: Sequence[AnswerItem], proposals: Sequence[Proposal]) -> None:
    """Refuse an answer that gives no usable action for any of the proposals it was asked about.

    Raises:
        CurationError: naming the first problems found (nothing has been written).
    """
    asked = {p.id for p in proposals}
    if not asked or any(
        not isinstance(a, UnusableAction) and a.proposal_id in asked for a in answer
    ):
        return
    problems = [a.problem for a in answer if isinstance(a, UnusableAction)][:5]
    listed = "".join(f"\n  {_scrubbed(p, 'an item is not valid')}" for p in problems)
    raise CurationError(
        f"the curator's answer holds no usable action for any of the {len(asked)} proposals "
        f"it was asked about; nothing was written{':' if listed else ''}{listed}",
        hint="fix the curator (or its model's answer) and run `lorebook curate` again; "
        "the proposals stay pending",
    )


def _scrubbed(text: str, instead: str) -> str:
    """``text``, or ``instead`` when ``text`` shows what looks like a secret (it is printed)."""
    if text_secrets(text):
        return f"{instead} (not shown: it would quote what looks like a secret)"
    return text


class _Simulation:
    """The knowledge base as the batch leaves it, action after action."""

    def __init__(self, view: KbView, pending: Mapping[str, Proposal], repo: Path | None) -> None:
        self.notes: dict[str, Note] = dict(view.notes)
        self.folders: dict[str, str] = dict(view.folders)
        self.pending = pending
        self.repo = repo
        self.errors: dict[str, list[str]] = {}
        """Proposal id -> what is wrong with its action."""

    def fail(self, action: CuratorAction, message: str) -> None:
        self.errors.setdefault(action.proposal_id, [f"its {action.action} cannot be written"])
        self.errors[action.proposal_id].append(message)

    def check(self, action: CuratorAction) -> PlannedAction:
        """Check one action against the notes so far, and apply it to them."""
        if isinstance(action, AddAction):
            return self.add(action)
        if isinstance(action, ModifyAction):
            return self.modify(action)
        if isinstance(action, ContradictAction):
            return self.contradict(action)
        if not action.reason.strip():
            self.fail(action, "the reason is empty")
        return PlannedAction(action)

    def check_note(self, action: CuratorAction, note: Note) -> Note | None:
        """The canonical note, or None after recording why it is not writable."""
        try:
            clean, _ = canonical(note)
        except LorebookError as exc:
            self.fail(action, exc.message)
            return None
        leaked = note_secrets(clean)
        if leaked:
            self.fail(action, f"the note holds what looks like a secret ({leaked})")
        proposal = self.pending.get(action.proposal_id)
        if proposal is not None and proposal.origin not in clean.derived_from:
            self.fail(action, f"lb_derived_from lacks the proposal's {proposal.origin}")
        for key, ids in clean.edges().items():
            missing = [i for i in ids if i not in self.notes and i != clean.id]
            if missing:
                self.fail(action, f"{key} names no note: {', '.join(missing)}")
        return clean

    def add(self, action: AddAction) -> PlannedAction:
        note = self.check_note(action, action.note)
        if note is None:
            return PlannedAction(action)
        if note.id in self.notes:
            self.fail(action, f"note id {note.id!r} is taken")
        if action.folder:
            try:
                validate_relpath(action.folder, what="folder")
            except LorebookError as exc:
                self.fail(action, exc.message)
        summary = action.folder_summary
        if summary is not None and (not summary.strip() or "\n" in summary.strip()):
            self.fail(action, "folder_summary must be one non-empty line")
        if self.repo is not None and note.dependencies:
            from lorebook.validity.record import refuse_moved

            try:  # checked again when it is written; a change seen now never goes away
                refuse_moved(self.repo, note.dependencies, what="the files it rests on")
            except LorebookError as exc:
                self.fail(action, exc.message)
        self.notes[note.id] = note
        self.folders[note.id] = action.folder
        planned = action.model_copy(update={"note": note})
        return PlannedAction(planned, after=content_digest(note))

    def modify(self, action: ModifyAction) -> PlannedAction:
        target = self.notes.get(action.target_id)
        note = self.check_note(action, action.note)
        if target is None:
            self.fail(action, f"target {action.target_id!r} does not exist")
        if note is None or target is None:
            return PlannedAction(action)
        if note.id != target.id:
            self.fail(action, f"the note's id {note.id!r} is not the target's")
        lost = [o for o in target.derived_from if o not in note.derived_from]
        if lost:
            self.fail(action, f"lb_derived_from loses {', '.join(lost)}")
        before = content_digest(target)
        self.notes[note.id] = note
        planned = action.model_copy(update={"note": note})
        return PlannedAction(planned, before=before, after=content_digest(note))

    def contradict(self, action: ContradictAction) -> PlannedAction:
        target = self.notes.get(action.target_id)
        if target is None:
            self.fail(action, f"target {action.target_id!r} does not exist")
        if action.proposal != self.pending.get(action.proposal_id):
            self.fail(action, "the proposal differs from the pending one")
        if not action.rationale.strip():
            self.fail(action, "the rationale is empty")
        # the path as the file shows it, near enough for the scan (ids and folders are
        # scanned with their notes)
        folder = self.folders.get(action.target_id, "")
        where = "/".join(part for part in (".lorebook/nodes", folder) if part)
        leaked = conflict_secrets(action, target, f"{where}/{action.target_id}.md")
        if leaked:
            self.fail(action, f"the conflict would quote what looks like a secret ({leaked})")
        return PlannedAction(action)


def _triage(
    actions: Sequence[AnswerItem], pending: Mapping[str, Proposal]
) -> tuple[dict[str, str], list[str]]:
    """Hold back what needs no simulation; list the actions that name no pending proposal.

    Held back: a proposal with no action, with several, or with an unusable one.
    """
    counts = Counter(a.proposal_id for a in actions if a.proposal_id in pending)
    held: dict[str, str] = {}
    ignored: list[str] = []
    for number, action in enumerate(actions, start=1):
        named = action.proposal_id
        if named is None or named not in pending:
            what = action.problem if isinstance(action, UnusableAction) else action.action
            ignored.append(
                f"the curator's action {number} ({_scrubbed(what, 'an item')}) names no pending "
                f"proposal ({'none' if named is None else _scrubbed(repr(named), 'an id')}); "
                "it was left out"
            )
        elif counts[named] > 1:
            held[named] = f"the curator gave it {counts[named]} actions"
        elif isinstance(action, UnusableAction):
            held[named] = action.problem
    for pid in pending:
        if pid not in counts:
            held[pid] = "the curator gave it no action"
    return held, ignored


def validate_batch(
    actions: Sequence[AnswerItem],
    proposals: Sequence[Proposal],
    view: KbView,
    *,
    repo: Path | None = None,
) -> ValidatedBatch:
    """Check the whole batch and hold back each action that fails (see the module docstring).

    Args:
        actions: The batch, each item parsed (:func:`parse_batch`).
        proposals: Every pending proposal.
        view: The notes as they are.
        repo: The repository, to check the files an added note rests on (None: not checked).

    Returns:
        The steps to write, the proposals held back, the actions left out.
    """
    pending = {p.id: p for p in proposals}
    held, ignored = _triage(actions, pending)
    while True:  # each round holds back at least one more proposal, or ends
        simulation = _Simulation(view, pending, repo)
        planned = {
            index: simulation.check(action)
            for index, action in enumerate(actions)
            if not isinstance(action, UnusableAction)
            and action.proposal_id in pending
            and action.proposal_id not in held
        }
        if not simulation.errors:
            break
        for pid, (what, *problems) in simulation.errors.items():
            held[pid] = f"{what}: {'; '.join(problems)}"
    return _assemble(actions, pending, planned, held, ignored)


def _assemble(
    actions: Sequence[AnswerItem],
    pending: Mapping[str, Proposal],
    planned: Mapping[int, PlannedAction],
    held: Mapping[str, str],
    ignored: list[str],
) -> ValidatedBatch:
    """The steps in the batch's order, a held-back proposal's drop where its action was."""
    batch = ValidatedBatch(ignored=ignored)
    order = [a.proposal_id for a in actions] + list(pending)
    dropped: set[str] = set()
    for index, pid in enumerate(order):
        if index in planned:
            batch.steps.append(planned[index])
        elif pid is not None and pid in held and pid not in dropped:
            dropped.add(pid)
            problem = _scrubbed(_one_line(held[pid]), "its action cannot be written")
            batch.held_back.append(HeldBack(pid, problem))
            drop = DropAction(proposal_id=pid, reason=HELD_BACK + problem)
            batch.steps.append(PlannedAction(drop))
    return batch


__all__ = [
    "HELD_BACK",
    "AnswerItem",
    "HeldBack",
    "PlannedAction",
    "ValidatedBatch",
    "parse_action",
    "parse_batch",
    "refuse_unusable_answer",
    "validate_batch",
]
