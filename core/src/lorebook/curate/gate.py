"""What curation checks and records around a note it writes: no secret, and no power yet.

A note whose text (its id, which becomes the file name, its frontmatter or its body) fails
``lorebook scan`` is refused before anything is written, so a secret that slipped past
capture's redaction cannot become a committed file. A note curation wrote is recorded as
unreviewed (:mod:`lorebook.reviewstate`) until a person commits or accepts it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from lorebook.kb.store import MarkdownStore
    from lorebook.models.note import Note


def text_secrets(text: str) -> str:
    """Say which lines of ``text`` ``lorebook scan`` flags: "line N" or "lines N, M" ("": none)."""
    from lorebook.capture.redact import find_secrets

    lines = find_secrets(text)
    return ("line " if len(lines) == 1 else "lines ") + ", ".join(map(str, lines)) if lines else ""


def note_secrets(note: Note) -> str:
    """:func:`text_secrets` of the note's whole file text, as it would be written."""
    from lorebook.kb.notes import render_note

    return text_secrets(render_note(note, None))


def mark_unreviewed(store: MarkdownStore, note_id: str) -> None:
    """Record that no person has reviewed the note curation just wrote."""
    from lorebook.reviewstate import mark

    rel = store.locate(note_id)
    if rel is not None:
        mark(str(store.paths.root), {note_id: rel.as_posix()})
