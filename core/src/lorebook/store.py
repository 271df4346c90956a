"""The note store contract every store plugin implements (and the contract suite tests)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal, Protocol, runtime_checkable

from lorebook.errors import LorebookError
from lorebook.models.note import Note


class NoteNotFoundError(LorebookError):
    """No note with this id in the store."""

    def __init__(self, note_id: str) -> None:
        super().__init__(f"no note with id {note_id!r}", hint="`lorebook note list` shows the ids")
        self.note_id = note_id


class NoteExistsError(LorebookError):
    """A note with this id is already in the store."""


@runtime_checkable
class NoteStore(Protocol):
    """A place notes live. Ids are unique within a store; writes are atomic."""

    name: str

    def add(self, note: Note, *, folder: str | None = None) -> str:
        """Store a new note and return where it went (store-specific, e.g. a path).

        Raises:
            NoteExistsError: a note with ``note.id`` exists already (nothing is written).
        """
        ...

    def update(self, note: Note) -> None:
        """Replace the note with the same id, keeping its location.

        Raises:
            NoteNotFoundError: no note has ``note.id``.
        """
        ...

    def get(self, note_id: str) -> Note:
        """Return the note with this id.

        Raises:
            NoteNotFoundError: no note has this id.
        """
        ...

    def remove(self, note_id: str) -> None:
        """Delete the note with this id.

        Raises:
            NoteNotFoundError: no note has this id.
        """
        ...

    def ids(self) -> list[str]:
        """Return every note id, sorted."""
        ...

    def iter_notes(self) -> Iterator[Note]:
        """Yield every note, in id order."""
        ...


@dataclass(frozen=True, slots=True)
class StoreHealth:
    """What a store that keeps its notes elsewhere says about reaching them.

    Optional part of the contract: a store may provide ``health() -> StoreHealth``;
    ``lorebook doctor`` shows it as one check (``state`` as doctor's: ``problem`` makes it
    exit 1). Never called on the hook path.
    """

    state: Literal["ok", "warning", "problem"]
    detail: str
    fix: str | None = None


def store_health(store: NoteStore) -> StoreHealth | None:
    """The store's own health check, or None when it provides none (a file-backed store).

    A check that raises is a ``problem`` naming the error, never a traceback.
    """
    method = getattr(store, "health", None)
    if not callable(method):
        return None
    try:
        health = method()
    except Exception as exc:  # a plugin's bug must not break doctor
        return StoreHealth("problem", f"its health check failed: {type(exc).__name__}: {exc}")
    if not isinstance(health, StoreHealth):
        return StoreHealth("problem", f"its health check returned {type(health).__name__}")
    return health
