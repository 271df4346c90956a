"""The rebalance plan: which notes move to which folder so every folder stays navigable.

A deterministic, hysteresis-gated trigger looks at each folder of ``nodes/`` (the notes
directly in it, the length of its ``index.md``) and decides, round after round on a
simulated tree until nothing changes:

1. a note at the top level of ``nodes/`` (homeless) gets the folder of its kind;
2. a branch below the top level holding fewer than ``min_notes`` notes, with no subfolder,
   is merged into its parent, when the parent then stays within ``max_notes`` and
   ``max_index_chars``;
3. a folder holding more than ``max_notes`` notes directly, or whose index.md would pass
   ``max_index_chars``, is split: its notes are grouped by the tags, source documents and
   title words they share, the strongest topic first (a tag counts three times a word, a
   document twice; a term more than half the folder shares is no topic), each group of at
   least ``max(min_notes, max_notes // 8)`` notes going to a subfolder named after it; what
   no topic holds stays, unless still too many, then it is cut by title into alphabetical
   parts.

Hysteresis: a split makes subfolders of ``min_notes`` or more (never merged back) and a
merge keeps the parent within both limits (never split again), so a second run finds
nothing to do. Vectors are not used: the plan must not depend on whether the semantic
extra is installed, and words and tags are the same on every machine. Every input is
sorted by code point; nothing depends on time, hash seed or locale. A note that is the
target of an open conflict (``pinned``) never moves. Ids never change: a move is a rename
of ``<id>.md`` into another folder.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import TYPE_CHECKING, Any

from lorebook.errors import LorebookError
from lorebook.kb.index import Tree, render_folder_index
from lorebook.rebalance.terms import (
    RULE_WORDS,
    SOURCE_WEIGHT,
    TAG_WEIGHT,
    clip,
    features,
    folder_name,
)
from lorebook.stopwords import STOPWORDS

if TYPE_CHECKING:
    from lorebook.kb.catalog import NoteView, StoredView
    from lorebook.models.config import Rebalance
    from lorebook.rebalance.notesplit import NoteSplit

MAX_ROUNDS = 10_000
"""Rounds of the trigger on the simulated tree (one split or merge each); a plan needing
more, or coming back to a tree it had before, is a bug, refused."""


class RebalanceError(LorebookError):
    """A rebalance that cannot be planned or applied (the message names what and why)."""


@dataclass(frozen=True, slots=True)
class Limits:
    """The trigger's thresholds (``rebalance`` in config.yaml)."""

    max_notes: int = 40
    min_notes: int = 3
    max_index_chars: int = 12_000
    split_note_chars: int = 6000

    @classmethod
    def of(cls, config: Rebalance) -> Limits:
        """The limits config.yaml sets."""
        return cls(
            config.max_notes, config.min_notes, config.max_index_chars, config.split_note_chars
        )

    @property
    def least_group(self) -> int:
        """The fewest notes a split puts in a new subfolder."""
        return max(self.min_notes, self.max_notes // 8)


@dataclass(frozen=True, slots=True)
class Move:
    """One note renamed into another folder (paths under ``nodes/``)."""

    note_id: str
    source: str
    target: str

    def as_json(self) -> dict[str, str]:
        """The move as ``--json`` prints it."""
        return {"id": self.note_id, "from": self.source, "to": self.target}


@dataclass(slots=True)
class RebalancePlan:
    """What a rebalance does: moves, summaries of the folders it creates, why."""

    moves: list[Move] = field(default_factory=list)
    created: dict[str, str] = field(default_factory=dict)
    """Folder -> one-line summary, for each folder the plan creates."""
    dropped: list[str] = field(default_factory=list)
    """Folders the plan empties whose summary goes."""
    reasons: list[str] = field(default_factory=list)
    """One line for each decision the trigger took."""
    pinned: list[str] = field(default_factory=list)
    """Notes of a folder the trigger acted on, or notes it would have split, that stay, being
    the target of an open conflict."""
    splits: list[NoteSplit] = field(default_factory=list)
    """Over-large notes of several concepts retired into one note per concept."""
    written: dict[str, str] = field(default_factory=dict)
    """Id of each note a split creates -> its path under ``nodes/``."""

    @property
    def empty(self) -> bool:
        """True when nothing moves and no note is split."""
        return not self.moves and not self.splits

    def as_json(self) -> dict[str, Any]:
        """The plan as ``--json`` prints it."""
        return {
            "splits": [s.as_json(self.written) for s in self.splits],
            "moves": [m.as_json() for m in self.moves],
            "folders_created": dict(sorted(self.created.items())),
            "summaries_dropped": self.dropped,
            "reasons": self.reasons,
            "pinned": self.pinned,
        }


@dataclass(slots=True)
class _Placed:
    """A note where the simulation has it (what the index renderer reads of a note)."""

    note: NoteView
    path: PurePosixPath
    links: str | None = None

    @property
    def folder(self) -> str:
        parent = self.path.parent.as_posix()
        return "" if parent == "." else parent


@dataclass(slots=True)
class _View:
    """The simulated notes as the index renderer reads them."""

    notes: dict[str, _Placed]
    hashes: dict[str, str] = field(default_factory=dict)

    def locate(self, note_id: str) -> PurePosixPath | None:
        placed = self.notes.get(note_id)
        return None if placed is None else placed.path


def note_path(folder: str, note_id: str) -> str:
    """The path under ``nodes/`` of note ``note_id`` in ``folder``."""
    return f"{folder}/{note_id}.md" if folder else f"{note_id}.md"


class _Sim:
    """The tree as the plan reshapes it, one note at a time."""

    def __init__(
        self,
        notes: Mapping[str, StoredView],
        tags: Mapping[str, tuple[str, ...]],
        summaries: Mapping[str, str],
        pinned: frozenset[str],
        limits: Limits,
        kind_summaries: Mapping[str, str],
    ) -> None:
        self.notes = {note_id: stored.note for note_id, stored in sorted(notes.items())}
        self.where = {note_id: stored.folder for note_id, stored in sorted(notes.items())}
        self.origin = dict(self.where)
        self.tags = tags
        self.summaries = dict(summaries)
        self.created: dict[str, str] = {}
        self.pinned = pinned
        self.limits = limits
        self.kind_summaries = kind_summaries
        self.reasons: list[str] = []
        self.held: set[str] = set()

    def view(self) -> _View:
        return _View(
            {
                i: _Placed(n, PurePosixPath(note_path(self.where[i], i)))
                for i, n in self.notes.items()
            }
        )

    def tree(self) -> tuple[Tree, _View]:
        view = self.view()
        return Tree.build(view.notes.values()), view

    def index_chars(self, folder: str, tree: Tree, view: _View) -> int:
        return len(render_folder_index(folder, tree, self.summaries, view))

    def move(self, note_id: str, folder: str, summary: str | None = None) -> None:
        exists = any(f == folder or f.startswith(folder + "/") for f in self.where.values())
        if not exists and summary and folder not in self.summaries:
            self.summaries[folder] = self.created[folder] = summary
        self.where[note_id] = folder

    # --- the three decisions ------------------------------------------------------------

    def homeless(self, tree: Tree) -> bool:
        moved = False
        for stored in sorted(tree.notes[""], key=lambda s: s.note.id):
            note = stored.note
            if note.id in self.pinned:
                self.held.add(note.id)
                continue
            self.move(note.id, note.kind, self.kind_summaries.get(note.kind))
            self.reasons.append(
                f"{note.id}: a note at the top level of nodes/ gets a branch: {note.kind}/"
            )
            moved = True
        return moved

    def merges(self) -> bool:
        tree, _ = self.tree()
        candidates = sorted(
            (f for f in tree.folders() if "/" in f and not tree.children[f]),
            key=lambda f: (-f.count("/"), f),
        )
        for folder in candidates:
            ids = [s.note.id for s in tree.notes[folder]]
            if not ids or len(ids) >= self.limits.min_notes or self.pinned.intersection(ids):
                continue
            parent = folder.rpartition("/")[0]
            if len(tree.notes[parent]) + len(ids) > self.limits.max_notes:
                continue
            for note_id in ids:
                self.where[note_id] = parent
            after, view = self.tree()
            if self.index_chars(parent, after, view) > self.limits.max_index_chars:
                for note_id in ids:
                    self.where[note_id] = folder
                continue
            self.reasons.append(
                f"{folder}/: {len(ids)} note(s), fewer than {self.limits.min_notes}: merged "
                f"into {parent}/"
            )
            return True  # one merge a round: the tree it read has changed
        return False

    def over(self, folder: str, tree: Tree, view: _View) -> str | None:
        """Why ``folder`` must be split, or None."""
        count = len(tree.notes[folder])
        if count > self.limits.max_notes:
            return f"{count} notes directly (max_notes {self.limits.max_notes})"
        if count > 1:
            chars = self.index_chars(folder, tree, view)
            if chars > self.limits.max_index_chars:
                most = self.limits.max_index_chars
                return f"index.md {chars:,} characters (max_index_chars {most:,})"
        return None

    def splits(self) -> bool:
        tree, view = self.tree()
        for folder in tree.folders():
            if not folder:
                continue
            why = self.over(folder, tree, view)
            if why is None:
                continue
            ids = [s.note.id for s in tree.listed(folder)]
            movable = [i for i in ids if i not in self.pinned]
            self.held.update(i for i in ids if i in self.pinned)
            if self._split(folder, movable, tree, why):
                return True
        return False

    def _split(self, folder: str, movable: list[str], tree: Tree, why: str) -> bool:
        groups = self._topics(folder, movable)
        children = {c.rpartition("/")[2] for c in tree.children[folder]}
        moved = False
        for name, (members, summary) in groups.items():
            target = f"{folder}/{name}"
            for note_id in members:
                self.move(note_id, target, summary)
            joined = " (joined the existing subfolder)" if name in children else ""
            self.reasons.append(
                f"{folder}/: {why}: {len(members)} notes sharing {name!r} -> {target}/{joined}"
            )
            moved = True
        after, view = self.tree()
        if self.over(folder, after, view) is not None:
            rest = [i for i in movable if self.where[i] == folder]
            moved = self._by_title(folder, rest, why) or moved
        return moved

    def _topics(self, folder: str, movable: list[str]) -> dict[str, tuple[list[str], str]]:
        """Groups of the notes sharing a topic, the strongest first (see the module docstring).

        A term shared by more than half the folder's notes (and more than ``max_notes``) is
        no topic. A term scores its weight times its notes, counted up to ``max_notes``: a
        group larger than a folder holds is split again anyway, so past that size a tag
        still beats a word.
        """
        reserved = set(folder.split("/")) | set(self.kind_summaries) | {"practice", "map"}
        terms = {i: features(self.notes[i], self.tags) for i in movable}
        cap = max(self.limits.max_notes, len(movable) // 2)
        spread: dict[str, int] = {}
        for note_id in movable:
            for term in terms[note_id]:
                spread[term] = spread.get(term, 0) + 1
        left = list(movable)
        groups: dict[str, tuple[list[str], str]] = {}
        most = self.limits.max_notes
        while len(left) >= self.limits.least_group and not (groups and len(left) <= most // 2):
            counts: dict[str, tuple[int, int]] = {}
            for note_id in left:
                for term, weight in terms[note_id].items():
                    count, best = counts.get(term, (0, 0))
                    counts[term] = (count + 1, max(best, weight))
            eligible = [
                (-min(count, most) * weight, -weight, -count, term)
                for term, (count, weight) in counts.items()
                if term not in reserved and term not in groups and count >= self.limits.least_group
                and spread[term] <= cap and spread[term] < len(movable)
            ]  # fmt: skip
            if not eligible:
                break
            _, negative_weight, _, term = min(eligible)
            members = [i for i in left if term in terms[i]]
            left = [i for i in left if term not in terms[i]]
            groups[term] = (members, self._summary(term, -negative_weight, members))
        return groups

    def _summary(self, term: str, weight: int, members: list[str]) -> str:
        first = min(members, key=lambda i: (self.notes[i].title.casefold(), i))
        example = clip(self.notes[first].title).replace('"', "'")
        about = {
            TAG_WEIGHT: f"Notes tagged `{term}`",
            SOURCE_WEIGHT: f"Notes from the {term} documents",
        }.get(weight, f"Notes about {term}")
        return f'{about}, such as "{example}".'

    def _by_title(self, folder: str, rest: list[str], why: str) -> bool:
        """Cut what no topic holds into alphabetical parts of at most ``max_notes``."""
        limits = self.limits
        parts = min(max(2, math.ceil(len(rest) / limits.max_notes)), len(rest) // limits.min_notes)
        if parts < 2:
            return False
        ordered = sorted(rest, key=lambda i: (_letters(self.notes[i].title), i))
        chunks = [
            ordered[part * len(ordered) // parts : (part + 1) * len(ordered) // parts]
            for part in range(parts)  # sizes differ by one at most: each holds min_notes or more
        ]
        bounds = _bounds([[self.notes[i].title for i in chunk] for chunk in chunks])
        used: set[str] = set()
        for chunk, (first, last) in zip(chunks, bounds, strict=True):
            name = f"titles-{first}-{last}"
            suffix = 2
            while name in used:
                name, suffix = f"titles-{first}-{last}-{suffix}", suffix + 1
            used.add(name)
            summary = (
                f"Notes titled {first.upper()} to {last.upper()}, past words such as never "
                "or always (cut by title: no topic was shared widely enough)."
            )
            for note_id in chunk:
                self.move(note_id, f"{folder}/{name}", summary)
            self.reasons.append(
                f"{folder}/: {why}: {len(chunk)} notes with no shared topic -> {folder}/{name}/"
            )
        return True


def _said(word: str) -> bool:
    """A word of how rules are said, or a stop word ("Never", "Do", "don't", "the")."""
    bare = word.strip("`'\"*_,.:;!?()").partition("'")[0]
    return bare in RULE_WORDS or bare in STOPWORDS


def _letters(title: str) -> str:
    """The title for ordering by name: lower case, from its first topic word on.

    Past the words of how rules are said and stop words, when a topic follows them: else
    every prohibition is filed under N and D ("titles-a-dono", "titles-n-neve").
    """
    text = title.casefold()
    text = _from_letter(text) or text
    words = text.split(" ")
    at = 0
    while at < len(words) - 1 and _said(words[at]):
        at += 1
    return _from_letter(" ".join(words[at:])) or text


def _from_letter(text: str) -> str | None:
    """``text`` from its first ASCII letter or digit on; None when it has none."""
    return next(
        (text[at:] for at, c in enumerate(text) if "a" <= c <= "z" or "0" <= c <= "9"), None
    )


def _initial(title: str, length: int = 1) -> str:
    """The first ``length`` letters or digits of the title as ordered ("0" when none)."""
    found = "".join(c for c in _letters(title) if "a" <= c <= "z" or "0" <= c <= "9")
    return found[:length] or "0"


def _bounds(parts: list[list[str]]) -> list[tuple[str, str]]:
    """Each part's first and last title, as a dictionary's volumes name them.

    By initial, and by as many letters more as it takes (up to four) that two parts that
    meet do not look to share a name ("a-ke", "ki-w", not "a-k", "k-w").
    """
    bounds = [[_initial(titles[0]), _initial(titles[-1])] for titles in parts]
    for at in range(len(parts) - 1):
        last, first = parts[at][-1], parts[at + 1][0]
        length = 1
        while length < 4 and _initial(last, length) == _initial(first, length):
            length += 1
        bounds[at][1], bounds[at + 1][0] = _initial(last, length), _initial(first, length)
    return [(first, last) for first, last in bounds]


def _rounds(sim: _Sim) -> Iterator[int]:
    seen: set[tuple[str, ...]] = set()
    for number in range(MAX_ROUNDS):
        state = tuple(sim.where.values())
        if state in seen:
            break
        seen.add(state)
        yield number
    raise RebalanceError(
        "the rebalance plan does not settle (it would undo its own moves); nothing was written",
        hint="report this with the output of `lorebook rebalance --dry-run --json`",
    )


def plan_rebalance(
    notes: Mapping[str, StoredView],
    tags: Mapping[str, tuple[str, ...]],
    summaries: Mapping[str, str],
    limits: Limits,
    *,
    pinned: frozenset[str] = frozenset(),
    kind_summaries: Mapping[str, str] | None = None,
) -> RebalancePlan:
    """Run the trigger on a simulated tree until nothing changes; return the moves.

    Args:
        notes: Every note by id with where it lives (a Snapshot's or a Catalog's).
        tags: Each note's tags by id (the catalog keeps none).
        summaries: FOLDER_SUMMARIES.md as it is.
        limits: The thresholds.
        pinned: Ids that never move (targets of open conflicts).
        kind_summaries: The summary of a kind's folder, when the plan creates it.
    """
    sim = _Sim(notes, tags, summaries, pinned, limits, kind_summaries or {})
    for _ in _rounds(sim):
        tree, _view = sim.tree()
        if not (sim.homeless(tree) or sim.merges() or sim.splits()):
            break
    plan = RebalancePlan(reasons=sim.reasons, pinned=sorted(sim.held))
    plan.moves = [
        Move(i, note_path(sim.origin[i], i), note_path(sim.where[i], i))
        for i in sim.notes
        if sim.where[i] != sim.origin[i]
    ]
    holds, held = holding(sim.where.values()), holding(sim.origin.values())
    plan.created = {f: s for f, s in sorted(sim.created.items()) if f in holds}
    plan.dropped = sorted(f for f in summaries if f in held and f not in holds)
    return plan


def holding(folders: Iterable[str]) -> set[str]:
    """Every folder holding a note, directly or below."""
    found = set(folders)
    return found | {"/".join(f.split("/")[:n]) for f in found for n in range(1, f.count("/") + 1)}


__all__ = [
    "Limits",
    "Move",
    "RebalanceError",
    "RebalancePlan",
    "folder_name",
    "holding",
    "note_path",
    "plan_rebalance",
]
