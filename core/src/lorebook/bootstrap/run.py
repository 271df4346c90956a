"""``lorebook bootstrap``: draft notes from the documents a repository already has.

One run, under ``.lorebook/.state/bootstrap.lock``:

1. finds the documents (:mod:`lorebook.bootstrap.documents`) and hashes each;
2. skips every document whose hash is the one bootstrap finished before; resumes one whose
   drafts are staged already; for any other, marks it ``in_progress``, splits it into
   sections (:mod:`lorebook.bootstrap.sections`), keeps the new sections and those whose
   text changed (a changed section names the note made from its earlier text, so curation
   judges it against that note: a merge or a conflict), optionally passes them through an
   extractor provider, and stages them as one session log (:mod:`lorebook.bootstrap.drafts`);
3. curates every pending proposal, then marks ``done`` each document whose log was consumed.

A note's ``lb_derived_from`` names the document and section: ``docs/setup.md#install``
(a whole rule or ADR: just its path); a section's later text adds ``@<8 hex digits of its
hash>``. A run killed anywhere resumes on the next one without duplicates: state is written
after every document, a staged log is reused as it is, and curation is crash-safe and drops
what a note already cites.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from lorebook.bootstrap.documents import Document, find_documents, read_documents
from lorebook.bootstrap.drafts import (
    Draft,
    Staged,
    build_log,
    curate_staged,
    guess_kind,
    landed,
    stage,
)
from lorebook.bootstrap.sections import Section, sections_of
from lorebook.bootstrap.state import DocState, SectionState, load_state, save_state
from lorebook.capture.stage import load_log, log_path
from lorebook.kb.fsutil import kb_lock

if TYPE_CHECKING:
    from lorebook.curate.run import CurateReport
    from lorebook.kb.paths import KBPaths
    from lorebook.models.config import Config
    from lorebook.models.note import NoteKind
    from lorebook.plugins import Plugins

HARNESS = "bootstrap"
"""The ``harness`` of bootstrap's staged logs (one per document; the session id is its path)."""

EXTRACTOR = "bootstrap"
_DOC_TAGS = {"rule": "cursor-rule", "adr": "adr", "instructions": "instructions", "doc": "docs"}

Progress = Callable[[str], None]


@dataclass(slots=True)
class BootstrapReport:
    """What one bootstrap run did."""

    documents: int = 0
    unchanged: list[str] = field(default_factory=list)
    resumed: list[str] = field(default_factory=list)
    drafted: dict[str, int] = field(default_factory=dict)
    empty: list[str] = field(default_factory=list)
    done: list[str] = field(default_factory=list)
    left: list[str] = field(default_factory=list)
    collisions: list[dict[str, str]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    curation: CurateReport | None = None

    @property
    def proposals(self) -> int:
        """Proposals staged by this run (a resumed document's included)."""
        return sum(self.drafted.values())

    def as_json(self) -> dict[str, Any]:
        """The report as ``lorebook bootstrap --json`` prints it."""
        return {
            "ok": not self.left,
            "documents": {
                "found": self.documents,
                "unchanged": len(self.unchanged),
                "drafted": len(self.drafted),
                "empty": len(self.empty),
                "resumed": self.resumed,
                "done": len(self.done),
                "left_pending": self.left,
            },
            "proposals": self.proposals,
            "by_document": dict(sorted(self.drafted.items())),
            "collisions": self.collisions,
            "problems": self.problems,
            "curation": None if self.curation is None else self.curation.as_json(),
        }


def section_hash(section: Section) -> str:
    """16 hex digits of the sha256 of a section's title and text."""
    data = f"{section.title}\n{section.text}".encode()
    return hashlib.sha256(data).hexdigest()[:16]


def _origin(doc: Document, section: Section) -> str:
    return doc.rel if section.whole else f"{doc.rel}#{section.anchor}"


def _draft(doc: Document, section: Section, origin: str, target: str | None) -> Draft:
    default: NoteKind = "decision" if doc.kind == "adr" else "convention"
    kind = default if doc.kind == "adr" else guess_kind(section.title, section.description)
    return Draft(
        origin=origin,
        title=section.title,
        description=section.description,
        text=section.text,
        kind=kind,
        files=section.files,
        tags=("bootstrap", _DOC_TAGS[doc.kind]),
        target_id=target,
    )


def plan_document(
    doc: Document, before: DocState | None, notes_by_origin: dict[str, str]
) -> tuple[list[Draft], dict[str, SectionState]]:
    """The drafts of a document's new and changed sections, and every section's new state."""
    done = before.sections if before is not None else {}
    drafts: list[Draft] = []
    states: dict[str, SectionState] = {}
    for section in sections_of(doc):
        digest = section_hash(section)
        old = done.get(section.anchor)
        if old is not None and old.hash == digest:
            states[section.anchor] = old
            continue
        origin = _origin(doc, section)
        target = None
        if old is not None:
            origin = f"{origin}@{digest[:8]}"
            target = notes_by_origin.get(old.origin)
        states[section.anchor] = SectionState(hash=digest, origin=origin)
        drafts.append(_draft(doc, section, origin, target))
    return drafts, states


def notes_by_origin(paths: KBPaths) -> dict[str, str]:
    """Origin -> the id of the (first, by id) note citing it."""
    from lorebook.kb.store import load_snapshot

    found: dict[str, str] = {}
    for note_id, stored in load_snapshot(paths).notes.items():
        for origin in stored.note.derived_from:
            found.setdefault(origin, note_id)
    return found


@dataclass(slots=True)
class _Run:
    paths: KBPaths
    config: Config
    plugins: Plugins | None
    extractor: str | None
    report: BootstrapReport
    origins: dict[str, str]
    progress: Progress | None
    staged: list[tuple[str, Staged]] = field(default_factory=list)


def _resumable(run: _Run, doc: Document, before: DocState | None) -> bool:
    """True when the document's drafts are staged already (a killed run got that far)."""
    if before is None or before.status != "staged" or before.sha256 != doc.sha256:
        return False
    log = load_log(log_path(run.paths, HARNESS, doc.rel))
    if log is None or log.transcript_hash != doc.sha256:
        return False
    path = log_path(run.paths, HARNESS, doc.rel)
    run.staged.append((doc.rel, Staged(path, log, list(log.proposals))))
    run.report.resumed.append(doc.rel)
    run.report.drafted[doc.rel] = len(log.proposals)
    return True


def _document(run: _Run, doc: Document) -> None:
    state = load_state(run.paths)
    before = state.documents.get(doc.rel)
    if before is not None and before.status == "done" and before.sha256 == doc.sha256:
        run.report.unchanged.append(doc.rel)
        return
    if _resumable(run, doc, before):
        return
    sections = before.sections if before is not None else {}
    state.documents[doc.rel] = DocState(sha256=doc.sha256, status="in_progress", sections=sections)
    save_state(run.paths, state)
    drafts, pending = plan_document(doc, before, run.origins)
    if run.extractor is not None and drafts:
        from lorebook.bootstrap.extractor import through_extractor

        drafts = through_extractor(run.paths, run.config, run.plugins, run.extractor, drafts)
    entry = state.documents[doc.rel]
    if not drafts:
        entry.status, entry.sections = "done", pending
        run.report.empty.append(doc.rel)
        run.report.done.append(doc.rel)
        save_state(run.paths, state)
        return
    staged = stage(run.paths, build_log(HARNESS, doc.rel, doc.sha256, drafts, EXTRACTOR))
    run.staged.append((doc.rel, staged))
    run.report.drafted[doc.rel] = len(staged.proposals)
    entry.status, entry.pending, entry.log = "staged", pending, staged.path.name
    save_state(run.paths, state)


def _finish_documents(run: _Run) -> None:
    """Mark ``done`` every staged document whose log curation consumed."""
    state = load_state(run.paths)
    for rel, entry in sorted(state.documents.items()):
        if entry.status != "staged":
            continue
        log = load_log(log_path(run.paths, HARNESS, rel))
        if log is not None and log.status == "curated" and log.transcript_hash == entry.sha256:
            entry.status, entry.sections, entry.pending = "done", entry.pending, {}
            run.report.done.append(rel)
        elif any(rel == staged_rel for staged_rel, _ in run.staged):
            run.report.left.append(rel)
    save_state(run.paths, state)


def _collisions(run: _Run, existing: set[str]) -> None:
    """Adds whose natural id an earlier note holds: that note is untouched, ours renamed."""
    from lorebook.slug import slugify

    proposals = {p.id: p for _, s in run.staged for p in s.proposals}
    if run.report.curation is None:
        return
    for proposal_id, (action, note_id, _) in landed(run.report.curation).items():
        proposal = proposals.get(proposal_id)
        if action != "add" or proposal is None or note_id is None:
            continue
        natural = f"{proposal.type}-{slugify(proposal.title) or 'note'}"
        if natural in existing and natural != note_id:
            run.report.collisions.append(
                {"origin": proposal.origin, "existing": natural, "written": note_id}
            )


def run_bootstrap(
    paths: KBPaths,
    config: Config,
    targets: Sequence[str] = (),
    *,
    extractor: str | None = None,
    curator: str | None = None,
    plugins: Plugins | None = None,
    progress: Progress | None = None,
) -> BootstrapReport:
    """Draft notes from the repository's documents and curate them (module docstring).

    Raises:
        LorebookError: a target cannot be read, the state file or the extractor is invalid,
            or curation cannot compute its batch (nothing was written for it).
    """
    report = BootstrapReport()
    with kb_lock(paths.state / "bootstrap.lock"):
        rels = find_documents(paths.repo, targets)
        run = _Run(paths, config, plugins, extractor, report, notes_by_origin(paths), progress)
        for doc in read_documents(paths.repo, rels, report.problems):
            report.documents += 1
            _document(run, doc)
            if progress is not None:
                progress(doc.rel)
        existing = set(run.origins.values()) | _ids(paths)
        if run.staged or _any_staged(paths):
            report.curation = curate_staged(paths, config, curator=curator, plugins=plugins)
            _collisions(run, existing)
        _finish_documents(run)
    return report


def _ids(paths: KBPaths) -> set[str]:
    from lorebook.kb.store import open_store

    return set(open_store(paths.repo).ids())


def _any_staged(paths: KBPaths) -> bool:
    return any(e.status == "staged" for e in load_state(paths).documents.values())
