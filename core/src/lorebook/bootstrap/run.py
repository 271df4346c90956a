"""``lorebook bootstrap``: notes from the rules a repository's documents state.

One run, under ``.lorebook/.state/bootstrap.lock``:

1. finds the documents (:mod:`lorebook.bootstrap.documents`) and hashes each;
2. skips every document whose hash is the one bootstrap finished before; resumes one whose
   drafts are staged already; for any other, marks it ``in_progress``, splits it into
   sections (:mod:`lorebook.bootstrap.sections`) and drafts one note per rule each new or
   changed section states (:mod:`lorebook.bootstrap.drafting`; a changed section drafts
   only the rules it did not state before). With an extractor provider, the sections go to
   it instead (:mod:`lorebook.bootstrap.extractor`);
3. gives a rule said again in another place the claim of its first statement
   (:mod:`lorebook.bootstrap.duplicates`), so curation makes one note citing both places;
4. stages each document's drafts as one session log (:mod:`lorebook.bootstrap.drafts`);
5. curates every pending proposal, then marks ``done`` each document whose log was consumed.

A note's ``lb_derived_from`` names the document and section: ``docs/setup.md#install``
(an ADR: just its path; a rule file: the heading above the rule). A run killed anywhere
resumes on the next one without duplicates: state is written after every document, a
staged log is reused as it is, and curation is crash-safe and drops what a note already
cites. :mod:`lorebook.bootstrap.preview` is the same run that writes nothing (``--dry-run``).
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING, Any

from lorebook.bootstrap.documents import Document, find_documents, for_contributors, read_documents
from lorebook.bootstrap.drafting import DOC_TAGS, draft_of, rule_hash, rules_of
from lorebook.bootstrap.drafts import (
    Draft,
    Staged,
    build_log,
    curate_staged,
    guess_kind,
    landed,
    stage,
)
from lorebook.bootstrap.duplicates import Claim, claim_of, links_between, merge_restatements
from lorebook.bootstrap.sections import MIN_RULE_WORDS, MIN_WORDS, Section, sections_of
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

Progress = Callable[[str, int, int], None]
"""Told ``(step, done, total)``: ``documents`` as each is read, then ``curating`` as each
step of the batch is written."""


@dataclass(slots=True)
class BootstrapReport:
    """What one bootstrap run did (or, for :mod:`lorebook.bootstrap.preview`, would do)."""

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
    sentences: Counter[str] = field(default_factory=Counter)
    """Sentences read, by outcome: ``rule`` or why one was left out (``step`` ...)."""
    restated: int = 0
    """Drafts that said again what an earlier draft of the run said."""

    @property
    def proposals(self) -> int:
        """Proposals staged by this run (a resumed document's included)."""
        return sum(self.drafted.values())

    def statements(self) -> dict[str, Any]:
        """The sentences read, the rules kept, the reasons others were left out."""
        left_out = {k: v for k, v in sorted(self.sentences.items()) if k != "rule"}
        return {
            "read": sum(self.sentences.values()),
            "rules": self.sentences["rule"],
            "duplicates": self.restated,
            "left_out": left_out,
        }

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
            "statements": self.statements(),
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


def section_draft(doc: Document, section: Section, origin: str, target: str | None) -> Draft:
    """A whole section as one draft: what an extractor provider reads (``--extractor``)."""
    default: NoteKind = "decision" if doc.kind == "adr" else "convention"
    kind = default if doc.kind == "adr" else guess_kind(section.title, section.description)
    return Draft(
        origin=origin,
        title=section.title,
        description=section.description,
        text=section.text,
        kind=kind,
        files=section.files,
        tags=("bootstrap", DOC_TAGS[doc.kind]),
        target_id=target,
    )


@dataclass(slots=True)
class Planner:
    """Drafts for the new and changed sections of documents (see :func:`plan_document`).

    Attributes:
        whole_sections: Draft each section whole (for an extractor) instead of its rules.
        origins: Origin -> the id of the note citing it (a changed section's earlier note,
            which a whole-section draft names as its target).
        sentences: Sentences read, by outcome (:func:`lorebook.bootstrap.distil.distil`).
    """

    whole_sections: bool = False
    origins: dict[str, str] = field(default_factory=dict)
    sentences: Counter[str] = field(default_factory=Counter)

    def _rule_drafts(
        self, doc: Document, section: Section, old: SectionState | None, origin: str, digest: str
    ) -> tuple[list[Draft], SectionState]:
        rules = rules_of(doc, section, strict=not for_contributors(doc), tally=self.sentences)
        hashes = [rule_hash(rule) for rule in rules]
        known = set(old.rules) if old is not None else set()
        drafts = [
            draft_of(doc, section, r) for r, h in zip(rules, hashes, strict=True) if h not in known
        ]
        return drafts, SectionState(hash=digest, origin=origin, rules=sorted(set(hashes)))

    def plan_document(
        self, doc: Document, before: DocState | None
    ) -> tuple[list[Draft], dict[str, SectionState]]:
        """The drafts of a document's new and changed sections, and every section's state."""
        done = before.sections if before is not None else {}
        drafts: list[Draft] = []
        states: dict[str, SectionState] = {}
        least = MIN_WORDS if self.whole_sections else MIN_RULE_WORDS
        for section in sections_of(doc, least):
            digest = section_hash(section)
            old = done.get(section.anchor)
            if old is not None and old.hash == digest:
                states[section.anchor] = old
                continue
            origin = _origin(doc, section)
            if not self.whole_sections:
                found, states[section.anchor] = self._rule_drafts(doc, section, old, origin, digest)
                drafts += found
                continue
            target = None
            if old is not None:
                origin = f"{origin}@{digest[:8]}"
                target = self.origins.get(old.origin)
            states[section.anchor] = SectionState(hash=digest, origin=origin)
            drafts.append(section_draft(doc, section, origin, target))
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
class PlannedDocument:
    """A document read, its drafts, and the state its sections will have once curated."""

    doc: Document
    drafts: list[Draft]
    pending: dict[str, SectionState]


@dataclass(slots=True)
class _Run:
    paths: KBPaths
    config: Config
    plugins: Plugins | None
    extractor: str | None
    report: BootstrapReport
    planner: Planner
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


def _plan(run: _Run, doc: Document) -> PlannedDocument | None:
    """Mark the document ``in_progress`` and draft it (None: unchanged, or resumed)."""
    state = load_state(run.paths)
    before = state.documents.get(doc.rel)
    if before is not None and before.status == "done" and before.sha256 == doc.sha256:
        run.report.unchanged.append(doc.rel)
        return None
    if _resumable(run, doc, before):
        return None
    sections = before.sections if before is not None else {}
    state.documents[doc.rel] = DocState(sha256=doc.sha256, status="in_progress", sections=sections)
    save_state(run.paths, state)
    drafts, pending = run.planner.plan_document(doc, before)
    if run.extractor is not None and drafts:
        from lorebook.bootstrap.extractor import through_extractor

        drafts = through_extractor(run.paths, run.config, run.plugins, run.extractor, drafts)
    return PlannedDocument(doc, drafts, pending)


def _stage(run: _Run, planned: PlannedDocument) -> None:
    """Stage a document's drafts as its session log (or mark it done: it has none)."""
    state = load_state(run.paths)
    entry = state.documents[planned.doc.rel]
    if not planned.drafts:
        entry.status, entry.sections = "done", planned.pending
        run.report.empty.append(planned.doc.rel)
        run.report.done.append(planned.doc.rel)
        save_state(run.paths, state)
        return
    doc = planned.doc
    staged = stage(run.paths, build_log(HARNESS, doc.rel, doc.sha256, planned.drafts, EXTRACTOR))
    run.staged.append((doc.rel, staged))
    run.report.drafted[doc.rel] = len(staged.proposals)
    entry.status, entry.pending, entry.log = "staged", planned.pending, staged.path.name
    save_state(run.paths, state)


def staged_claims(staged: Sequence[tuple[str, Staged]]) -> list[Claim]:
    """The claims of proposals an earlier, interrupted run staged."""
    return [claim_of(p.title, p.description, p.kind) for _, s in staged for p in s.proposals]


def restate(
    planned: list[PlannedDocument], staged: Sequence[Claim], report: BootstrapReport
) -> None:
    """Give each rule said again the claim of its first statement (counted in ``report``)."""
    links = links_between({p.doc.rel: p.doc.text for p in planned})
    groups, report.restated = merge_restatements([p.drafts for p in planned], staged, links)
    for entry, drafts in zip(planned, groups, strict=True):
        entry.drafts = drafts


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
    from lorebook.slug import title_slug

    proposals = {p.id: p for _, s in run.staged for p in s.proposals}
    if run.report.curation is None:
        return
    for proposal_id, (action, note_id, _) in landed(run.report.curation).items():
        proposal = proposals.get(proposal_id)
        if action != "add" or proposal is None or note_id is None:
            continue
        natural = f"{proposal.kind}-{title_slug(proposal.title)}"
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
        if progress is not None:
            progress("documents", 0, len(rels))
        origins = notes_by_origin(paths)
        planner = Planner(extractor is not None, origins, report.sentences)
        run = _Run(paths, config, plugins, extractor, report, planner)
        planned: list[PlannedDocument] = []
        for doc in read_documents(paths.repo, rels, report.problems):
            report.documents += 1
            if (entry := _plan(run, doc)) is not None:
                planned.append(entry)
            if progress is not None:
                progress("documents", report.documents, len(rels))
        restate(planned, staged_claims(run.staged), report)
        for entry in planned:
            _stage(run, entry)
        existing = set(origins.values()) | _ids(paths)
        if run.staged or _any_staged(paths):
            if progress is not None:  # the curator plans the batch before it is written
                progress("planning the curation", 0, 1)
            curating = None if progress is None else partial(progress, "curating")
            report.curation = curate_staged(
                paths, config, curator=curator, plugins=plugins, progress=curating
            )
            _collisions(run, existing)
        _finish_documents(run)
    return report


def _ids(paths: KBPaths) -> set[str]:
    from lorebook.kb.store import open_store

    return set(open_store(paths.repo).ids())


def _any_staged(paths: KBPaths) -> bool:
    return any(e.status == "staged" for e in load_state(paths).documents.values())
