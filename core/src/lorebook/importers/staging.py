"""Stage what :mod:`lorebook.importers.sources` planned: redacted session logs, like capture.

A parsed export is redacted, passed through the ``capture`` hook and written atomically;
the same file imported again (same ``transcript_hash``) leaves its log as it is, with its
extraction state and proposals.
A native transcript goes through :func:`lorebook.capture.stage.capture_session` with its
harness, so it is read, filtered (no hook-injected text, no successful tool output),
redacted and staged exactly as a hook capture of the same session would be, in the same
log: importing a session the hooks already captured adds only what they had not.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from lorebook.capture.stage import (
    capture_session,
    load_log,
    log_path,
    redact_log,
    through_capture_hook,
    write_log,
)

if TYPE_CHECKING:
    from pathlib import Path

    from lorebook.importers.sources import ImportSource, NativeSource
    from lorebook.kb.paths import KBPaths
    from lorebook.models.session import SessionLog


@dataclass(frozen=True, slots=True)
class Staged:
    """What staging one source did: the log written, its turns, whether it changed."""

    source: str
    harness: str
    session_id: str
    log: Path
    turns: int
    changed: bool
    same_as: str | None = None
    """The source named before this one that holds the same session (a subagent's file
    beside its session's, or a copy): staged once, under that source."""
    unreadable: tuple[int, ...] = ()
    """1-based numbers of a JSONL transcript's lines that are not JSON objects: skipped."""
    unfinished: bool = False
    """The transcript's last line has no newline: left out, as a host's unfinished write."""


LEGACY_HARNESSES: dict[str, str] = {"specstory": "cursor"}
"""The harness an earlier lorebook named every export of a format by (SpecStory: ``cursor``,
until the export's own session line was read). A session already staged under it stays
there, so importing the export again, or a longer copy of it, does not stage it twice."""


def _stage_log(paths: KBPaths, name: str, log: SessionLog, fmt: str | None = None) -> Staged:
    """Write a parsed export's log, unless the same bytes were imported before."""
    target = log_path(paths, log.harness, log.session_id)
    legacy = LEGACY_HARNESSES.get(fmt or "")
    if legacy is not None and legacy != log.harness and not target.exists():
        earlier = log_path(paths, legacy, log.session_id)
        if earlier.exists():
            origin = f"{legacy}:{log.session_id}"
            log = log.model_copy(update={"harness": legacy, "origin": origin})
            target = earlier
    before = load_log(target)
    if before is not None and before.transcript_hash == log.transcript_hash:
        return Staged(name, log.harness, log.session_id, target, len(before.turns), False)
    clean = through_capture_hook(redact_log(log))
    target.parent.mkdir(parents=True, exist_ok=True)
    write_log(target, clean)
    return Staged(name, clean.harness, clean.session_id, target, len(clean.turns), True)


def _stage_native(paths: KBPaths, name: str, native: NativeSource) -> Staged:
    session = native.session
    result = capture_session(
        paths, native.harness, native.harness_name, session.session_id, str(session.path),
        resume=False,  # a session of the past is no branch's last one
        first_byte=session.start,  # a resumed session: its own records, not the old ones
    )  # fmt: skip
    staged = load_log(result.path)
    turns = len(staged.turns) if staged is not None else 0
    unreadable: list[int] = []
    unfinished = False
    if session.path.suffix == ".jsonl":
        from lorebook.hostkit.jsonl import unreadable_lines

        unreadable, unfinished = unreadable_lines(str(session.path))
    return Staged(
        name, native.harness_name, session.session_id, result.path, turns, result.changed,
        unreadable=tuple(unreadable), unfinished=unfinished,
    )  # fmt: skip


def _said(log: SessionLog) -> tuple[str, ...]:
    """What a session's person and agent said, in order: equal for two exports of it."""
    return (
        log.harness,
        *(f"{t.role}:{t.text}" for t in log.turns if t.role in ("user", "assistant")),
    )


def _same_as(first: Staged, name: str) -> Staged:
    """``name``'s line when it holds the session ``first`` staged: nothing staged again."""
    return replace(first, source=name, changed=False, same_as=first.source)


def stage_sources(
    paths: KBPaths, sources: Sequence[ImportSource], *, on_source: Callable[[], None] | None = None
) -> list[Staged]:
    """Stage every source in order; a session named twice is staged once.

    So is a text export whose person and agent say exactly what an earlier one of this run
    said (one session exported under two names): it is the same session as that one.

    ``on_source`` is called after each source (``lorebook import`` moves its bar with it).
    """
    done: dict[tuple[str, str], Staged] = {}
    again: list[Staged] = []
    said: dict[tuple[str, ...], tuple[str, str]] = {}
    for source in sources:
        if source.native is not None:
            key = (source.native.harness_name, source.native.session.session_id)
            if key not in done:
                done[key] = _stage_native(paths, source.name, source.native)
            else:
                again.append(_same_as(done[key], source.name))
        elif source.log is not None:
            key = (source.log.harness, source.log.session_id)
            words = _said(source.log)
            seen = said.setdefault(words, key) if len(words) > 1 else key
            if seen != key and seen in done:
                # The same session exported twice under two names (SpecStory writes some so)
                again.append(_same_as(done[seen], source.name))
            else:
                done[key] = _stage_log(paths, source.name, source.log, source.fmt)
        if on_source is not None:
            on_source()
    return [*done.values(), *again]
