"""Applying a rebalance plan crash-safely: the journal, the splits, the moves, the rest.

:func:`apply_plan` writes the journal (``.state/rebalance-journal.json``, per machine, with
the text of every part), writes the parts, records each retired id in
``nodes/.redirects.json``, removes the split notes, renames each note into its folder (its
bytes and id unchanged), writes the summaries of the folders created, rebuilds the
generated files, removes the folders emptied, then deletes the journal. A run killed at any
point is finished by the next (:func:`read_journal`, then :func:`apply_journal`): a part
whose file holds its text has landed, as has a move whose target is there and source is
gone; the rest are done again.
"""

from __future__ import annotations

import contextlib
import json
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from lorebook.kb.fsutil import atomic_write_text
from lorebook.kb.index import plan_rebuild, refuse_broken, write_plan
from lorebook.kb.notes import read_note_text, render_note
from lorebook.kb.paths import KBPaths, resolve_inside, validate_relpath
from lorebook.kb.redirects import load_redirects, write_redirects
from lorebook.kb.store import content_hash, load_snapshot
from lorebook.kb.summaries import load_summaries, render_summaries
from lorebook.rebalance.plan import Move, RebalanceError, RebalancePlan

if TYPE_CHECKING:
    from pathlib import Path

    from lorebook.rebalance.notesplit import NoteSplit

JOURNAL_NAME = "rebalance-journal.json"


def journal_path(paths: KBPaths) -> Path:
    """Where the journal of a run in progress lives."""
    return paths.state / JOURNAL_NAME


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


def write_journal(paths: KBPaths, plan: RebalancePlan) -> list[SplitWrite]:
    """Record ``plan`` before its first write; return its splits as the journal keeps them."""
    splits = [SplitWrite.of(s, plan.written) for s in plan.splits]
    doc = {
        "moves": [m.as_json() for m in plan.moves],
        "created": plan.created,
        "dropped": plan.dropped,
        "splits": [s.as_json() for s in splits],
    }
    atomic_write_text(journal_path(paths), json.dumps(doc, indent=1, sort_keys=True) + "\n")
    return splits


def read_journal(paths: KBPaths) -> Journal | None:
    """The journal of an interrupted run, or None when there is none.

    Raises:
        RebalanceError: the journal cannot be read (naming it and what to do).
    """
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


def apply_journal(paths: KBPaths, moves: list[Move], created: dict[str, str], dropped: list[str],
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


def apply_plan(paths: KBPaths, plan: RebalancePlan, budget: int) -> None:
    """Write the journal of ``plan``, then land it (see the module docstring)."""
    splits = write_journal(paths, plan)
    apply_journal(paths, plan.moves, plan.created, plan.dropped, splits, budget)


__all__ = [
    "JOURNAL_NAME",
    "Journal",
    "SplitWrite",
    "apply_journal",
    "apply_plan",
    "journal_path",
    "move_file",
    "read_journal",
    "write_journal",
    "write_part",
]
