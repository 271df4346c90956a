"""``lorebook bootstrap --dry-run``: the notes a run would write, and nothing written.

The same reading as a run (:mod:`lorebook.bootstrap.run`): documents found and hashed, the
unchanged ones skipped by the state a past run left, rules drafted, restatements merged.
Then the built-in ``rules`` curator judges the drafts against the notes on disk, in memory
(:func:`lorebook.curate.rules.judge_all`): which would be added, merged into a note, sent
to a person as a conflict, or dropped. No lock, state, session log, note or index is
written. A run with another curator may decide otherwise; an extractor provider is not
called (it is what a run pays for).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from lorebook.bootstrap.documents import find_documents, read_documents
from lorebook.bootstrap.drafts import build_log
from lorebook.bootstrap.run import (
    EXTRACTOR,
    HARNESS,
    BootstrapReport,
    PlannedDocument,
    Planner,
    restate,
)
from lorebook.bootstrap.state import load_state

if TYPE_CHECKING:
    from lorebook.kb.paths import KBPaths
    from lorebook.models.curation import CuratorAction
    from lorebook.models.note import Note
    from lorebook.models.session import Proposal


@dataclass(slots=True)
class Preview:
    """What a bootstrap run would do."""

    report: BootstrapReport = field(default_factory=BootstrapReport)
    added: list[Note] = field(default_factory=list)
    """New notes, as they would be written (restatements merged into them)."""
    merged: list[tuple[str, str]] = field(default_factory=list)
    """(origin, note id) for each draft that would merge into a note already on disk."""
    conflicts: list[tuple[str, str, str]] = field(default_factory=list)
    """(origin, note id, why) for each draft that would become a conflict file."""
    dropped: list[tuple[str, str]] = field(default_factory=list)
    """(origin, why) for each draft a note already holds."""

    def counts(self) -> dict[str, int]:
        """The notes that would be added, merged into, in conflict, dropped."""
        return {
            "add": len(self.added),
            "merge": len(self.merged),
            "conflict": len(self.conflicts),
            "drop": len(self.dropped),
        }

    def as_json(self) -> dict[str, Any]:
        """The preview as ``lorebook bootstrap --dry-run --json`` prints it."""
        data = self.report.as_json()
        data.pop("curation")
        data["dry_run"] = True
        data["notes"] = self.counts()
        data["would_write"] = [
            {
                "id": note.id,
                "kind": note.kind,
                "title": note.title,
                "description": note.description,
                "derived_from": list(note.derived_from),
            }
            for note in self.added
        ]
        data["would_merge"] = [{"origin": o, "into": i} for o, i in self.merged]
        data["would_conflict"] = [{"origin": o, "with": i, "why": w} for o, i, w in self.conflicts]
        data["would_drop"] = [{"origin": o, "why": w} for o, w in self.dropped]
        return data


def _judge(paths: KBPaths, proposals: Sequence[Proposal]) -> list[CuratorAction]:
    from lorebook.curate.base import KbView
    from lorebook.curate.rules import judge_all
    from lorebook.kb.store import open_store

    return judge_all(proposals, KbView.from_store(open_store(paths.repo)))


def _tell(
    preview: Preview, proposals: Sequence[Proposal], actions: Sequence[CuratorAction]
) -> None:
    from lorebook.models.curation import AddAction, ContradictAction, DropAction, ModifyAction

    origins = {p.id: p.origin for p in proposals}
    added: dict[str, Note] = {}
    for action in actions:
        origin = origins.get(action.proposal_id, "")
        if isinstance(action, AddAction):
            added[action.note.id] = action.note
        elif isinstance(action, ModifyAction) and action.target_id in added:
            added[action.target_id] = action.note
        elif isinstance(action, ModifyAction):
            preview.merged.append((origin, action.target_id))
        elif isinstance(action, ContradictAction):
            preview.conflicts.append((origin, action.target_id, action.rationale))
        elif isinstance(action, DropAction):
            preview.dropped.append((origin, action.reason))
    preview.added = list(added.values())


def preview_bootstrap(paths: KBPaths, targets: Sequence[str] = ()) -> Preview:
    """What ``lorebook bootstrap`` would write for ``targets``; nothing is written.

    Raises:
        LorebookError: a target cannot be read, or the state file is invalid.
    """
    preview = Preview()
    report = preview.report
    state = load_state(paths)
    planner = Planner(sentences=report.sentences)
    planned: list[PlannedDocument] = []
    for doc in read_documents(paths.repo, find_documents(paths.repo, targets), report.problems):
        report.documents += 1
        before = state.documents.get(doc.rel)
        if before is not None and before.status == "done" and before.sha256 == doc.sha256:
            report.unchanged.append(doc.rel)
            continue
        drafts, pending = planner.plan_document(doc, before)
        planned.append(PlannedDocument(doc, drafts, pending))
    restate(planned, (), report)
    proposals: list[Proposal] = []
    for entry in planned:
        if not entry.drafts:
            report.empty.append(entry.doc.rel)
            continue
        log = build_log(HARNESS, entry.doc.rel, entry.doc.sha256, entry.drafts, EXTRACTOR)
        report.drafted[entry.doc.rel] = len(log.proposals)
        proposals += log.proposals
    _tell(preview, proposals, _judge(paths, proposals))
    return preview


__all__ = ["Preview", "preview_bootstrap"]
