"""The curator contract, the curator a run uses, and the view of the notes curators read.

A curator turns pending proposals into one batch of actions (add / modify / contradict /
drop); it never writes. The ``curate`` pipeline hook receives the configured curator as
its ``curator`` argument; the built-in implementation runs it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from lorebook.errors import LorebookError

if TYPE_CHECKING:
    from lorebook.kb.paths import KBPaths
    from lorebook.models.config import Config
    from lorebook.models.curation import CuratorAction
    from lorebook.models.note import Note
    from lorebook.models.rebalance import PlanProposal, RebalanceRequest
    from lorebook.models.session import Proposal
    from lorebook.plugins import Plugins
    from lorebook.providers import CuratorSpec
    from lorebook.store import NoteStore

DEFAULT_CURATOR = "rules"
"""The curator ``lorebook curate`` uses when ``--curator`` is not given."""


class CurationError(LorebookError):
    """Curation cannot run, or the curator's answer is unusable as a whole (nothing was written)."""


@dataclass(frozen=True, slots=True)
class UnusableAction:
    """An item of a curator's answer that is not a valid action.

    The run holds its proposal back (a drop, and one warning) and writes the rest of the
    batch. :func:`lorebook.curate.validate.parse_batch` makes one of each item it cannot
    validate; an LLM curator makes one of each action its model got wrong.

    Attributes:
        proposal_id: The proposal the item names (None when it names none).
        problem: What is wrong with it, on one line.
    """

    proposal_id: str | None
    problem: str


@runtime_checkable
class Curator(Protocol):
    """Judges proposals against the notes; returns one action per proposal, in order."""

    name: str

    def curate(self, proposals: Sequence[Proposal], store: NoteStore) -> list[CuratorAction]:
        """Return the batch of actions for ``proposals`` (read ``store``, never write it).

        An item the curator could not make valid may be an :class:`UnusableAction` instead
        (the LLM curators do that): the run holds that proposal back and writes the rest.
        """
        ...


@runtime_checkable
class RebalancePlanner(Protocol):
    """A curator that may propose the rebalance plan (``rebalance.planner`` names it).

    Optional: a curator without ``propose_rebalance`` is not asked, and the deterministic
    plan is used. The rebalance (:mod:`lorebook.rebalance.run`) calls it only when the
    deterministic trigger finds work, then validates the proposal against the simulated
    tree exactly like its own plan; a proposal that fails, or an exception, sets it aside
    with one warning line, and the deterministic plan is applied.
    """

    name: str

    def propose_rebalance(self, request: RebalanceRequest) -> PlanProposal:
        """Return the moves, splits and new folders' summaries for ``request`` (read only).

        Raises:
            CurationError: no plan can be given (the deterministic one is used).
        """
        ...


def build_curator(
    spec: CuratorSpec, *, config: Config, paths: KBPaths, plugins: Plugins
) -> Curator:
    """Build a curator from its record, passing the factory what its signature names.

    A factory receives, by keyword, those of ``config``, ``paths`` and ``plugins`` it names
    (all of them if it takes ``**kwargs``), like a hook implementation.

    Raises:
        CurationError: the factory built something that is not a curator.
    """
    from lorebook.hookplugins import call_named

    offered = {"config": config, "paths": paths, "plugins": plugins}
    curator = call_named(spec.factory, offered)
    if not isinstance(curator, Curator):
        raise CurationError(
            f"curator {spec.name!r} built a {type(curator).__name__}, which has no 'name' "
            "and 'curate(proposals, store)'"
        )
    return curator


@dataclass(slots=True)
class KbView:
    """The notes a curator judges against, with their folders; updated as a batch builds.

    Attributes:
        notes: Every readable note by id (any status).
        folders: Note id -> folder under ``nodes/`` ("" at the root).
        origins: Note id -> its ``lb_derived_from`` before this batch.
    """

    notes: dict[str, Note] = field(default_factory=dict)
    folders: dict[str, str] = field(default_factory=dict)
    origins: dict[str, frozenset[str]] = field(default_factory=dict)

    @classmethod
    def from_store(cls, store: NoteStore) -> KbView:
        """Read every note of ``store`` (the markdown store also gives their folders)."""
        from lorebook.kb.store import MarkdownStore, load_snapshot

        view = cls()
        if isinstance(store, MarkdownStore):
            for stored in load_snapshot(store.paths).notes.values():
                view.put(stored.note, stored.folder)
        else:
            for note in store.iter_notes():
                view.put(note, "")
        view.origins = {i: frozenset(n.derived_from) for i, n in view.notes.items()}
        return view

    def copy(self) -> KbView:
        """An independent view of the same notes (a draft batch can grow it freely)."""
        return KbView(dict(self.notes), dict(self.folders), dict(self.origins))

    def put(self, note: Note, folder: str | None = None) -> None:
        """Add or replace a note (``folder`` None keeps the note's current folder)."""
        self.notes[note.id] = note
        if folder is not None or note.id not in self.folders:
            self.folders[note.id] = folder or ""

    def active(self) -> list[Note]:
        """The active notes, in id order (superseded and refuted ones are not judged)."""
        return [self.notes[i] for i in sorted(self.notes) if self.notes[i].status == "active"]

    def by_folder(self) -> dict[str, list[Note]]:
        """Folder -> its notes, folders and notes sorted (the root "" is left out)."""
        out: dict[str, list[Note]] = {}
        for note_id in sorted(self.notes):
            folder = self.folders.get(note_id, "")
            if folder:
                out.setdefault(folder, []).append(self.notes[note_id])
        return dict(sorted(out.items()))


__all__ = [
    "DEFAULT_CURATOR",
    "CurationError",
    "Curator",
    "KbView",
    "RebalancePlanner",
    "UnusableAction",
    "build_curator",
]
