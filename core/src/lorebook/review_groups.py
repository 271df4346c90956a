"""The notes no person has reviewed, grouped by where they came from.

A person reviews what one session, one document, one pack or one harvest proposed together,
so ``lorebook review`` shows (and triages) unreviewed notes in groups, each note with the
evidence it rests on. Where a note came from is what its front matter says
(``lb_derived_from``), read as:

- ``<host>-memory:<file>`` (harvest): ``harvest:<host>-memory``;
- ``<harness>:<session>`` or ``<harness>:<session>:<turn>`` (curation of a session):
  ``session:<harness>:<session>``;
- a path, with an optional ``#anchor`` or ``@digest`` (bootstrap), or ``bootstrap:<path>``:
  ``document:<path>``.

A pack's notes are copied byte for byte, so their front matter names the origins they had
in the pack's own repository; the import records them (:func:`lorebook.reviewstate.written_by`)
and they group as ``pack:<name>``. A note with no origin (dropped into ``nodes/`` by hand or
by an agent's file-write tool) groups as ``hand``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from lorebook.constants import KB_DIRNAME
from lorebook.models.session import session_of

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from lorebook.kb.paths import KBPaths

ORIGIN_KINDS: tuple[str, ...] = ("session", "document", "pack", "harvest", "hand")
"""The kinds of origin, in the order groups are shown."""
QUOTE_CHARS = 300
"""The evidence shown for one note is cut to this many characters."""

_HARVEST = re.compile(r"^([a-z0-9][a-z0-9_-]*-memory):")


def origin_key(derived_from: Sequence[str], written_by: str | None = None) -> str:
    """The group a note belongs to, from its first origin (module docstring).

    >>> origin_key(["claude:5f2c:14"]), origin_key(["AGENTS.md#testing@0a1b2c3d"])
    ('session:claude:5f2c', 'document:AGENTS.md')
    >>> origin_key(["claude-memory:notes.md@0a1b2c3d"]), origin_key([], "pack:team")
    ('harvest:claude-memory', 'pack:team')
    """
    if written_by:
        return written_by
    if not derived_from:
        return "hand"
    first = derived_from[0]
    harvest = _HARVEST.match(first)
    if harvest:
        return f"harvest:{harvest.group(1)}"
    session = session_of(first)
    if session is not None:
        return f"session:{session[0]}:{session[1]}"
    path = first.removeprefix("bootstrap:")
    return f"document:{re.split(r'[#@]', path, maxsplit=1)[0] or path}"


def matches_origin(key: str, wanted: str) -> bool:
    """Whether the group ``key`` is ``wanted``: the same key, or one under it.

    >>> matches_origin("session:claude:5f2c", "session"), matches_origin("pack:a", "pack:ab")
    (True, False)
    """
    return key == wanted or key.startswith(f"{wanted}:")


@dataclass(frozen=True, slots=True)
class PendingNote:
    """One note no person has reviewed, as ``review`` shows it.

    Attributes:
        note_id: The note's id.
        path: Repository-relative POSIX path.
        title: Its title ("" when the file does not parse: ``problem`` says why).
        kind: Its kind.
        origin: Its group (:func:`origin_key`).
        quote: The evidence it rests on: the quote of the proposal it was made from, or the
            first quoted or written line of its body.
        problem: Why the file cannot be read as a note ("" when it can).
    """

    note_id: str
    path: str
    title: str
    kind: str
    origin: str
    quote: str
    problem: str = ""


@dataclass(slots=True)
class OriginGroup:
    """The unreviewed notes of one origin."""

    origin: str
    notes: list[PendingNote] = field(default_factory=list)


def _body_quote(body: str) -> str:
    """The first quoted line of a body, else its first line of text."""
    lines = [line.strip() for line in body.splitlines() if line.strip()]
    quoted = [line.lstrip("> ").strip() for line in lines if line.startswith(">")]
    text = [line for line in lines if not line.startswith("#")]
    return (quoted or text or [""])[0]


def _clip(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= QUOTE_CHARS else flat[: QUOTE_CHARS - 1].rstrip() + "…"


def _session_quotes(paths: KBPaths) -> dict[str, list[str]]:
    """Proposal origin -> its proposals' quotes, from every staged session log.

    One origin may have several: a section of a document, or one prompt, can state more
    than one rule. Unreadable logs are skipped.
    """
    from pydantic import ValidationError

    from lorebook.capture.stage import load_log

    quotes: dict[str, list[str]] = {}
    if not paths.sessions.is_dir():
        return quotes
    for path in sorted(paths.sessions.glob("*.json")):
        try:
            log = load_log(path)
        except (OSError, ValueError, ValidationError):
            continue
        for proposal in log.proposals if log is not None else ():
            found = quotes.setdefault(proposal.origin, [])
            if proposal.quote and proposal.quote not in found:
                found.append(proposal.quote)
    return quotes


def _evidence(candidates: list[str], body: str) -> str | None:
    """The quote, among an origin's, that this note is about: the one its body holds.

    With one candidate, that one; with several and none in the body, none (the body's
    own quote is shown rather than a neighbouring rule's).
    """
    flat = " ".join(body.split())
    held = [q for q in candidates if " ".join(q.split())[:80] in flat]
    if held:
        return held[0]
    return candidates[0] if len(candidates) == 1 else None


def pending_note(
    paths: KBPaths,
    note_id: str,
    rel: str,
    *,
    written_by: str | None = None,
    quotes: dict[str, list[str]] | None = None,
) -> PendingNote:
    """Read the unreviewed note at ``rel`` (under ``nodes/``) as ``review`` shows it."""
    from lorebook.errors import LorebookError
    from lorebook.kb.notes import parse_note, read_note_text

    path = f"{KB_DIRNAME}/nodes/{rel}"
    try:
        note = parse_note(read_note_text(paths.nodes / rel, source=path), source=path)[0]
    except (OSError, LorebookError) as exc:
        problem = getattr(exc, "message", str(exc))
        return PendingNote(note_id, path, "", "", origin_key([], written_by), "", problem)
    found = [_evidence((quotes or {}).get(o, []), note.body) for o in note.derived_from]
    quote = next((q for q in found if q), None) or _body_quote(note.body)
    origin = origin_key(note.derived_from, written_by)
    return PendingNote(note_id, path, note.title, note.kind, origin, _clip(quote))


def pending_notes(paths: KBPaths) -> list[PendingNote]:
    """Every note no person has reviewed, after reconciling the index with the disk."""
    from lorebook import reviewstate
    from lorebook.recall.sync import reconcile

    reconcile(paths)
    kb_root = str(paths.root)
    state = reviewstate.unreviewed(kb_root)
    if not state:
        return []
    writers = reviewstate.written_by(kb_root)
    quotes = _session_quotes(paths)
    return [
        pending_note(paths, i, rel, written_by=writers.get(i), quotes=quotes)
        for i, rel in sorted(state.items(), key=lambda item: item[1])
    ]


def group_by_origin(notes: Iterable[PendingNote]) -> list[OriginGroup]:
    """The notes in groups of one origin: sessions first, then documents, packs, harvests."""
    groups: dict[str, OriginGroup] = {}
    for note in notes:
        groups.setdefault(note.origin, OriginGroup(note.origin)).notes.append(note)

    def order(group: OriginGroup) -> tuple[int, str]:
        kind = group.origin.split(":", 1)[0]
        rank = ORIGIN_KINDS.index(kind) if kind in ORIGIN_KINDS else len(ORIGIN_KINDS)
        return rank, group.origin

    return sorted(groups.values(), key=order)


__all__ = [
    "ORIGIN_KINDS",
    "OriginGroup",
    "PendingNote",
    "group_by_origin",
    "matches_origin",
    "origin_key",
    "pending_note",
    "pending_notes",
]
