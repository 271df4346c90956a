"""Applying a journaled batch, one idempotent step at a time, and stamping consumed logs.

Every step can run again after a crash without doing anything twice:

- ``add``: skipped when the note exists with the action's origins (it landed); a note with
  that id but another provenance is a failure, never overwritten.
- ``modify``: written only when the target still has the digest the batch found
  (``before``); skipped when it already has the result (``after``) or already cites every
  origin of the action; anything else means someone changed the note meanwhile: a failure,
  and the proposal stays pending for the next run.
- ``contradict``: a conflict file is created once; a file already recording the same
  proposal against the same target (this run's or an earlier one's) counts as done.
- ``drop``: writes nothing.

A consumed session log is stamped ``curated`` (under the per-log lock capture and
extraction take) only when none of its proposals' steps failed, and only if it is still the
log the batch read; anything else is left for the next run.
"""

from __future__ import annotations

from pydantic import ValidationError

from lorebook.capture.stage import load_log, lock_path, write_log
from lorebook.curate.conflicts import list_conflicts, record_conflict, same_contradiction
from lorebook.curate.gate import mark_unreviewed
from lorebook.curate.journal import ConsumedLog, Journal, Step, StepResult
from lorebook.curate.notes import content_digest
from lorebook.errors import LorebookError
from lorebook.kb.fsutil import kb_lock
from lorebook.kb.paths import KBPaths
from lorebook.kb.store import MarkdownStore
from lorebook.kb.summaries import load_summaries, set_summary
from lorebook.models.curation import AddAction, ContradictAction, ModifyAction
from lorebook.store import NoteNotFoundError

STAMP_LOCK_TIMEOUT = 30.0


class Applier:
    """Applies the steps of one journal to the markdown store."""

    def __init__(self, store: MarkdownStore, journal: Journal) -> None:
        self.store = store
        self.paths = store.paths
        self.journal = journal
        self._numbers = self._conflict_numbers(journal)
        self._recorded = [
            c.conflict for c in list_conflicts(self.paths, include_decided=True).conflicts
        ]

    @staticmethod
    def _conflict_numbers(journal: Journal) -> dict[int, int]:
        numbers: dict[int, int] = {}
        for index, step in enumerate(journal.steps):
            if isinstance(step.action, ContradictAction):
                numbers[index] = len(numbers) + 1
        return numbers

    def _nodes_path(self, note_id: str) -> str | None:
        rel = self.store.locate(note_id)
        return None if rel is None else self.paths.rel(self.paths.nodes / rel)

    def apply(self, index: int, step: Step) -> StepResult:
        """Apply one step (idempotently); errors become a failed result, not an exception."""
        action = step.action
        result = StepResult(
            index=index, proposal_id=action.proposal_id, action=action.action, status="applied"
        )
        try:
            if isinstance(action, AddAction):
                return self._add(action, step, result)
            if isinstance(action, ModifyAction):
                return self._modify(action, step, result)
            if isinstance(action, ContradictAction):
                return self._contradict(index, action, result)
            return result.model_copy(update={"detail": action.reason})
        except (OSError, LorebookError) as exc:
            detail = exc.message if isinstance(exc, LorebookError) else str(exc)
            return result.model_copy(update={"status": "failed", "detail": detail})

    def _add(self, action: AddAction, step: Step, result: StepResult) -> StepResult:
        note = action.note
        result = result.model_copy(update={"note_id": note.id})
        if self.store.locate(note.id) is not None:
            current = self.store.get(note.id)
            if content_digest(current) == step.after or set(note.derived_from) <= set(
                current.derived_from
            ):
                return result.model_copy(
                    update={"status": "already-applied", "path": self._nodes_path(note.id)}
                )
            return result.model_copy(
                update={
                    "status": "failed",
                    "detail": f"a note with id {note.id!r} and another provenance appeared",
                }
            )
        from lorebook.validity.record import refuse_moved

        refuse_moved(self.paths.repo, note.dependencies, what=f"proposal {action.proposal_id}")
        if action.folder and action.folder_summary:
            with kb_lock(self.paths.lock):
                if action.folder not in load_summaries(self.paths):
                    set_summary(self.paths, action.folder, action.folder_summary)
        where = self.store.add(note, folder=action.folder)
        mark_unreviewed(self.store, note.id)
        return result.model_copy(update={"path": where})

    def _modify(self, action: ModifyAction, step: Step, result: StepResult) -> StepResult:
        result = result.model_copy(update={"note_id": action.target_id})
        try:
            current = self.store.get(action.target_id)
        except NoteNotFoundError:
            return result.model_copy(
                update={"status": "failed", "detail": f"{action.target_id} no longer exists"}
            )
        digest = content_digest(current)
        path = self._nodes_path(action.target_id)
        if digest == step.after:
            return result.model_copy(update={"status": "already-applied", "path": path})
        if digest == step.before:
            self.store.update(action.note)
            mark_unreviewed(self.store, action.target_id)
            return result.model_copy(update={"path": path})
        if set(action.note.derived_from) <= set(current.derived_from):
            return result.model_copy(update={"status": "already-applied", "path": path})
        return result.model_copy(
            update={
                "status": "failed",
                "path": path,
                "detail": f"{action.target_id} changed after the batch was computed; "
                "run `lorebook curate` again to merge into its new text",
            }
        )

    def _contradict(self, index: int, action: ContradictAction, result: StepResult) -> StepResult:
        result = result.model_copy(update={"note_id": action.target_id})
        for recorded in self._recorded:
            if same_contradiction(recorded, action):
                rel = self.paths.rel(self.paths.conflicts / f"{recorded.id}.md")
                return result.model_copy(
                    update={"status": "already-applied", "path": rel, "detail": recorded.id}
                )
        conflict_id = f"{self.journal.run}-{self._numbers[index]}"
        try:
            target = self.store.get(action.target_id)
        except NoteNotFoundError:
            target = None
        written = record_conflict(
            self.paths, conflict_id, action, target, self._nodes_path(action.target_id)
        )
        return result.model_copy(update={"path": self.paths.rel(written), "detail": conflict_id})


StampOutcome = str
"""``curated`` (stamped now), ``already`` (stamped before), or why the log was left alone."""


def stamp_log(paths: KBPaths, consumed: ConsumedLog) -> StampOutcome:
    """Mark one consumed session log ``curated`` if it is still the log the batch read."""
    path = paths.sessions / consumed.log
    with kb_lock(lock_path(paths, path.stem), timeout=STAMP_LOCK_TIMEOUT):
        try:
            log = load_log(path)
        except (OSError, ValueError, ValidationError):
            return "unreadable"
        if log is None:
            return "missing"
        same = (
            log.transcript_hash == consumed.transcript_hash
            and [p.id for p in log.proposals] == consumed.proposals
        )
        if same and log.status == "curated":
            return "already"
        if not same or log.status != "extracted":
            return "changed since the batch read it; left for the next run"
        write_log(path, log.model_copy(update={"status": "curated"}))
    return "curated"


__all__ = ["Applier", "stamp_log"]
