"""Render notes for the model: whole notes, or a pointer, never a clipped prefix."""

from __future__ import annotations

from lorebook.inject.marks import errata_lines, location, recheck
from lorebook.inject.sanitize import sanitize
from lorebook.recall.index import IndexedNote
from lorebook.reviewstate import LABEL, is_unreviewed

KB_PREFIX = ".lorebook/nodes/"


def whole(note: IndexedNote) -> str:
    """The whole note: title, kind, where it lives, its recheck mark, body, then errata."""
    head = f"### {note.title} ({note.kind}; {location(note)})"
    mark = recheck(note)
    body = note.body.strip()
    parts = [head, mark] if mark else [head]
    # A body that already opens with the description (as extracted notes do) says it once.
    if not body.startswith(note.description.strip()):
        parts.append(note.description)
    if body:
        parts.append(body)
    if is_unreviewed(note):
        parts.insert(1, f"({LABEL})")
    return sanitize("\n".join([*parts, *errata_lines(note)]))


def pointer(note: IndexedNote) -> str:
    """A one-line pointer to a note that does not fit whole (its mark and errata kept)."""
    lines = [LABEL if is_unreviewed(note) else "", recheck(note), *errata_lines(note)]
    extra = "".join(f" [{line}]" for line in lines if line)
    return sanitize(f"- {note.title}: {note.description} (read {location(note)}){extra}")


def fit(header: str, notes: list[IndexedNote], budget: int) -> tuple[str, list[str]]:
    """Render notes in rank order within ``budget`` characters; return (text, ids rendered).

    Notes go in whole until one does not fit; from then on that note and every later one
    is a pointer (title, description, path), so the budget never reorders the ranking: a
    small note never jumps ahead of a better one that was too long. A pointer that does
    not fit ends the list. Returns ("", []) when not even one pointer fits.
    """
    blocks: list[str] = []
    used = len(header)
    ids: list[str] = []
    whole_ok = True
    for note in notes:
        candidate = whole(note) if whole_ok else pointer(note)
        if whole_ok and used + len(candidate) + 2 > budget:
            whole_ok = False
            candidate = pointer(note)
        if used + len(candidate) + 2 > budget:
            break
        blocks.append(candidate)
        used += len(candidate) + 2
        ids.append(note.id)
    if not blocks:
        return "", []
    return header + "\n\n" + "\n\n".join(blocks), ids
