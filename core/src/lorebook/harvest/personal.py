"""Memories about the person, into the person's own store (:mod:`lorebook.kb.personal`).

A memory its host's plugin reads as about the person (``MemoryEntry.personal``: "The user
prefers terse answers") is no team knowledge: it is written straight to
the personal store, which is never committed and is read from every repository, not staged
for the team's review. Each becomes one ``convention`` note whose id is
``convention-<slug of its title>`` (as curation mints ids), citing ``<host>-memory:<key>``;
its text is redacted as capture redacts.

A note with that id already there is the same preference (said in another repository, or
harvested before this ledger existed), and so is one under the ``practice-<slug>`` id
harvests gave before: the entry is recorded against it and nothing is written. An edited
memory rewrites the note it became.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lorebook.kb.personal import open_personal_store
from lorebook.models.note import Note
from lorebook.secrets.redact import redact_many
from lorebook.slug import slugify

if TYPE_CHECKING:
    from lorebook.hostkit.memory import MemoryEntry
    from lorebook.kb.store import MarkdownStore


def _note(host: str, entry: MemoryEntry, note_id: str) -> Note:
    title, description, text = redact_many([entry.title, entry.description, entry.text])
    title = " ".join(title.split())
    return Note.model_validate(
        {
            "type": "practice",
            "title": title,
            "description": " ".join(description.split()) or title,
            "tags": ["harvest", f"{host}-memory"],
            "lb_id": note_id,
            "lb_kind": "convention",
            "lb_derived_from": [f"{host}-memory:{entry.key}"],
            "body": text.strip() + "\n",
        }
    )


def personal_note_id(entry: MemoryEntry, prefix: str = "convention") -> str:
    """``convention-<slug of the title>`` (the key's slug when the title gives none).

    ``prefix="practice"`` gives the id harvests minted before ids said the kind.
    """
    return f"{prefix}-{slugify(entry.title) or slugify(entry.key) or 'preference'}"


def keep_personal(host: str, entry: MemoryEntry, earlier: str | None) -> tuple[str, bool]:
    """Write ``entry`` to the personal store; return its note's id and whether it wrote.

    ``earlier`` is the note an earlier text of the same memory became: it is rewritten.
    """
    store: MarkdownStore = open_personal_store()
    if earlier is not None and store.locate(earlier) is not None:
        before = store.get(earlier)
        note = _note(host, entry, earlier)
        origins = [
            *before.derived_from,
            *(o for o in note.derived_from if o not in before.derived_from),
        ]
        store.update(note.model_copy(update={"derived_from": origins}))
        return earlier, True
    note_id = personal_note_id(entry)
    for kept in (note_id, personal_note_id(entry, "practice")):
        if store.locate(kept) is not None:
            return kept, False  # the same preference, kept already
    store.add(_note(host, entry, note_id))
    return note_id, True
