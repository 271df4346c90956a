"""``lorebook rebalance``: plan, validate and apply the rebalance, crash-safely.

One run, under the knowledge base lock:

1. finishes the moves of an interrupted run (its journal is still there);
2. reads every note (a note lorebook cannot read, or two files with one id, stop it with
   nothing written), the open conflicts (their targets never move) and the summaries;
3. plans the note splits (:mod:`lorebook.rebalance.notesplit`), then the folders on the
   tree with each split note replaced by its parts (:mod:`lorebook.rebalance.plan`), then
   validates the plan against the tree as it was read before the first write: every
   source is where the note was read, no target exists, no two writes share a target, no
   new id is in use or retired, no split note is the target of an open conflict, every
   folder passes the path validator and no symbolic link is on the way; and the tree the
   plan leaves has nothing left for the trigger to do;
4. when that plan is not empty and ``rebalance.planner`` names a curator, asks it for a
   plan instead (:mod:`lorebook.rebalance.proposal`) and validates that one the same way;
   a proposal that fails is set aside with one warning line, and the deterministic plan
   is applied;
5. applies the plan (:mod:`lorebook.rebalance.apply`): the journal first, then the parts,
   the redirects, the moves (renames: ids unchanged), the summaries and the generated
   files. A run killed at any point is finished by the next one.

Before applying, the note index is reconciled so that a committed note's review is
recorded by its content, which a rename keeps: a moved note stays reviewed and is served
as before.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import TYPE_CHECKING, Any

from lorebook.curate.base import RebalancePlanner, build_curator
from lorebook.curate.conflicts import list_conflicts
from lorebook.curate.placement import KIND_SUMMARIES
from lorebook.errors import LorebookError
from lorebook.kb.fsutil import kb_lock
from lorebook.kb.index import refuse_broken
from lorebook.kb.paths import KBPaths, resolve_inside, validate_relpath
from lorebook.kb.redirects import load_redirects
from lorebook.kb.store import Snapshot, StoredNote, load_snapshot
from lorebook.kb.summaries import load_summaries
from lorebook.models.rebalance import PlanProposal
from lorebook.rebalance.apply import (
    JOURNAL_NAME,
    apply_journal,
    apply_plan,
    journal_path,
    read_journal,
)
from lorebook.rebalance.notesplit import NoteSplit, plan_note_splits
from lorebook.rebalance.plan import (
    Limits,
    Move,
    RebalanceError,
    RebalancePlan,
    note_path,
    plan_rebalance,
)
from lorebook.rebalance.proposal import build_request, plan_of
from lorebook.recall.sync import reconcile

if TYPE_CHECKING:
    from lorebook.models.config import Config
    from lorebook.plugins import Plugins

DETERMINISTIC = "deterministic"
"""``rebalance.planner``'s default: the trigger's own plan, asked of no curator."""
Planner = Callable[[], RebalancePlanner]
"""Builds the curator that proposes the plan (raising when it cannot be built)."""


@dataclass(slots=True)
class RebalanceReport:
    """What a rebalance run did (or, with ``dry_run``, would do)."""

    plan: RebalancePlan
    dry_run: bool = False
    resumed: list[Move] = field(default_factory=list)
    """Moves of an interrupted run this one finished (or, dry, would finish first)."""
    resumed_splits: list[str] = field(default_factory=list)
    """Ids an interrupted run was splitting, whose split this one finished."""
    warnings: list[str] = field(default_factory=list)
    """One line when the curator's proposed plan was set aside for the deterministic one."""

    def as_json(self) -> dict[str, Any]:
        """The report as ``lorebook rebalance --json`` prints it."""
        return {
            "ok": True,
            "dry_run": self.dry_run,
            "changed": bool(not self.plan.empty or self.resumed or self.resumed_splits)
            and not self.dry_run,
            "resumed": [m.as_json() for m in self.resumed],
            "resumed_splits": self.resumed_splits,
            **self.plan.as_json(),
            "warnings": self.warnings,
        }


def open_conflict_targets(paths: KBPaths) -> frozenset[str]:
    """Ids of the notes an open conflict is about (they never move).

    Raises:
        RebalanceError: a conflict file cannot be read (its target is then unknown).
    """
    listing = list_conflicts(paths)
    if listing.problems:
        raise RebalanceError(
            "cannot tell which notes open conflicts are about, so nothing was moved:\n  "
            + "\n  ".join(listing.problems),
            hint="fix or decide these conflict files (`lorebook conflict list`), then run again",
        )
    return frozenset(c.conflict.target_id for c in listing.conflicts)


def _with_parts(notes: dict[str, StoredNote], splits: list[NoteSplit]) -> dict[str, StoredNote]:
    """The notes with each split note replaced by its parts, in the split note's folder."""
    out = dict(notes)
    for split in splits:
        folder = out.pop(split.note_id).folder
        for part in split.parts:
            out[part.id] = StoredNote(part, PurePosixPath(note_path(folder, part.id)), None)
    return dict(sorted(out.items()))


def _fold_splits(plan: RebalancePlan, splits: list[NoteSplit], held: list[str]) -> None:
    """Where each part is written (a part is written in place, never moved) and why."""
    created = {p.id for s in splits for p in s.parts}
    landing = {m.note_id: m.target for m in plan.moves if m.note_id in created}
    plan.moves = [m for m in plan.moves if m.note_id not in created]
    for split in splits:
        folder = split.source.rpartition("/")[0]
        for part in split.parts:
            plan.written[part.id] = landing.get(part.id, note_path(folder, part.id))
    plan.splits = splits
    plan.reasons = [s.reason for s in splits] + plan.reasons
    plan.pinned = sorted(set(plan.pinned) | set(held))


def compute_plan(
    paths: KBPaths,
    snap: Snapshot,
    limits: Limits,
    planner: Planner | None = None,
    warnings: list[str] | None = None,
) -> RebalancePlan:
    """Plan the rebalance of the notes ``snap`` read, and validate it (nothing is written).

    With ``planner``, a non-empty plan is offered to that curator as a draft and its
    proposal used when it validates; otherwise one line goes to ``warnings``.
    """
    refuse_broken(snap)
    pinned = open_conflict_targets(paths)
    summaries = load_summaries(paths)
    retired = load_redirects(paths)
    splits, held = plan_note_splits(
        snap.notes, limits.split_note_chars, pinned=pinned, retired=retired
    )
    notes = _with_parts(snap.notes, splits)
    tags = {note_id: tuple(stored.note.tags) for note_id, stored in notes.items()}
    plan = plan_rebalance(
        notes, tags, summaries, limits, pinned=pinned, kind_summaries=dict(KIND_SUMMARIES)
    )
    _fold_splits(plan, splits, held)
    _check(paths, snap, plan, summaries, limits, pinned, retired)
    if planner is None or plan.empty:
        return plan
    try:
        curator = planner()
        name = curator.name
        proposal = curator.propose_rebalance(build_request(snap, summaries, limits, pinned, plan))
        if not isinstance(proposal, PlanProposal):
            raise RebalanceError(f"it answered a {type(proposal).__name__}, not a PlanProposal")
        proposed = plan_of(proposal, snap, summaries, limits, retired, curator=name,
                           held=plan.pinned, kind_summaries=KIND_SUMMARIES)  # fmt: skip
        _check(paths, snap, proposed, summaries, limits, pinned, retired, settle=True)
    except Exception as exc:  # a planner that fails never stops the rebalance
        said = exc.message if isinstance(exc, LorebookError) else f"{type(exc).__name__}: {exc}"
        said = " ".join(said.split())
        said = said if len(said) <= 300 else said[:299] + "…"
        if warnings is not None:
            warnings.append(
                f"rebalance.planner: the curator's plan was not used ({said}); the "
                "deterministic plan was"
            )
        return plan
    return proposed


def _check(
    paths: KBPaths,
    snap: Snapshot,
    plan: RebalancePlan,
    summaries: dict[str, str],
    limits: Limits,
    pinned: frozenset[str],
    retired: dict[str, list[str]],
    *,
    settle: bool = False,
) -> None:
    """Validate ``plan`` against the tree, then check the trigger has nothing left to do.

    ``settle``: check the tree it leaves even when the plan is empty (a curator's plan must
    do what the trigger found to do).
    """
    validate_plan(paths, snap, plan, pinned, retired)
    if not plan.empty or settle:
        again = _after(snap, plan, summaries, limits, pinned)
        if again:
            raise RebalanceError(
                "the rebalance plan does not settle; nothing was written: the tree it leaves "
                "would be changed again: " + "; ".join(again[:3]),
                hint="report this with the output of `lorebook rebalance --dry-run --json`",
            )


def _check_splits(
    paths: KBPaths,
    snap: Snapshot,
    plan: RebalancePlan,
    pinned: frozenset[str],
    retired: dict[str, list[str]],
    files: set[str],
    targets: dict[str, str],
) -> list[str]:
    """What keeps a split of the plan from being done (``targets`` gets each part's path)."""
    problems: list[str] = []
    for split in plan.splits:
        stored = snap.notes.get(split.note_id)
        if stored is None or stored.path.as_posix() != split.source:
            problems.append(f"{split.note_id}: no note at nodes/{split.source}")
        elif split.note_id in pinned:
            problems.append(f"{split.note_id}: the target of an open conflict is never split")
        for part in split.parts:
            target = plan.written.get(part.id, "")
            if part.id in snap.notes or part.id in retired:
                problems.append(f"{split.note_id}: the new id {part.id!r} is taken")
            elif target.rpartition("/")[2] != f"{part.id}.md":
                problems.append(f"{part.id}: nodes/{target} is not named by its id")
            elif target in files or target in targets:
                other = targets.get(target, "a file already there")
                problems.append(f"{part.id}: nodes/{target} is taken ({other})")
            else:
                targets[target] = part.id
                try:
                    resolve_inside(paths.nodes, validate_relpath(target, what="note path"),
                                   what="note path")  # fmt: skip
                except LorebookError as exc:
                    problems.append(f"{part.id}: {exc.message}")
    return problems


def validate_plan(
    paths: KBPaths,
    snap: Snapshot,
    plan: RebalancePlan,
    pinned: frozenset[str],
    retired: dict[str, list[str]] | None = None,
) -> None:
    """Check every split and move against the tree on disk before the first write.

    Raises:
        RebalanceError: naming each split or move that cannot be done; nothing was written.
    """
    files = set(snap.by_path) | set(snap.failed)
    targets: dict[str, str] = {}
    problems = _check_splits(paths, snap, plan, pinned, retired or {}, files, targets)
    for move in plan.moves:
        stored = snap.notes.get(move.note_id)
        folder = move.target.rpartition("/")[0]
        if stored is None or stored.path.as_posix() != move.source:
            problems.append(f"{move.note_id}: no note at nodes/{move.source}")
        elif move.note_id in pinned:
            problems.append(f"{move.note_id}: the target of an open conflict never moves")
        elif move.target.rpartition("/")[2] != f"{move.note_id}.md":
            problems.append(f"{move.note_id}: nodes/{move.target} is not named by its id")
        elif move.target in files or move.target in targets:
            other = targets.get(move.target, "a file already there")
            problems.append(f"{move.note_id}: nodes/{move.target} is taken ({other})")
        else:
            targets[move.target] = move.note_id
            try:
                if folder:
                    validate_relpath(folder, what="folder")
                resolve_inside(paths.nodes, validate_relpath(move.target, what="note path"),
                               what="note path")  # fmt: skip
            except LorebookError as exc:
                problems.append(f"{move.note_id}: {exc.message}")
    if problems:
        raise RebalanceError(
            "the rebalance plan cannot be applied; nothing was written:\n  " + "\n  ".join(problems)
        )


def _after(
    snap: Snapshot,
    plan: RebalancePlan,
    summaries: dict[str, str],
    limits: Limits,
    pinned: frozenset[str],
) -> list[str]:
    """The trigger run again on the tree the plan leaves: what it would still do."""
    moved = {m.note_id: m.target for m in plan.moves}
    retired = {s.note_id for s in plan.splits}
    after = {
        i: StoredNote(s.note, PurePosixPath(moved[i]), s.links) if i in moved else s
        for i, s in snap.notes.items()
        if i not in retired
    }
    for split in plan.splits:
        for part in split.parts:
            after[part.id] = StoredNote(part, PurePosixPath(plan.written[part.id]), None)
    splits, _ = plan_note_splits(after, limits.split_note_chars, pinned=pinned)
    tags = {note_id: tuple(stored.note.tags) for note_id, stored in after.items()}
    kept = {f: s for f, s in summaries.items() if f not in plan.dropped}
    again = plan_rebalance(after, tags, {**kept, **plan.created}, limits, pinned=pinned)
    return [s.reason for s in splits] + again.reasons


def planner_of(
    paths: KBPaths, config: Config, name: str, plugins: Plugins | None = None
) -> Planner:
    """What builds the curator ``name`` as a planner (raising when it cannot plan)."""

    def build() -> RebalancePlanner:
        from lorebook.plugins import get_plugins

        host = get_plugins() if plugins is None else plugins
        curator = build_curator(host.curator(name), config=config, paths=paths, plugins=host)
        if not isinstance(curator, RebalancePlanner):
            raise RebalanceError(f"the {name} curator proposes no plan (no propose_rebalance)")
        return curator

    return build


def run_rebalance(
    paths: KBPaths,
    config: Config,
    *,
    dry_run: bool = False,
    planner: str | None = None,
    plugins: Plugins | None = None,
) -> RebalanceReport:
    """Finish an interrupted run, then plan, validate and apply the rebalance.

    With ``dry_run`` nothing is written (not even the note index): the plan is returned.
    ``planner`` (default ``rebalance.planner``) is ``deterministic`` or the name of the
    curator asked to propose the plan.

    Raises:
        RebalanceError: the plan cannot be made or applied (nothing of it was written).
        LorebookError: unreadable notes or conflict files (nothing was written).
    """
    limits = Limits.of(config.rebalance)
    budget = config.budgets.entry_chars
    name = config.rebalance.planner if planner is None else planner
    asked = None if name == DETERMINISTIC else planner_of(paths, config, name, plugins)
    warnings: list[str] = []
    with kb_lock(paths.lock):
        resumed: list[Move] = []
        resumed_splits: list[str] = []
        unfinished = read_journal(paths)
        if unfinished is not None:
            resumed, resumed_splits = unfinished[0], [s.note_id for s in unfinished[3]]
            if not dry_run:
                apply_journal(paths, *unfinished, budget)
        snap = load_snapshot(paths)
        if unfinished is not None and dry_run:
            report = RebalanceReport(RebalancePlan(), dry_run=True, resumed=resumed,
                                     resumed_splits=resumed_splits)  # fmt: skip
            return report  # the tree is mid-run: the plan is made once it is finished
        plan = compute_plan(paths, snap, limits, asked, warnings)
        if not dry_run and not plan.empty:
            reconcile(paths)  # records the reviews of committed notes, by content, first
            apply_plan(paths, plan, budget)
    if not dry_run and (resumed or resumed_splits or not plan.empty):
        reconcile(paths)
    return RebalanceReport(plan, dry_run=dry_run, resumed=resumed, resumed_splits=resumed_splits,
                           warnings=warnings)  # fmt: skip


__all__ = [
    "DETERMINISTIC",
    "JOURNAL_NAME",
    "Planner",
    "RebalanceReport",
    "compute_plan",
    "journal_path",
    "open_conflict_targets",
    "planner_of",
    "run_rebalance",
    "validate_plan",
]
