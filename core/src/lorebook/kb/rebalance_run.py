"""``lorebook rebalance``: apply the plan of :mod:`lorebook.kb.rebalance`, crash-safely.

One run, under the knowledge base lock:

1. finishes the moves of an interrupted run (its journal is still there);
2. reads every note (a note lorebook cannot read, or two files with one id, stop it with
   nothing written), the open conflicts (their targets never move) and the summaries;
3. plans the note splits (:mod:`lorebook.kb.notesplit`), then the folders on the tree with
   each split note replaced by its parts, then validates the plan against the tree as it
   was read before the first write: every source is where the note was read, no target
   exists, no two writes share a target, no new id is in use or retired, no split note is
   the target of an open conflict, every folder passes the path validator and no symbolic
   link is on the way; and the tree the plan leaves has nothing left for the trigger to do;
4. writes the journal (``.state/rebalance-journal.json``, per machine, with the text of
   every part), writes the parts, records each retired id in ``nodes/.redirects.json``,
   removes the split notes, renames each note into its folder (its bytes and id unchanged;
   links resolve by id, and the link sections the moves change are regenerated), writes
   the summaries of the folders it created, rebuilds the generated files, removes the
   folders it emptied, then deletes the journal.

A run killed at any point is finished by the next one: a part whose file holds its text
has landed, as has a move whose target is there and source is gone; the rest are done
again. Before planning, the note index is
reconciled so that a committed note's review is recorded by its content, which a rename
keeps: a moved note stays reviewed and is served as before.
"""

from __future__ import annotations

import contextlib
import json
import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from lorebook.errors import LorebookError
from lorebook.kb.fsutil import atomic_write_text, kb_lock
from lorebook.kb.index import plan_rebuild, refuse_broken, write_plan
from lorebook.kb.notes import read_note_text, render_note
from lorebook.kb.notesplit import NoteSplit, plan_note_splits
from lorebook.kb.paths import KBPaths, resolve_inside, validate_relpath
from lorebook.kb.rebalance import (
    Limits,
    Move,
    RebalanceError,
    RebalancePlan,
    note_path,
    plan_rebalance,
)
from lorebook.kb.redirects import load_redirects, write_redirects
from lorebook.kb.store import Snapshot, StoredNote, content_hash, load_snapshot
from lorebook.kb.summaries import load_summaries, render_summaries

if TYPE_CHECKING:
    from pathlib import Path

    from lorebook.models.config import Config

JOURNAL_NAME = "rebalance-journal.json"


@dataclass(slots=True)
class RebalanceReport:
    """What a rebalance run did (or, with ``dry_run``, would do)."""

    plan: RebalancePlan
    dry_run: bool = False
    resumed: list[Move] = field(default_factory=list)
    """Moves of an interrupted run this one finished (or, dry, would finish first)."""
    resumed_splits: list[str] = field(default_factory=list)
    """Ids an interrupted run was splitting, whose split this one finished."""

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
        }


def journal_path(paths: KBPaths) -> Path:
    """Where the journal of a run in progress lives."""
    return paths.state / JOURNAL_NAME


def open_conflict_targets(paths: KBPaths) -> frozenset[str]:
    """Ids of the notes an open conflict is about (they never move).

    Raises:
        RebalanceError: a conflict file cannot be read (its target is then unknown).
    """
    # Conflict files are curation's; reading them here is the one reach upward.
    from lorebook.curate.conflicts import list_conflicts

    listing = list_conflicts(paths)
    if listing.problems:
        raise RebalanceError(
            "cannot tell which notes open conflicts are about, so nothing was moved:\n  "
            + "\n  ".join(listing.problems),
            hint="fix or decide these conflict files (`lorebook conflict list`), then run again",
        )
    return frozenset(c.conflict.target_id for c in listing.conflicts)


def _kind_summaries() -> dict[str, str]:
    # The summary curation gives a kind's folder: the same words whoever creates it.
    from lorebook.curate.placement import KIND_SUMMARIES

    return dict(KIND_SUMMARIES)


def _with_parts(notes: dict[str, StoredNote], splits: list[NoteSplit]) -> dict[str, StoredNote]:
    """The notes with each split note replaced by its parts, in the split note's folder."""
    from pathlib import PurePosixPath

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


def compute_plan(paths: KBPaths, snap: Snapshot, limits: Limits) -> RebalancePlan:
    """Plan the rebalance of the notes ``snap`` read, and validate it (nothing is written)."""
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
        notes, tags, summaries, limits, pinned=pinned, kind_summaries=_kind_summaries()
    )
    _fold_splits(plan, splits, held)
    validate_plan(paths, snap, plan, pinned, retired)
    if not plan.empty:
        again = _after(snap, plan, tags, summaries, limits, pinned)
        if again:
            raise RebalanceError(
                "the rebalance plan does not settle; nothing was written: the tree it leaves "
                "would be changed again: " + "; ".join(again[:3]),
                hint="report this with the output of `lorebook rebalance --dry-run --json`",
            )
    return plan


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
    tags: dict[str, tuple[str, ...]],
    summaries: dict[str, str],
    limits: Limits,
    pinned: frozenset[str],
) -> list[str]:
    """The trigger run again on the tree the plan leaves: what it would still do (a bug)."""
    from pathlib import PurePosixPath

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
    kept = {f: s for f, s in summaries.items() if f not in plan.dropped}
    again = plan_rebalance(after, tags, {**kept, **plan.created}, limits, pinned=pinned)
    return [s.reason for s in splits] + again.reasons


# --- applying ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SplitWrite:
    """One split as the journal keeps it: the note retired and each part's path and text."""

    note_id: str
    source: str
    parts: tuple[tuple[str, str, str], ...]
    """(id, path under nodes/, file text) of each new note."""

    @classmethod
    def of(cls, split: NoteSplit, written: dict[str, str]) -> SplitWrite:
        """The writes of ``split``, each part at the path the plan gives it."""
        parts = tuple((p.id, written[p.id], render_note(p, None)) for p in split.parts)
        return cls(split.note_id, split.source, parts)

    def as_json(self) -> dict[str, Any]:
        """The split as the journal stores it."""
        return {
            "id": self.note_id,
            "from": self.source,
            "parts": [{"id": i, "path": p, "text": t} for i, p, t in self.parts],
        }


Journal = tuple[list[Move], dict[str, str], list[str], list[SplitWrite]]


def _write_journal(paths: KBPaths, plan: RebalancePlan) -> list[SplitWrite]:
    splits = [SplitWrite.of(s, plan.written) for s in plan.splits]
    doc = {
        "moves": [m.as_json() for m in plan.moves],
        "created": plan.created,
        "dropped": plan.dropped,
        "splits": [s.as_json() for s in splits],
    }
    atomic_write_text(journal_path(paths), json.dumps(doc, indent=1, sort_keys=True) + "\n")
    return splits


def _read_journal(paths: KBPaths) -> Journal | None:
    path = journal_path(paths)
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
        moves = [Move(m["id"], m["from"], m["to"]) for m in doc["moves"]]
        created = {str(k): str(v) for k, v in doc["created"].items()}
        dropped = [str(f) for f in doc["dropped"]]
        splits = [
            SplitWrite(
                str(s["id"]),
                str(s["from"]),
                tuple((str(p["id"]), str(p["path"]), str(p["text"])) for p in s["parts"]),
            )
            for s in doc.get("splits", [])
        ]
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise RebalanceError(
            f"{paths.rel(path)}: the journal of an interrupted rebalance cannot be read ({exc})",
            hint=f"delete {paths.rel(path)}, run `lorebook lint`, then `lorebook rebalance`",
        ) from None
    return moves, created, dropped, splits


def write_part(target: Path, text: str) -> None:
    """Write one note a split creates (a separate function so tests can interrupt a run)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(target, text)


def _apply_splits(paths: KBPaths, splits: list[SplitWrite]) -> None:
    """Write every part, record the retired ids in the ledger, then remove the split notes.

    Each step is checked before it is done, so a run killed anywhere is finished by the next:
    a part whose file holds its text (link section aside) has landed.
    """
    if not splits:
        return
    for split in splits:
        for part_id, rel, text in split.parts:
            target = resolve_inside(paths.nodes, validate_relpath(rel, what="note path"),
                                    what="note path")  # fmt: skip
            if target.exists():
                label = paths.rel(target)
                if content_hash(read_note_text(target, source=label)) == content_hash(text):
                    continue  # landed before the interruption
                raise RebalanceError(
                    f"{part_id}: {label} exists with other content; the split of "
                    f"{split.note_id} cannot write it",
                    hint="move that file away, then run `lorebook rebalance` again",
                )
            write_part(target, text)
    ledger = load_redirects(paths)
    wanted = dict(ledger)
    for split in splits:
        wanted[split.note_id] = sorted(i for i, _, _ in split.parts)
    if wanted != ledger:
        write_redirects(paths, wanted)
    for split in splits:
        source = resolve_inside(paths.nodes, validate_relpath(split.source, what="note path"),
                                what="note path")  # fmt: skip
        source.unlink(missing_ok=True)


def move_file(source: Path, target: Path) -> None:
    """Rename one note file (a separate function so tests can interrupt a run)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    os.replace(source, target)


def _apply_moves(paths: KBPaths, moves: list[Move]) -> None:
    for move in moves:
        source = resolve_inside(paths.nodes, validate_relpath(move.source, what="note path"),
                                what="note path")  # fmt: skip
        target = resolve_inside(paths.nodes, validate_relpath(move.target, what="note path"),
                                what="note path")  # fmt: skip
        if target.exists() and not source.exists():
            continue  # landed before the interruption
        if target.exists():
            raise RebalanceError(
                f"{move.note_id}: both nodes/{move.source} and nodes/{move.target} exist",
                hint="keep one of the two files, then run `lorebook rebalance` again",
            )
        if not source.exists():
            raise RebalanceError(f"{move.note_id}: nodes/{move.source} is gone")
        move_file(source, target)


def _prune_empty(paths: KBPaths, moves: list[Move], splits: list[SplitWrite]) -> None:
    """Remove the folders the moves left with nothing in them (deepest first)."""
    folders: set[str] = set()
    for source in [m.source for m in moves] + [s.source for s in splits]:
        folder = source.rpartition("/")[0]
        while folder:
            folders.add(folder)
            folder = folder.rpartition("/")[0]
    for folder in sorted(folders, key=lambda f: (-f.count("/"), f)):
        with contextlib.suppress(OSError):  # not empty: a note or a person's file is there
            (paths.nodes / folder).rmdir()


def _apply(paths: KBPaths, moves: list[Move], created: dict[str, str], dropped: list[str],
           splits: list[SplitWrite], budget: int) -> None:  # fmt: skip
    """Land every split and move, the summaries and the generated files; delete the journal."""
    _apply_splits(paths, splits)
    _apply_moves(paths, moves)
    summaries = load_summaries(paths)
    wanted = {f: s for f, s in summaries.items() if f not in dropped}
    wanted.update({f: s for f, s in created.items() if f not in summaries})
    if wanted != summaries:
        atomic_write_text(paths.summaries, render_summaries(wanted))
    snap = load_snapshot(paths)
    refuse_broken(snap)
    write_plan(paths, plan_rebuild(paths, snap, budget))
    _prune_empty(paths, moves, splits)
    journal_path(paths).unlink(missing_ok=True)


def run_rebalance(paths: KBPaths, config: Config, *, dry_run: bool = False) -> RebalanceReport:
    """Finish an interrupted run, then plan, validate and apply the rebalance.

    With ``dry_run`` nothing is written (not even the note index): the plan is returned.

    Raises:
        RebalanceError: the plan cannot be made or applied (nothing of it was written).
        LorebookError: unreadable notes or conflict files (nothing was written).
    """
    limits = Limits.of(config.rebalance)
    budget = config.budgets.entry_chars
    from lorebook.recall.sync import reconcile

    with kb_lock(paths.lock):
        resumed: list[Move] = []
        resumed_splits: list[str] = []
        unfinished = _read_journal(paths)
        if unfinished is not None:
            resumed, resumed_splits = unfinished[0], [s.note_id for s in unfinished[3]]
            if not dry_run:
                _apply(paths, *unfinished, budget)
        snap = load_snapshot(paths)
        if unfinished is not None and dry_run:
            report = RebalanceReport(RebalancePlan(), dry_run=True, resumed=resumed,
                                     resumed_splits=resumed_splits)  # fmt: skip
            return report  # the tree is mid-run: the plan is made once it is finished
        plan = compute_plan(paths, snap, limits)
        if not dry_run and not plan.empty:
            reconcile(paths)  # records the reviews of committed notes, by content, first
            splits = _write_journal(paths, plan)
            _apply(paths, plan.moves, plan.created, plan.dropped, splits, budget)
    if not dry_run and (resumed or resumed_splits or not plan.empty):
        reconcile(paths)
    return RebalanceReport(plan, dry_run=dry_run, resumed=resumed, resumed_splits=resumed_splits)


__all__ = [
    "JOURNAL_NAME",
    "RebalanceReport",
    "compute_plan",
    "journal_path",
    "move_file",
    "open_conflict_targets",
    "run_rebalance",
    "validate_plan",
    "write_part",
]
