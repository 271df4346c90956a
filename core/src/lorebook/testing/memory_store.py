"""An in-memory note store: for tests, and as the smallest example of the store contract."""

from __future__ import annotations

import threading
from collections.abc import Iterator

from lorebook.kb.paths import validate_relpath
from lorebook.models.note import Note
from lorebook.store import NoteExistsError, NoteNotFoundError


class MemoryStore:
    """Notes in a dict, guarded by a lock; nothing touches disk."""

    name = "memory"

    def __init__(self) -> None:
        self._notes: dict[str, tuple[str, Note]] = {}
        self._lock = threading.Lock()

    def add(self, note: Note, *, folder: str | None = None) -> str:
        """Store a new note; fail if the id exists."""
        folder = note.kind if folder is None else folder.rstrip("/")
        if folder:
            validate_relpath(folder, what="folder")
        with self._lock:
            if note.id in self._notes:
                raise NoteExistsError(f"a note with id {note.id!r} exists already")
            self._notes[note.id] = (folder, note)
        return f"{folder}/{note.id}" if folder else note.id

    def update(self, note: Note) -> None:
        """Replace a note, keeping its folder."""
        with self._lock:
            if note.id not in self._notes:
                raise NoteNotFoundError(note.id)
            self._notes[note.id] = (self._notes[note.id][0], note)

    def get(self, note_id: str) -> Note:
        """Return a note by id."""
        try:
            return self._notes[note_id][1]
        except KeyError:
            raise NoteNotFoundError(note_id) from None

    def remove(self, note_id: str) -> None:
        """Delete a note by id."""
        with self._lock:
            if self._notes.pop(note_id, None) is None:
                raise NoteNotFoundError(note_id)

    def ids(self) -> list[str]:
        """Return every id, sorted."""
        return sorted(self._notes)

    def iter_notes(self) -> Iterator[Note]:
        """Yield every note in id order."""
        for note_id in self.ids():
            yield self._notes[note_id][1]
