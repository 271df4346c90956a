"""Drafts from written sources (documents, a host's memories) staged for curation.

Bootstrap and harvest do not write notes themselves: each turns its source into drafts,
stages them as one session log per source under ``_sessions/`` (status ``extracted``, one
turn per draft holding what the source says, redacted as capture redacts), and runs the
same curation every captured session goes through (:func:`lorebook.curate.run.curate_pending`):
rejected claims are dropped, duplicates merged, contradictions become conflict files, and a
note is never overwritten. A proposal's ``origin`` is what the note cites in
``lb_derived_from``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from lorebook.capture.stage import load_log, log_path, write_log
from lorebook.extract.base import normalise
from lorebook.models.note import KIND_TYPES, Anchors, NoteKind
from lorebook.models.session import LoggedTurn, Proposal, SessionLog
from lorebook.secrets.redact import redact_many

if TYPE_CHECKING:
    from pathlib import Path

    from lorebook.curate.run import CurateReport, StepProgress
    from lorebook.kb.paths import KBPaths
    from lorebook.models.config import Config
    from lorebook.plugins import Plugins

QUOTE_CHARS = 200


@dataclass(frozen=True, slots=True)
class Draft:
    """A candidate note from a written source, before it is staged."""

    origin: str
    title: str
    description: str
    text: str
    kind: NoteKind
    files: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    target_id: str | None = None
    body: str | None = None
    """The note's body when it is not ``text`` (an extractor's wording)."""
    quote: str | None = None
    """The part of ``text`` the claim rests on (default: its opening)."""


def guess_kind(title: str, description: str, default: NoteKind = "convention") -> NoteKind:
    """The kind the rules extractor's signals read in the claim, else ``default``."""
    from lorebook.extractors.signals import teaching_kinds

    for text in (description, title):
        kinds = teaching_kinds(text)
        if kinds:
            return kinds[0]
    return default


def _redacted(drafts: Sequence[Draft]) -> list[Draft]:
    fields = 5
    flat = [
        t for d in drafts for t in (d.title, d.description, d.text, d.body or "", d.quote or "")
    ]
    clean = redact_many(flat)
    out = []
    for n, draft in enumerate(drafts):
        title, description, text, body, quote = clean[fields * n : fields * (n + 1)]
        title = " ".join(title.split()) or draft.origin
        out.append(
            Draft(
                draft.origin, title, " ".join(description.split()) or title, text, draft.kind,
                draft.files, draft.tags, draft.target_id, body or None, quote or None,
            )
        )  # fmt: skip
    return out


def proposal_of(draft: Draft, proposal_id: str, extractor: str) -> Proposal:
    """The proposal a (redacted) draft becomes; its quote opens the turn it is staged in."""
    return Proposal(
        id=proposal_id,
        origin=draft.origin,
        type=KIND_TYPES[draft.kind],
        kind=draft.kind,
        title=draft.title[:200],
        description=draft.description[:500],
        body=(draft.body or draft.text).strip(),
        tags=list(draft.tags),
        anchors=Anchors(files=list(draft.files)),
        quote=normalise(draft.quote or draft.text)[:QUOTE_CHARS] or draft.title,
        extractor=extractor,
        target_id=draft.target_id,
    )


@dataclass(slots=True)
class Staged:
    """A source staged as a session log, with its proposals."""

    path: Path
    log: SessionLog
    proposals: list[Proposal] = field(default_factory=list)


def build_log(
    harness: str, session_id: str, source_hash: str, drafts: Sequence[Draft], extractor: str
) -> SessionLog:
    """The session log of one source: a turn and a proposal per draft, redacted."""
    clean = _redacted(drafts)
    turns = [LoggedTurn(index=n, role="user", text=d.text) for n, d in enumerate(clean)]
    proposals = [proposal_of(d, f"{session_id}:{n}", extractor) for n, d in enumerate(clean, 1)]
    return SessionLog(
        harness=harness,
        session_id=session_id,
        origin=f"{harness}:{session_id}",
        transcript_hash=source_hash,
        transcript_length=sum(len(d.text) for d in clean),
        status="extracted",
        extracted_turns=len(turns),
        turns=turns,
        proposals=proposals,
    )


def stage(paths: KBPaths, log: SessionLog) -> Staged:
    """Write ``log`` unless the same source (same hash, same proposals) is staged already."""
    target = log_path(paths, log.harness, log.session_id)
    current = load_log(target)
    same = current is not None and current.transcript_hash == log.transcript_hash
    if same and current is not None and current.proposals == log.proposals:
        return Staged(target, current, list(current.proposals))
    target.parent.mkdir(parents=True, exist_ok=True)
    write_log(target, log)
    return Staged(target, log, list(log.proposals))


def curate_staged(
    paths: KBPaths,
    config: Config,
    *,
    curator: str | None,
    plugins: Plugins | None,
    progress: StepProgress | None = None,
) -> CurateReport:
    """Run curation over every pending proposal (ours among them)."""
    from lorebook.curate.run import curate_pending
    from lorebook.rebalance.aftercurate import after_curation

    return curate_pending(paths, config, curator_name=curator, plugins=plugins, progress=progress,
                          after=after_curation(paths, config))  # fmt: skip


def landed(report: CurateReport) -> dict[str, tuple[str, str | None, str]]:
    """Proposal id -> (action, note id or conflict path, detail) for each step that landed."""
    found: dict[str, tuple[str, str | None, str]] = {}
    for result in report.results:
        if result.status == "failed":
            continue
        where = result.path if result.action == "contradict" else result.note_id
        found[result.proposal_id] = (result.action, where, result.detail)
    return found
