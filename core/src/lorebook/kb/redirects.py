"""The redirects ledger: retired note ids and the ids that replace them.

Stored as ``nodes/.redirects.json`` with one sorted entry per line, so two branches that
each retire an id merge without conflict.
"""

from __future__ import annotations

import json

from lorebook.datafile import DataFileError, parse_json, read_data_text
from lorebook.errors import NoteFormatError
from lorebook.kb.fsutil import atomic_write_text
from lorebook.kb.paths import KBPaths
from lorebook.models.note import ID_RE

MAX_REDIRECTS_BYTES = 4 * 1024 * 1024
"""A ledger larger than this is refused unread (some 50,000 retired ids)."""


def parse_redirects(text: str, *, source: str) -> dict[str, list[str]]:
    """Validate the ledger: a JSON object of note id -> non-empty list of note ids.

    Parsed by :func:`lorebook.datafile.parse_json` (a committed or a pack's ledger is
    untrusted): too large or too deep is a one-line error naming ``source``.
    """
    try:
        data = parse_json(text, source=source, max_bytes=MAX_REDIRECTS_BYTES)
    except DataFileError as exc:
        raise NoteFormatError(exc.message) from None
    if not isinstance(data, dict):
        raise NoteFormatError(f"{source}: expected an object of retired id -> successor ids")
    ledger: dict[str, list[str]] = {}
    for old, new in data.items():
        if not ID_RE.match(old):
            raise NoteFormatError(f"{source}: {old!r} is not a note id")
        if not isinstance(new, list) or not new or not all(isinstance(i, str) for i in new):
            raise NoteFormatError(f"{source}: {old!r} must map to a non-empty list of ids")
        for target in new:
            if not ID_RE.match(target):
                raise NoteFormatError(f"{source}: {old!r} -> {target!r} is not a note id")
        ledger[old] = list(new)
    return ledger


def load_redirects(paths: KBPaths) -> dict[str, list[str]]:
    """Return the ledger (empty when there is none)."""
    source = paths.rel(paths.redirects)
    try:
        text = read_data_text(paths.redirects, max_bytes=MAX_REDIRECTS_BYTES, source=source)
    except FileNotFoundError:
        return {}
    except DataFileError as exc:
        raise NoteFormatError(exc.message) from None
    return parse_redirects(text, source=source)


def render_redirects(ledger: dict[str, list[str]]) -> str:
    """Return the ledger text: one sorted entry per line."""
    if not ledger:
        return "{}\n"
    lines = [f"  {json.dumps(old)}: {json.dumps(sorted(ledger[old]))}" for old in sorted(ledger)]
    return "{\n" + ",\n".join(lines) + "\n}\n"


def write_redirects(paths: KBPaths, ledger: dict[str, list[str]]) -> None:
    """Write the ledger. Callers hold the knowledge base lock."""
    atomic_write_text(paths.redirects, render_redirects(ledger))


def resolve(ledger: dict[str, list[str]], note_id: str, live: set[str]) -> list[str]:
    """Follow retired ids to live successors, transitively; [] when none is live.

    A cycle or a chain that ends in no live note resolves to nothing for that branch.
    """
    found: list[str] = []
    seen: set[str] = set()
    stack = [note_id]
    while stack:
        current = stack.pop()
        if current in seen:
            continue
        seen.add(current)
        if current in live:
            found.append(current)
        elif current in ledger:
            stack.extend(reversed(ledger[current]))
    return sorted(set(found))


def successor(ledger: dict[str, list[str]], note_id: str, live: set[str]) -> str:
    """The one live note a retired id leads to, for a command that changes one note.

    Raises:
        NoteNotFoundError: ``note_id`` is not retired, or leads to no live note (said so).
        LorebookError: it leads to several notes (a split): the message names them.
    """
    from lorebook.errors import LorebookError
    from lorebook.store import NoteNotFoundError

    found = resolve(ledger, note_id, live) if note_id in ledger else []
    if len(found) == 1:
        return found[0]
    if found:
        raise LorebookError(
            f"{note_id!r} was retired; it is now {', '.join(found)}",
            hint="name the one you mean",
        )
    missing = NoteNotFoundError(note_id)
    if note_id in ledger:
        missing.hint = "it was retired, and leads to no note now"
    raise missing
