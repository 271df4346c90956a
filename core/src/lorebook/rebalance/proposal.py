"""A rebalance plan a curator proposes (``rebalance.planner``), checked like our own.

The deterministic trigger decides whether anything is done; when it finds work and
``rebalance.planner`` names a curator that implements
:class:`lorebook.curate.base.RebalancePlanner`, that curator receives the metrics
(:func:`build_request`, with the deterministic plan as its draft, in the answer's own
format) and proposes the moves, splits and new folders' summaries. :func:`plan_of` turns
the proposal into a :class:`~lorebook.rebalance.plan.RebalancePlan`, refusing what the
deterministic plan could never do:

- a move or split of a note that is not there, named twice, or split and moved;
- a move out of the note's top folder (the folder of its kind for a note at the top of
  ``nodes/``), or into a folder whose name the path validator refuses;
- a split of a note that is not active or whose body is within ``split_note_chars``, or
  whose parts do not take each of its ``## `` sections exactly once (sections are named by
  their heading; a note whose headings repeat cannot be split by name);
- a folder the plan creates without a one-line summary.

The plan is then validated by :func:`lorebook.rebalance.run.validate_plan` and settled by
the trigger exactly as the deterministic plan is (:func:`lorebook.rebalance.run.compute_plan`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lorebook.errors import LorebookError
from lorebook.kb.index import Tree, render_folder_index
from lorebook.kb.paths import validate_relpath
from lorebook.models.rebalance import (
    MAX_SUMMARY_CHARS,
    FolderMetrics,
    NoteMetrics,
    PlanProposal,
    ProposedMove,
    ProposedPart,
    ProposedSplit,
    RebalanceRequest,
)
from lorebook.rebalance.notesplit import NoteSplit, build_parts, concepts, sections
from lorebook.rebalance.plan import (
    Limits,
    Move,
    RebalanceError,
    RebalancePlan,
    holding,
    note_path,
)
from lorebook.rebalance.terms import clip

if TYPE_CHECKING:
    from collections.abc import Mapping

    from lorebook.kb.store import Snapshot
    from lorebook.models.note import Note

MAX_REASONS = 50
"""Reasons of a proposal kept (each clipped to one line)."""


def _top(folder: str) -> str:
    return folder.partition("/")[0]


def build_request(
    snap: Snapshot,
    summaries: Mapping[str, str],
    limits: Limits,
    pinned: frozenset[str],
    draft: RebalancePlan,
) -> RebalanceRequest:
    """The metrics a curator proposes a plan from, with ``draft`` in the answer's format."""
    tree = Tree.build(snap.notes.values())
    folders = []
    for folder in tree.folders():
        count = len(tree.notes[folder])
        chars = len(render_folder_index(folder, tree, dict(summaries), snap))
        over = None
        if folder and count > limits.max_notes:
            over = f"{count} notes directly (max_notes {limits.max_notes})"
        elif folder and count > 1 and chars > limits.max_index_chars:
            over = f"index.md {chars:,} characters (max_index_chars {limits.max_index_chars:,})"
        elif not folder and count:
            over = f"{count} notes at the top level of nodes/: each needs a folder"
        folders.append(
            FolderMetrics(folder=folder, notes=count, subfolders=list(tree.children[folder]),
                          index_chars=chars, summary=summaries.get(folder), over=over)
        )  # fmt: skip
    notes = []
    for note_id, stored in sorted(snap.notes.items()):
        note = stored.note
        long = 0 < limits.split_note_chars < len(note.body) and note.status == "active"
        notes.append(
            NoteMetrics(id=note_id, folder=stored.folder, kind=note.kind,
                        title=clip(note.title, 160), tags=list(note.tags),
                        body_chars=len(note.body),
                        sections=[s.heading for s in sections(note.body)[1]] if long else [],
                        pinned=note_id in pinned)
        )  # fmt: skip
    limits_json = {
        "max_notes": limits.max_notes,
        "min_notes": limits.min_notes,
        "max_index_chars": limits.max_index_chars,
        "split_note_chars": limits.split_note_chars,
    }
    return RebalanceRequest(
        limits=limits_json, folders=folders, notes=notes, draft=as_proposal(snap, draft)
    )


def as_proposal(snap: Snapshot, plan: RebalancePlan) -> PlanProposal:
    """The deterministic plan in the answer's format (what :func:`plan_of` reads back)."""
    splits = []
    for split in plan.splits:
        found = sections(snap.notes[split.note_id].note.body)[1]
        groups = concepts(found)
        parts = [
            ProposedPart(
                sections=[found[i].heading for i in group],
                folder=plan.written[part.id].rpartition("/")[0],
            )
            for group, part in zip(groups, split.parts, strict=True)
        ]
        splits.append(ProposedSplit(id=split.note_id, parts=parts))
    return PlanProposal(
        moves=[ProposedMove(id=m.note_id, to=m.target.rpartition("/")[0]) for m in plan.moves],
        splits=splits,
        folders=dict(plan.created),
        reasons=list(plan.reasons),
    )


def _folder(value: str, what: str) -> str:
    folder = value.strip("/")
    try:
        return validate_relpath(folder, what="folder").as_posix() if folder else ""
    except LorebookError as exc:
        raise RebalanceError(f"{what}: {exc.message}") from None


def _groups(note: Note, split: ProposedSplit) -> list[list[int]]:
    """Each part's sections as indexes into the note's sections (each taken exactly once)."""
    found = sections(note.body)[1]
    index = {s.heading: i for i, s in enumerate(found)}
    if len(index) < len(found):
        raise RebalanceError(f"split {note.id}: its ## headings repeat, so parts cannot name them")
    groups: list[list[int]] = []
    seen: set[int] = set()
    for part in split.parts:
        group = []
        for heading in part.sections:
            at = index.get(heading)
            if at is None or at in seen:
                why = "is taken twice" if at is not None else "is no ## heading of the note"
                raise RebalanceError(f"split {note.id}: section {heading!r} {why}")
            seen.add(at)
            group.append(at)
        groups.append(group)
    if len(seen) < len(found):
        left = [found[i].heading for i in range(len(found)) if i not in seen]
        raise RebalanceError(f"split {note.id}: sections in no part: {left!r}")
    return groups


def _splits(
    snap: Snapshot,
    proposal: PlanProposal,
    limits: Limits,
    retired: Mapping[str, list[str]],
    written: dict[str, str],
) -> list[NoteSplit]:
    taken = set(snap.notes) | set(retired)
    splits: list[NoteSplit] = []
    for split in proposal.splits:
        stored = snap.notes.get(split.id)
        if stored is None or any(s.note_id == split.id for s in splits):
            raise RebalanceError(f"split {split.id}: {'named twice' if stored else 'no such note'}")
        note = stored.note
        if note.status != "active" or len(note.body) <= limits.split_note_chars:
            raise RebalanceError(
                f"split {split.id}: only an active note longer than split_note_chars "
                f"({limits.split_note_chars:,}) is split; its body is {len(note.body):,}"
            )
        parts = build_parts(note, _groups(note, split), taken)
        for part, proposed in zip(parts, split.parts, strict=True):
            folder = stored.folder
            if proposed.folder is not None:
                folder = _folder(proposed.folder, f"split {split.id}")
            if _top(folder) != _top(stored.folder):
                raise RebalanceError(
                    f"split {split.id}: a part goes to {folder or 'the top'}/, out of "
                    f"{_top(stored.folder)}/"
                )
            written[part.id] = note_path(folder, part.id)
        reason = f"{split.id}: split by the curator into {', '.join(p.id for p in parts)}"
        splits.append(NoteSplit(split.id, stored.path.as_posix(), parts, reason))
    return splits


def _moves(snap: Snapshot, proposal: PlanProposal, split_ids: set[str]) -> list[Move]:
    moves = []
    seen: set[str] = set()
    for move in proposal.moves:
        stored = snap.notes.get(move.id)
        if stored is None or move.id in seen or move.id in split_ids:
            why = "no such note" if stored is None else "named twice, or split and moved"
            raise RebalanceError(f"move {move.id}: {why}")
        seen.add(move.id)
        folder = _folder(move.to, f"move {move.id}")
        home = stored.folder or stored.note.kind
        if not folder or _top(folder) != _top(home):
            raise RebalanceError(
                f"move {move.id}: to {folder or 'the top'}/ leaves {_top(home)}/ (a note stays "
                "in its top folder; one at the top of nodes/ goes to its kind's)"
            )
        if folder != stored.folder:
            moves.append(Move(move.id, stored.path.as_posix(), note_path(folder, move.id)))
    return moves


def plan_of(
    proposal: PlanProposal,
    snap: Snapshot,
    summaries: Mapping[str, str],
    limits: Limits,
    retired: Mapping[str, list[str]],
    *,
    curator: str,
    held: list[str],
    kind_summaries: Mapping[str, str] | None = None,
) -> RebalancePlan:
    """The plan ``proposal`` describes (validated by the caller, as any plan).

    A kind's folder the plan creates at the top of ``nodes/`` has, unless the proposal
    gives one, the summary in ``kind_summaries`` (curation's words for it).

    Raises:
        RebalanceError: naming the first item the deterministic plan could never hold.
    """
    written: dict[str, str] = {}
    splits = _splits(snap, proposal, limits, retired, written)
    split_ids = {s.note_id for s in splits}
    moves = _moves(snap, proposal, split_ids)
    moved = {m.note_id: m.target for m in moves}
    before = [s.folder for s in snap.notes.values()]
    after = [
        moved.get(i, s.path.as_posix()).rpartition("/")[0]
        for i, s in snap.notes.items()
        if i not in split_ids
    ] + [w.rpartition("/")[0] for w in written.values()]
    holds, held_before = holding(after), holding(before)
    created = {}
    for folder in sorted(holds - held_before - {""}):
        given = proposal.folders.get(folder) or (kind_summaries or {}).get(folder, "")
        summary = " ".join(given.split())
        if not summary or len(summary) > MAX_SUMMARY_CHARS:
            raise RebalanceError(
                f"folder {folder}/: the plan creates it, so it needs a one-line summary of at "
                f"most {MAX_SUMMARY_CHARS} characters (folders: {{{folder!r}: ...}})"
            )
        created[folder] = summary
    reasons = [f"the plan proposed by the {curator} curator (rebalance.planner)"]
    reasons += [clip(r, 200) for r in proposal.reasons[:MAX_REASONS]]
    return RebalancePlan(
        moves=moves,
        created=created,
        dropped=sorted(f for f in summaries if f in held_before and f not in holds),
        reasons=[s.reason for s in splits] + reasons,
        pinned=list(held),
        splits=splits,
        written=written,
    )


__all__ = ["as_proposal", "build_request", "plan_of"]
