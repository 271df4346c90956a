"""The notes curation writes.

A proposal made a note, a near-duplicate merged into one, an accepted conflict rewritten.
Where a new note goes is :mod:`lorebook.curate.placement`.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Sequence
from typing import Any

from lorebook.curate.text import adds_something
from lorebook.kb.notes import parse_note, render_note
from lorebook.models.note import MAX_ID_LENGTH, Anchors, Note
from lorebook.models.session import Proposal
from lorebook.slug import title_slug


def canonical(note: Note) -> tuple[Note, str]:
    """The note as it reads back from disk, and the sha256 of its text (links excluded).

    Raises:
        NoteFormatError: the note cannot be written and read back (the message says why).
    """
    text = render_note(note, None)
    return parse_note(text, source=f"note {note.id}")[0], content_digest(note)


def content_digest(note: Note) -> str:
    """sha256 of the note's file text without its link section."""
    return hashlib.sha256(render_note(note, None).encode("utf-8")).hexdigest()


def new_note_id(kind: str, title: str, taken: Iterable[str]) -> str:
    """``<kind>-<slug of title>``, with ``-2``, ``-3`` ... when the id is taken.

    The id says what the note is (``prohibition-never-push-to-main``), not only its type:
    every kind's id said ``practice-`` before, a prohibition's too.
    """
    used = set(taken)
    base = f"{kind}-{title_slug(title)}"
    candidate, n = base, 1
    while candidate in used:
        n += 1
        suffix = f"-{n}"
        candidate = base[: MAX_ID_LENGTH - len(suffix)].rstrip("-") + suffix
    return candidate


def _body_of(proposal: Proposal) -> str:
    body = proposal.body.strip()
    return body or "> " + " ".join(proposal.quote.split())


def note_from_proposal(proposal: Proposal, note_id: str) -> Note:
    """A new note saying what the proposal says, derived from the proposal's origin."""
    return Note.model_validate(
        {
            "type": proposal.type,
            "title": proposal.title,
            "description": proposal.description,
            "tags": list(dict.fromkeys(proposal.tags)),
            "lb_id": note_id,
            "lb_kind": proposal.kind,
            "lb_derived_from": [proposal.origin],
            "lb_anchors": proposal.anchors.model_dump(),
            "lb_dependencies": [d.model_dump() for d in proposal.dependencies],
            "body": _body_of(proposal),
        }
    )


def _union(first: Sequence[str], second: Sequence[str]) -> list[str]:
    return list(dict.fromkeys([*first, *second]))


def merged_anchors(first: Anchors, second: Anchors) -> Anchors:
    """Every anchor of both, first ones first, without repeats."""
    return Anchors(
        files=_union(first.files, second.files),
        tools=_union(first.tools, second.tools),
        errors=_union(first.errors, second.errors),
        commands=_union(first.commands, second.commands),
    )


_PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n")


def merge_duplicate(target: Note, proposal: Proposal) -> Note:
    """Fold a near-duplicate proposal into ``target``: same id, title and claim.

    The proposal's origin is appended to ``lb_derived_from``, its new tags and anchors are
    added, and its body is appended when it says something the note's body does not. A
    paragraph the body already holds is not repeated: a rule two documents state in the same
    words keeps one quote and gains the line that says where else it is said.
    """
    body = target.body.strip("\n")
    extra = proposal.body.strip()
    held = {" ".join(p.split()) for p in _PARAGRAPH_BREAK.split(body)}
    fresh = "\n\n".join(
        p.strip()
        for p in _PARAGRAPH_BREAK.split(extra)
        if p.strip() and " ".join(p.split()) not in held
    )
    if fresh and (fresh != extra or adds_something(extra, body)):
        body = f"{body}\n\n{fresh}" if body else fresh
    update: dict[str, Any] = {
        "derived_from": _union(target.derived_from, [proposal.origin]),
        "tags": _union(target.tags, proposal.tags),
        "anchors": merged_anchors(target.anchors, proposal.anchors),
        "body": body,
    }
    return Note.model_validate({**target.model_dump(), **update})


def claim_dependencies(proposal: Proposal) -> list[Any]:
    """The dependencies the new claim itself declares (none when the proposal has none)."""
    return list(proposal.dependencies)


def accepted_rewrite(target: Note, proposal: Proposal, note_id: str | None = None) -> Note:
    """The target rewritten to say what an accepted contradicting proposal says.

    Kept from the target: type, status, confidence, edges, other tools' keys, and every
    origin (the proposal's is appended); its id too, unless ``note_id`` gives the new one
    (see :func:`accepted_id`). Taken from the proposal: title, description, kind, tags,
    anchors, body, and its dependencies only, so an old justification never carries over to
    a claim it did not support; ``lb_enforce`` is reset to ``none``, because a policy
    enforced for the old claim was not decided for the new one.
    """
    data = target.model_dump()
    data.update(
        id=note_id or target.id,
        title=proposal.title,
        description=proposal.description,
        kind=proposal.kind,
        tags=list(dict.fromkeys(proposal.tags)),
        anchors=proposal.anchors.model_dump(),
        body=_body_of(proposal),
        derived_from=_union(target.derived_from, [proposal.origin]),
        dependencies=claim_dependencies(proposal),
        enforce="none",
    )
    return Note.model_validate(data)


def accepted_id(target: Note, proposal: Proposal, taken: Iterable[str]) -> str:
    """The id of ``target`` once an accepted proposal has rewritten it.

    An id made of the old title (``<kind or type>-<slug of title>``, ``-2`` ... included)
    says the old meaning once the title says the opposite: it becomes the id curation would
    mint for the new title (:func:`new_note_id`). An id a person chose, or one whose title
    words do not change, is kept, unless it starts with a kind the note no longer has.
    ``taken`` holds the ids in use, the retired ones included.
    """
    old_slug = title_slug(target.title)
    prefixes = (f"{target.type}-", f"{proposal.kind}-")
    valid = target.id.startswith(prefixes)
    derived = bool(old_slug) and any(
        target.id == f"{start}{old_slug}"
        or (target.id.startswith(f"{start}{old_slug}-") and target.id.rpartition("-")[2].isdigit())
        for start in (f"{target.type}-", f"{target.kind}-")
    )
    if valid and (not derived or title_slug(proposal.title) == old_slug):
        return target.id
    return new_note_id(proposal.kind, proposal.title, set(taken) - {target.id})


__all__ = [
    "accepted_id",
    "accepted_rewrite",
    "canonical",
    "claim_dependencies",
    "content_digest",
    "merge_duplicate",
    "merged_anchors",
    "new_note_id",
    "note_from_proposal",
]
