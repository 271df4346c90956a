"""Splitting an over-large note that holds several concepts (part of ``lorebook rebalance``).

A note is split when all of these hold:

- it is active (a superseded or refuted note is a record, kept whole);
- its body is longer than ``rebalance.split_note_chars`` characters;
- it is not the target of an open conflict (such a note is held, and named);
- its ``## `` sections (outside code fences) fall into two or more concepts.

Concepts: each section's terms are the words of its heading and text (three letters or
more, no stop word, no word of how rules are said, no word every section of the note
holds). Two sections are one concept when they share at least :data:`SPLIT_LINK` of their
terms (Jaccard); the concepts are the connected groups of that relation, in the order of
their first section. A section of fewer than :data:`MIN_TERMS` terms belongs with the
section before it (the first with the one after): a short example is not a concept.

Each concept becomes a note of its own: the sections of the concept (the text before the
first heading goes with the first), the title ``<title>: <first heading>``, the original
description with the headings it covers, and every other field of the original (kind,
tags, origins, edges, anchors, dependencies, errata). Its id is the original's followed by
the slug of its first heading, made unique. The original's id is retired: the redirects
ledger maps it to the new ids, so a link to it still resolves.

A part is one concept by construction (its sections are a connected group, and a group's
sections stay connected on their own), so a second run does not split it again. Nothing
here depends on time, hash seed, locale or installed extras.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

from lorebook.kb.store import StoredNote
from lorebook.models.note import MAX_ID_LENGTH, Note
from lorebook.rebalance.terms import RULE_WORDS, WORD_RE
from lorebook.slug import slugify
from lorebook.stopwords import STOPWORDS

SPLIT_LINK = 0.1
"""Two sections sharing at least this share of their terms (Jaccard) are one concept."""
MIN_TERMS = 4
"""A section with fewer terms than this goes with its neighbour: it is no concept alone."""
_HEADING_RE = re.compile(r"^## +(\S.*?)\s*#*\s*$")
_FENCE_RE = re.compile(r"^\s{0,3}(```|~~~)")


@dataclass(frozen=True, slots=True)
class Section:
    """One ``## `` section of a note's body: its heading and its text (heading included)."""

    heading: str
    text: str


@dataclass(frozen=True, slots=True)
class NoteSplit:
    """One note retired into the notes of its concepts."""

    note_id: str
    source: str
    """Where the note is, under ``nodes/``."""
    parts: tuple[Note, ...]
    reason: str

    def as_json(self, where: Mapping[str, str]) -> dict[str, Any]:
        """The split as ``--json`` prints it (``where``: part id -> its path under nodes/)."""
        return {
            "id": self.note_id,
            "from": self.source,
            "into": [
                {"id": p.id, "path": where.get(p.id, ""), "title": p.title} for p in self.parts
            ],
            "reason": self.reason,
        }


def sections(body: str) -> tuple[str, list[Section]]:
    """The text before the first ``## `` heading, and each section (fences respected)."""
    preamble: list[str] = []
    found: list[tuple[str, list[str]]] = []
    fence: str | None = None
    for line in body.split("\n"):
        opened = _FENCE_RE.match(line)
        if opened and (fence is None or opened.group(1) == fence):
            fence = opened.group(1) if fence is None else None
        elif fence is None and (heading := _HEADING_RE.match(line)):
            found.append((heading.group(1), [line]))
            continue
        (found[-1][1] if found else preamble).append(line)
    return (
        "\n".join(preamble).strip("\n"),
        [Section(h, "\n".join(lines).strip("\n")) for h, lines in found],
    )


def _terms(text: str) -> set[str]:
    return {
        w
        for w in WORD_RE.findall(text.casefold())
        if len(w) >= 3 and w not in STOPWORDS and w not in RULE_WORDS
    }


def concepts(parts: list[Section]) -> list[list[int]]:
    """The sections grouped into concepts (see the module docstring), by first section."""
    count = len(parts)
    terms = [_terms(s.text) for s in parts]
    if count >= 3:  # a word every section holds is the note's subject, not a concept's
        common = set.intersection(*terms)
        terms = [t - common for t in terms]
    parent = list(range(count))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    def join(i: int, j: int) -> None:
        a, b = root(i), root(j)
        parent[max(a, b)] = min(a, b)

    for i in range(count):
        if len(terms[i]) < MIN_TERMS and count > 1:
            join(i, i - 1 if i else 1)
    for i in range(count):
        for j in range(i + 1, count):
            shared = len(terms[i] & terms[j])
            union = len(terms[i] | terms[j])
            if union and shared / union >= SPLIT_LINK:
                join(i, j)
    groups: dict[int, list[int]] = {}
    for i in range(count):
        groups.setdefault(root(i), []).append(i)
    return sorted(groups.values(), key=lambda g: g[0])


def _clip(text: str, size: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= size else text[: size - 1].rstrip() + "…"


def _part_id(note_id: str, heading: str, taken: set[str]) -> str:
    slug = slugify(heading, limit=40) or "part"
    base = f"{note_id}-{slug}"[:MAX_ID_LENGTH].rstrip("-")
    candidate, n = base, 1
    while candidate in taken:
        n += 1
        suffix = f"-{n}"
        candidate = base[: MAX_ID_LENGTH - len(suffix)].rstrip("-") + suffix
    taken.add(candidate)
    return candidate


def _part(note: Note, part_id: str, preamble: str, chosen: list[Section]) -> Note:
    headings = [s.heading for s in chosen]
    body = "\n\n".join([preamble, *(s.text for s in chosen)] if preamble else
                       [s.text for s in chosen])  # fmt: skip
    fields = note.model_dump(by_alias=True)
    fields.update(
        {
            "lb_id": part_id,
            "title": _clip(f"{note.title}: {headings[0]}", 200),
            "description": _clip(f"{note.description} (on {', '.join(headings)})", 500),
            "body": body,
        }
    )
    return Note.model_validate(fields)


def build_parts(note: Note, groups: list[list[int]], taken: set[str]) -> tuple[Note, ...]:
    """The notes of ``note`` taking the sections of each group (indexes into its sections).

    The text before the first heading goes with the first group. ``taken`` holds every id in
    use; the new ids are added to it.
    """
    preamble, found = sections(note.body)
    parts = []
    for number, group in enumerate(groups):
        chosen = [found[i] for i in group]
        part_id = _part_id(note.id, chosen[0].heading, taken)
        parts.append(_part(note, part_id, preamble if number == 0 else "", chosen))
    return tuple(parts)


def split_note(note: Note, max_chars: int, taken: set[str]) -> tuple[tuple[Note, ...], str]:
    """The notes ``note`` splits into and why, or ``((), "")`` when it stays whole.

    ``taken`` holds every id in use (notes and retired ids); the new ids are added to it.
    """
    if max_chars <= 0 or note.status != "active" or len(note.body) <= max_chars:
        return (), ""
    _, found = sections(note.body)
    groups = concepts(found) if len(found) >= 2 else []
    if len(groups) < 2:
        return (), ""
    parts = build_parts(note, groups, taken)
    named = " | ".join(" + ".join(repr(found[i].heading) for i in g) for g in groups)
    reason = (
        f"{note.id}: body {len(note.body):,} characters (split_note_chars {max_chars:,}), "
        f"{len(found)} sections in {len(groups)} concepts sharing under "
        f"{SPLIT_LINK:.0%} of their terms: {named} -> {', '.join(p.id for p in parts)}"
    )
    return parts, reason


def plan_note_splits(
    notes: Mapping[str, StoredNote],
    max_chars: int,
    *,
    pinned: Collection[str] = (),
    retired: Collection[str] = (),
) -> tuple[list[NoteSplit], list[str]]:
    """Every note to split, in id order, and the pinned notes that would have been split."""
    taken = set(notes) | set(retired)
    splits: list[NoteSplit] = []
    held: list[str] = []
    for note_id, stored in sorted(notes.items()):
        if note_id in pinned:
            if split_note(stored.note, max_chars, set(taken))[0]:
                held.append(note_id)
            continue
        parts, reason = split_note(stored.note, max_chars, taken)
        if parts:
            splits.append(NoteSplit(note_id, stored.path.as_posix(), parts, reason))
    return splits, held


__all__ = [
    "MIN_TERMS",
    "SPLIT_LINK",
    "NoteSplit",
    "Section",
    "build_parts",
    "concepts",
    "plan_note_splits",
    "sections",
    "split_note",
]
