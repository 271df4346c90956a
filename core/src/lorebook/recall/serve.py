"""The one ranker every surface serves from: the prompt hook, ``lorebook eval`` and recall.

:func:`rank_prompt` is the raw ranking (every note that matches, best first);
:func:`choose` is what the prompt hook injects: the ranking after the relevance decision,
the live-note resolution, the session's already-seen notes and the character budget.
``lorebook eval retrieval`` calls both on the same index the hook reads, so what it
measures is what a session gets.

Runs inside the hook process: standard library and light lorebook modules only.
"""

from __future__ import annotations

import os

from lorebook.inject.render import fit
from lorebook.recall.index import IndexedNote, NoteIndex
from lorebook.recall.tokenize import tokenize

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Collection

    from lorebook.hookconfig import HookConfig

PROMPT_HEADER = (
    "lorebook: notes the team keeps for this project (.lorebook/) that match this "
    "prompt. Follow them unless the user says otherwise."
)


class Candidate:
    """One note as the ranker scored it for a prompt."""

    __slots__ = ("coverage", "id", "score")

    def __init__(self, id: str, score: float, coverage: float) -> None:
        self.id = id
        self.score = score
        self.coverage = coverage

    def __repr__(self) -> str:
        return f"Candidate({self.id!r}, score={self.score:.3f}, coverage={self.coverage:.3f})"


class Served:
    """What :func:`choose` decided for one prompt."""

    __slots__ = ("notes", "ranked", "shown", "text")

    def __init__(
        self, ranked: list[Candidate], notes: list[IndexedNote], text: str, shown: list[str]
    ) -> None:
        self.ranked = ranked
        """The raw ranking, best first."""
        self.notes = notes
        """The notes that passed the relevance decision, in rank order, before the budget."""
        self.text = text
        """The rendered injection ("" when nothing is served)."""
        self.shown = shown
        """Ids of the notes in ``text``, in order (whole or as a pointer)."""


def live_notes(index: NoteIndex, ids: list[str]) -> list[IndexedNote]:
    """Resolve ids to active notes, in order: superseded ones give way to their successors."""
    found = index.get(ids)
    result: dict[str, IndexedNote] = {}
    for note_id in ids:
        note = found.get(note_id)
        if note is None:
            continue
        if note.status == "superseded":
            for succ in index.get(note.superseded_by).values():
                if succ.status == "active":
                    result.setdefault(succ.id, succ)
        elif note.status == "active":
            result.setdefault(note.id, note)
    return list(result.values())


def rank_prompt(index: NoteIndex, prompt: str) -> list[Candidate]:
    """Every note matching ``prompt``, best first (ties by id)."""
    tokens = tokenize(prompt)
    if not tokens:
        return []
    found = index.search_with_coverage(tokens)
    ranked = [Candidate(note_id, s, c) for note_id, (s, c) in found.items()]
    ranked.sort(key=lambda c: (-c.score, c.id))
    return ranked


def relevant(ranked: list[Candidate], config: HookConfig) -> list[Candidate]:
    """The candidates the relevance decision keeps, in rank order."""
    if not ranked:
        return []
    floor = max(config.min_score, config.relative_floor * ranked[0].score)
    return [c for c in ranked if c.score >= floor and c.coverage >= config.min_coverage]


def choose(
    index: NoteIndex, prompt: str, config: HookConfig, seen: Collection[str] = ()
) -> Served:
    """What the prompt hook injects for ``prompt``, given the notes the session has seen."""
    ranked = rank_prompt(index, prompt)
    kept = relevant(ranked, config)
    notes = live_notes(index, [c.id for c in kept[: config.max_notes * 3]])
    fresh = [n for n in notes if n.id not in seen][: config.max_notes]
    text, shown = fit(PROMPT_HEADER, fresh, config.prompt_chars)
    return Served(ranked, fresh, text, shown)


def build_index(path: str, notes: list[IndexedNote]) -> None:
    """Write a new index holding exactly ``notes`` at ``path`` (``lorebook eval`` uses it)."""
    for suffix in ("", "-journal", "-wal", "-shm"):
        if os.path.exists(path + suffix):
            os.remove(path + suffix)
    with NoteIndex(path) as index:
        index.apply(notes)
