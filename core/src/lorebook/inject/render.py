"""Render notes for the model: whole notes, or a pointer, never a clipped prefix.

A whole note is one heading (its title, kind and path) followed by its text: the body's
own headings become bold lines, so nothing is a heading nested under the note's heading,
and a body line (quoted or not) that repeats the title or the description's first line is
said once, and so is a description that the title or the body says.
"""

from __future__ import annotations

from lorebook.inject.marks import errata_lines, location, recheck
from lorebook.inject.sanitize import sanitize
from lorebook.recall.index import IndexedNote
from lorebook.reviewstate import LABEL, is_unreviewed
from lorebook.saying import plain, says, says_title, within

KB_PREFIX = ".lorebook/nodes/"
POINTER_HEADER = (
    "lorebook: this project's notes that may bear on this, one line each "
    "(read a note only if it helps with what the user asked):"
)
MORE_HEADER = "lorebook: more of" + POINTER_HEADER.removeprefix("lorebook:")
"""The pointers' header after whole notes ("more of this project's notes ...")."""


def _heading(line: str) -> str | None:
    """The text of a markdown ATX heading line (``## Text``), or None."""
    stripped = line.lstrip(" ")
    level = len(stripped) - len(stripped.lstrip("#"))
    if 1 <= level <= 6 and len(line) - len(stripped) <= 3:
        rest = stripped[level:]
        if not rest or rest[0] in " \t":
            return rest.strip().rstrip("#").strip()
    return None


def body_lines(note: IndexedNote) -> list[str]:
    """The body as served whole: no heading (outside code), no repeat of title or lead.

    A heading that repeats the note's title is dropped; any other becomes a bold line. A
    line that repeats the title or the description's first line is dropped. Fenced code is
    kept as it is.
    """
    said = {plain(note.title)}
    lead = note.description.strip().splitlines()[0] if note.description.strip() else ""
    if lead:
        said.add(plain(lead))
    out: list[str] = []
    fence = ""
    for line in note.body.strip().splitlines():
        mark = line.lstrip()[:3]
        if mark in ("```", "~~~"):
            fence = "" if fence == mark else fence or mark
            out.append(line)
            continue
        if fence:
            out.append(line)
            continue
        if plain(line) and plain(line) in said:
            continue
        text = _heading(line)
        out.append(line if text is None else (f"**{text}**" if text else ""))
    while out and not out[0].strip():
        out.pop(0)
    return out


def unsaid_description(note: IndexedNote, *texts: str) -> str:
    """The note's description, or "" when its title or one of ``texts`` already says it."""
    described = note.description.strip()
    if not described or plain(described) == plain(note.title):
        return ""
    return "" if any(says(text, described) for text in texts) else described


def whole(note: IndexedNote) -> str:
    """The whole note: one heading (title, kind, path), its marks, description, body, errata."""
    parts = [f"### {note.title} ({note.kind}; {location(note)})"]
    if is_unreviewed(note):
        parts.append(f"({LABEL})")
    mark = recheck(note)
    if mark:
        parts.append(mark)
    body = "\n".join(body_lines(note)).strip()
    # A description the title or the body already says (as extracted notes and document
    # notes do) is not said again.
    if described := unsaid_description(note, body):
        parts.append(described)
    if body:
        parts.append(body)
    return sanitize("\n".join([*parts, *errata_lines(note)]))


def pointer(note: IndexedNote, *, labelled: bool = True) -> str:
    """A one-line pointer: title, description, path (its label, mark and errata kept).

    Under a heading that says its notes are unreviewed, ``labelled`` False leaves out the
    label each line would otherwise repeat.

    A description that says the title stands for both: the line says it once. It says it when
    it opens with it (an extracted note's title used to be its sentence, cut) or holds every
    word of it (the rule stated from the quote: "Always run the tests with uv run pytest here"
    from "We always run the tests with `uv run pytest` here: ...").
    """
    label = LABEL if labelled and is_unreviewed(note) else ""
    lines = [label, recheck(note), *errata_lines(note)]
    extra = "".join(f" [{line}]" for line in lines if line)
    said = note.description.rstrip().rstrip(":")  # a lead-in's colon: what follows is in it
    if within(said, note.title):
        said = note.title  # the title says all the description does ("its trigger" named)
    elif not says_title(said, note.title):
        said = f"{note.title}: {said}"
    return sanitize(f"- {said} (read {location(note)}){extra}")


def _quoted(block: str) -> set[str]:
    """The quoted lines of a whole note as rendered (its body's), spacing and case aside."""
    return {
        " ".join(line.lstrip("> ").split()).casefold()
        for line in block.splitlines()
        if line.startswith(">") and line.strip("> ")
    }


class Layout:
    """Notes laid out within a budget: the text, and which notes went whole or as pointers.

    Attributes:
        text: What the model reads ("" when not even one pointer fits).
        ids: The notes in ``text``, in rank order: a prefix of the notes given.
        whole: For each of ``ids``, whether it was rendered whole (else a pointer).
    """

    __slots__ = ("ids", "text", "whole")

    def __init__(self, text: str, ids: list[str], whole: list[bool]) -> None:
        self.text = text
        self.ids = ids
        self.whole = whole


def layout(header: str, notes: list[IndexedNote], budget: int) -> Layout:
    """Render notes in rank order within ``budget`` characters.

    A note whose ``whole`` attribute is true (a plain indexed note counts as true) goes
    whole under ``header``; the others go as pointers under :data:`POINTER_HEADER` (or
    :data:`MORE_HEADER` after whole notes). Once a whole note does not fit, it and every
    later note is a pointer, so the budget never reorders the ranking: a small note never
    jumps ahead of a better one that was too long.
    A pointer that does not fit ends the list: the notes after it are left out.
    """
    wholes: list[str] = []
    pointers: list[str] = []
    ids: list[str] = []
    done: list[bool] = []
    used = 0
    whole_ok = True
    quoted: set[str] = set()
    for note in notes:
        block = whole(note) if whole_ok and getattr(note, "whole", True) else ""
        quotes = _quoted(block)
        # A note whose every quote a note above already gave whole (two notes of one
        # paragraph) is a pointer: the model would read the same words twice.
        if block and not (quotes and quotes <= quoted):
            cost = len(block) + 2 + (0 if wholes else len(header) + 2)
            if used + cost <= budget:
                quoted |= quotes
                wholes.append(block)
                ids.append(note.id)
                done.append(True)
                used += cost
                continue
            whole_ok = False
        line = pointer(note)
        cost = len(line) + 1 + (0 if pointers else len(MORE_HEADER) + 2)
        if used + cost > budget:
            break
        pointers.append(line)
        ids.append(note.id)
        done.append(False)
        used += cost
    sections = [header + "\n\n" + "\n\n".join(wholes)] if wholes else []
    if pointers:
        sections.append((MORE_HEADER if wholes else POINTER_HEADER) + "\n" + "\n".join(pointers))
    return Layout("\n\n".join(sections), ids, done)
