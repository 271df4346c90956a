"""The built-in deterministic curator ``rules``: offline, the same batch for the same input.

Each proposal, in order, is judged against every active note and every note the batch has
added or merged so far (:func:`lorebook.curate.text.compare` holds the rules and the
thresholds):

- it **contradicts** a note: a ``contradict`` action (the note is never touched; a conflict
  file asks a person). When several notes qualify, the most similar one (then the smallest
  id) is the target.
- it is a **near-duplicate** of a note: a ``modify`` action merging it into that note (same
  id; the proposal's origin appended to ``lb_derived_from``; new tags and anchors added; its
  body appended when it adds something), or a ``drop`` when the note already cited the
  proposal's origin before this batch (the same turns extracted again).
- otherwise an ``add``: a new note ``<kind>-<slug of title>`` (``-2`` ... when taken),
  derived from the proposal's origin, in the folder of its kind: the one named after it, or
  another folder of that kind it fits better (:func:`lorebook.curate.placement.choose_folder`).

A proposal that names its note (``target_id``) is judged against that note only: opposite
polarity or stance is a contradiction, anything else a merge.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import TYPE_CHECKING

from lorebook.curate.base import KbView
from lorebook.curate.notes import merge_duplicate, new_note_id, note_from_proposal
from lorebook.curate.placement import choose_folder
from lorebook.curate.text import Claim, Verdict, compare
from lorebook.models.curation import (
    AddAction,
    ContradictAction,
    CuratorAction,
    DropAction,
    ModifyAction,
)

if TYPE_CHECKING:
    from lorebook.models.note import Note
    from lorebook.models.session import Proposal
    from lorebook.store import NoteStore


@functools.lru_cache(maxsize=8192)
def _claim(title: str, description: str, kind: str, note_type: str) -> Claim:
    return Claim.of(title, description, kind=kind, type=note_type)


def claim_of_note(note: Note) -> Claim:
    """The claim a note makes (its title and description)."""
    return _claim(note.title, note.description, note.kind, note.type)


def claim_of_proposal(proposal: Proposal) -> Claim:
    """The claim a proposal makes (its title and description)."""
    return _claim(proposal.title, proposal.description, proposal.kind, proposal.type)


class RulesCurator:
    """The deterministic curator (see the module docstring)."""

    name = "rules"

    def curate(self, proposals: Sequence[Proposal], store: NoteStore) -> list[CuratorAction]:
        """Return one action per proposal, judged in order against the growing batch."""
        return judge_all(proposals, KbView.from_store(store))


def judge_all(proposals: Sequence[Proposal], view: KbView) -> list[CuratorAction]:
    """The rules curator's batch for ``proposals`` against ``view`` (which it updates)."""
    return [_judge(proposal, view) for proposal in proposals]


def _best(proposal: Proposal, view: KbView) -> tuple[Note, Verdict] | None:
    """The note the proposal relates to most: contradictions first, then duplicates."""
    claim = claim_of_proposal(proposal)
    found: dict[str, list[tuple[float, str, Note, Verdict]]] = {}
    for note in view.active():
        verdict = compare(claim, claim_of_note(note))
        if verdict.relation != "unrelated":
            found.setdefault(verdict.relation, []).append(
                (-verdict.similarity, note.id, note, verdict)
            )
    for relation in ("contradiction", "duplicate"):
        if relation in found:
            _, _, note, verdict = min(found[relation], key=lambda item: item[:2])
            return note, verdict
    return None


def _named_target(proposal: Proposal, view: KbView) -> tuple[Note, Verdict] | None:
    """The note the proposal names, judged: opposite polarity or stance contradicts it."""
    note = view.notes.get(proposal.target_id or "")
    if note is None or note.status != "active":
        return None
    claim, old = claim_of_proposal(proposal), claim_of_note(note)
    verdict = compare(claim, old)
    if verdict.relation == "contradiction":
        return note, verdict
    if claim.polarity != old.polarity and not (claim.mixed or old.mixed):
        reason = (
            f"the proposal names {note.id} as its subject and {claim.said()} "
            f"where the note {old.said()}"
        )
        return note, Verdict("contradiction", verdict.similarity, reason)
    reason = f"the proposal names {note.id} as its subject ({verdict.reason})"
    return note, Verdict("duplicate", verdict.similarity, reason)


def _judge(proposal: Proposal, view: KbView) -> CuratorAction:
    match = _named_target(proposal, view) or _best(proposal, view)
    if match is None:
        return _add(proposal, view)
    note, verdict = match
    if verdict.relation == "contradiction":
        return ContradictAction(
            proposal_id=proposal.id,
            target_id=note.id,
            proposal=proposal,
            rationale=f"{note.id} ({note.title!r}) vs the proposal ({proposal.title!r}): "
            f"{verdict.reason}.",
        )
    if proposal.origin in view.origins.get(note.id, frozenset()):
        return DropAction(
            proposal_id=proposal.id,
            reason=f"already curated into {note.id}: it cites {proposal.origin} and says the "
            f"same ({verdict.reason})",
        )
    merged = merge_duplicate(note, proposal)
    view.put(merged)
    return ModifyAction(
        proposal_id=proposal.id,
        target_id=note.id,
        note=merged,
        rationale=f"{verdict.reason}; merged into {note.id} ({note.title!r})",
    )


def _add(proposal: Proposal, view: KbView) -> AddAction:
    note = note_from_proposal(proposal, new_note_id(proposal.kind, proposal.title, view.notes))
    folder, summary = choose_folder(note, view.by_folder())
    view.put(note, folder)
    return AddAction(proposal_id=proposal.id, note=note, folder=folder, folder_summary=summary)


__all__ = ["RulesCurator", "claim_of_note", "claim_of_proposal", "judge_all"]
