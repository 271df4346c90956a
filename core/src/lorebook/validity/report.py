"""Which notes are stale: for ``lorebook status``, ``lint`` and ``note verify``.

Every active note's declared dependencies are checked without a budget (a command, not a
hook); the stat cache the hooks use is shared, so unchanged files are not hashed again.
"""

from __future__ import annotations

from lorebook.kb.paths import KBPaths
from lorebook.kb.store import Snapshot
from lorebook.models.note import Note
from lorebook.validity.check import (
    SOURCE_GONE,
    STALE,
    UNTRACKED,
    Budget,
    StatCache,
    Verdict,
    check,
    source_gone as check_source,
)


def note_verdict(paths: KBPaths, note: Note, cache: StatCache | None = None) -> Verdict:
    """The validity of one note of the repository store, checked now."""
    deps = [d.model_dump() for d in note.dependencies]
    cache = cache or StatCache.for_kb(str(paths.root))
    return check(str(paths.repo), deps, Budget.unlimited(), cache)


def source_gone(paths: KBPaths, note: Note, cache: StatCache | None = None) -> str | None:
    """The document a note quotes, when none of those it quotes says it any more.

    See :func:`lorebook.validity.check.source_gone`.
    """
    cited = [origin.split("#", 1)[0] for origin in note.derived_from]
    return check_source(str(paths.repo), note.body, cited, Budget.unlimited(), {}, cache)


def stale_notes(paths: KBPaths, snap: Snapshot) -> list[tuple[str, str, Verdict]]:
    """(id, file, verdict) of every active note whose check is stale or unknown, by id.

    A note with no declared dependency is stale when the documents it quotes no longer say
    it (:func:`source_gone`).
    """
    cache = StatCache.for_kb(str(paths.root))
    out = []
    for note_id, stored in snap.notes.items():
        note = stored.note
        if note.status != "active":
            continue
        if not note.dependencies:
            doc = source_gone(paths, note, cache)
            verdict = Verdict(STALE, (doc,), SOURCE_GONE) if doc else Verdict(UNTRACKED)
        else:
            verdict = note_verdict(paths, note, cache)
        if not verdict.fresh:
            label = f"{paths.rel(paths.nodes)}/{stored.path.as_posix()}"
            out.append((note_id, label, verdict))
    cache.save()
    return out


def stale_findings(paths: KBPaths, snap: Snapshot) -> list[tuple[str, str, str]]:
    """(file, code, message) lint warnings, one per stale or unknown note."""
    return [
        (
            label,
            "source-gone" if verdict.reason == SOURCE_GONE else f"{verdict.state}-note",
            f"{label}: {verdict.mark()}; "
            + (
                f"check it, then edit it or retire it (`lorebook note refute {note_id}`)"
                if verdict.reason == SOURCE_GONE
                else f"check it, then run `lorebook note verify {note_id}`"
            ),
        )
        for note_id, label, verdict in stale_notes(paths, snap)
    ]
