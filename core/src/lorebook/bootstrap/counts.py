"""What extraction, bootstrap and harvest left for review, as ``lorebook status`` counts it.

- ``pending``: proposals staged by bootstrap (harness ``bootstrap``), harvest (harness
  ``<host>-memory``) or extraction (any other) that curation has not consumed yet;
- ``unreviewed``: notes git sees as new or changed since ``HEAD`` (and not accepted as they
  are with ``lorebook review --accept``) that cite a document
  bootstrap read (``<path>#<section>``), a host's memory (``<host>-memory:...``) or a
  session (:func:`lorebook.models.session.session_of`);
- ``conflicts``: open conflict files whose proposal came from one of them.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from lorebook.kb.paths import KBPaths

MEMORY_SUFFIX = "-memory"
"""Harvest stages a host's memories under harness ``<host>-memory``, and its notes cite
``<host>-memory:<key>`` (:mod:`lorebook.harvest.run`), whichever host plugin read them."""


def is_harvest(harness: object) -> bool:
    """Whether a session log's harness names a host's memories staged by harvest."""
    return (
        isinstance(harness, str)
        and harness.endswith(MEMORY_SUFFIX)
        and len(harness) > len(MEMORY_SUFFIX)
    )


def _source(origin: str, documents: set[str]) -> str | None:
    if ":" in origin and is_harvest(origin.split(":", 1)[0]):
        return "harvest"
    path = origin.split("#", 1)[0].split("@", 1)[0]
    if path in documents:
        return "bootstrap"
    from lorebook.models.session import session_of

    return "extraction" if session_of(origin) is not None else None


def _pending(paths: KBPaths, counts: dict[str, dict[str, int]]) -> None:
    from pydantic import ValidationError

    from lorebook.capture.stage import load_log

    for path in sorted(paths.sessions.glob("*.json")) if paths.sessions.is_dir() else []:
        try:
            log = load_log(path)
        except (OSError, ValueError, ValidationError):
            continue
        if log is None or log.status != "extracted":
            continue
        if log.harness == "bootstrap":
            counts["bootstrap"]["pending"] += len(log.proposals)
        elif is_harvest(log.harness):
            counts["harvest"]["pending"] += len(log.proposals)
        else:
            counts["extraction"]["pending"] += len(log.proposals)


def _unreviewed(paths: KBPaths, documents: set[str], counts: dict[str, dict[str, int]]) -> None:
    from lorebook.errors import LorebookError
    from lorebook.kb.store import load_snapshot
    from lorebook.review.changes import list_changes
    from lorebook.reviewstate import reviews

    try:
        changed = {c.note_id for c in list_changes(paths) if c.note_id and c.kind != "deleted"}
    except (LorebookError, OSError):
        return
    accepted = reviews(str(paths.root))  # `review --accept` on this machine reviews too
    for note_id, stored in load_snapshot(paths).notes.items():
        if note_id not in changed or _accepted(
            paths, stored.path.as_posix(), accepted.get(note_id)
        ):
            continue
        sources = {_source(o, documents) for o in stored.note.derived_from} - {None}
        for source in sources:
            counts[str(source)]["unreviewed"] += 1


def _accepted(paths: KBPaths, rel: str, digest: str | None) -> bool:
    """Whether the note at ``rel`` (under ``nodes/``) is as a person accepted it."""
    from lorebook.kb.notes import content_hash

    try:
        return (
            digest is not None
            and content_hash((paths.nodes / rel).read_text(encoding="utf-8")) == digest
        )
    except (OSError, UnicodeDecodeError):
        return False


def _conflicts(paths: KBPaths, documents: set[str], counts: dict[str, dict[str, int]]) -> None:
    from lorebook.curate.conflicts import list_conflicts

    for found in list_conflicts(paths).conflicts:
        source = _source(found.conflict.proposal.origin, documents)
        if source is not None and found.conflict.status in ("open", "skipped"):
            counts[source]["conflicts"] += 1


def left_for_review(paths: KBPaths) -> dict[str, Any]:
    """``{"extraction": {...}, "bootstrap": {...}, "harvest": {...}}``: the counts above."""
    from lorebook.bootstrap.state import load_state
    from lorebook.errors import LorebookError

    try:
        documents = set(load_state(paths).documents)
    except LorebookError:
        documents = set()
    counts = {
        k: {"pending": 0, "unreviewed": 0, "conflicts": 0}
        for k in ("extraction", "bootstrap", "harvest")
    }
    _pending(paths, counts)
    _unreviewed(paths, documents, counts)
    with contextlib.suppress(LorebookError):
        _conflicts(paths, documents, counts)
    return counts
