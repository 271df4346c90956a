"""Render notes for the model: whole notes, or a pointer, never a clipped prefix."""

from __future__ import annotations

from lorebook.recall.index import IndexedNote

KB_PREFIX = ".lorebook/nodes/"


def whole(note: IndexedNote) -> str:
    """The whole note: title, kind, description, body, and where it lives."""
    head = f"### {note.title} ({note.kind}; {KB_PREFIX}{note.path})"
    body = note.body.strip()
    # A body that already opens with the description (as extracted notes do) says it once.
    parts = [head] if body.startswith(note.description.strip()) else [head, note.description]
    if body:
        parts.append(body)
    return "\n".join(parts)


def pointer(note: IndexedNote) -> str:
    """A one-line pointer to a note that does not fit whole."""
    return f"- {note.title}: {note.description} (read {KB_PREFIX}{note.path})"


def fit(header: str, notes: list[IndexedNote], budget: int) -> tuple[str, list[str]]:
    """Render as many notes as fit in ``budget`` characters; return (text, ids rendered).

    Each note goes in whole if it fits, else as a pointer if that fits, else not at all.
    Returns ("", []) when not even one pointer fits.
    """
    blocks: list[str] = []
    used = len(header)
    ids: list[str] = []
    for note in notes:
        for candidate in (whole(note), pointer(note)):
            cost = len(candidate) + 2
            if used + cost <= budget:
                blocks.append(candidate)
                used += cost
                ids.append(note.id)
                break
    if not blocks:
        return "", []
    return header + "\n\n" + "\n\n".join(blocks), ids
