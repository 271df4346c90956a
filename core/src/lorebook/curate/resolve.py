"""``lorebook conflict resolve``: apply a person's decision to one conflict.

See :mod:`lorebook.curate.conflicts` for what each decision does. The conflict file is
rewritten last, so a decision interrupted after the note was rewritten can be given again
(the note is rewritten to the same text, then the status is recorded). An accept that
renames the note (its id was made of the title the proposal contradicts) writes the new
file, records the old id in ``nodes/.redirects.json``, then removes the old file; given
again after an interruption, it follows the ledger to the renamed note. A rejection records
the proposal's claim in the rejections ledger (:mod:`lorebook.curate.rejections`) first, so
curation drops it when a session says it again.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from lorebook.curate.conflicts import (
    DECISION_STATUS,
    UNDECIDED,
    Decision,
    conflict_path,
    decided_text,
    read_conflict,
)
from lorebook.curate.journal import curate_lock
from lorebook.curate.notes import accepted_id, accepted_rewrite, canonical, content_digest
from lorebook.curate.rejections import RejectedClaim, fingerprint, ledger_path, record_rejections
from lorebook.errors import LorebookError
from lorebook.kb.fsutil import atomic_write_text, kb_lock
from lorebook.kb.index import rebuild_indexes
from lorebook.kb.paths import KBPaths
from lorebook.kb.redirects import load_redirects, resolve, write_redirects
from lorebook.kb.store import MarkdownStore, open_store
from lorebook.models.curation import Conflict
from lorebook.models.note import MAX_ID_LENGTH, Note
from lorebook.models.session import Proposal
from lorebook.store import NoteNotFoundError


@dataclass(slots=True)
class Resolution:
    """What a decision did."""

    conflict_id: str
    decision: Decision
    status: str
    target_id: str
    changed: list[str] = field(default_factory=list)
    renamed_to: str | None = None
    """The note's new id when an accept renamed it (its old id now leads there)."""

    def as_json(self) -> dict[str, Any]:
        """The resolution as ``--json`` prints it."""
        return {
            "ok": True,
            "id": self.conflict_id,
            "decision": self.decision,
            "status": self.status,
            "target_id": self.target_id,
            "renamed_to": self.renamed_to,
            "changed": self.changed,
        }


def _accept(
    paths: KBPaths, target_id: str, conflict_id: str, proposal: Proposal
) -> tuple[list[str], str | None]:
    """Rewrite the target note (renamed when its id says the old title); what changed."""
    store = open_store(paths.repo)
    ledger = load_redirects(paths)
    live = set(store.ids())
    if target_id not in live and target_id in ledger:
        successors = resolve(ledger, target_id, live)  # renamed by an interrupted accept
        target_id = successors[0] if len(successors) == 1 else target_id
    try:
        target = store.get(target_id)
    except NoteNotFoundError:
        raise LorebookError(
            f"conflict {conflict_id}: its target {target_id!r} no longer exists; "
            "nothing was changed and the conflict stays open",
            hint="reject or keep it, or restore the note with git",
        ) from None
    new_id = _landed_id(store, target, proposal, live | set(ledger))
    rewritten, _ = canonical(accepted_rewrite(target, proposal, new_id))
    if new_id == target.id:
        store.update(rewritten)
        rel = store.locate(target_id)
        return [paths.rel(paths.nodes / rel) if rel is not None else target_id], None
    old = store.locate(target.id)
    folder = "" if old is None or old.parent.as_posix() == "." else old.parent.as_posix()
    if store.locate(new_id) is None:
        store.add(rewritten, folder=folder)
    else:
        store.update(rewritten)  # written before an interruption
    with kb_lock(paths.lock):
        ledger = load_redirects(paths)
        ledger[target.id] = [new_id]
        write_redirects(paths, ledger)
    store.remove(target.id)
    new = store.locate(new_id)
    changed = [paths.rel(paths.nodes / p) for p in (new, old) if p is not None]
    return [*changed, paths.rel(paths.redirects)], new_id


def _landed_id(store: MarkdownStore, target: Note, proposal: Proposal, taken: set[str]) -> str:
    """:func:`accepted_id`, or the id an interrupted accept already wrote the note under.

    The candidates are the ones :func:`accepted_id` mints, in order (``<id>``, ``<id>-2``
    ...): the first free one, or the first whose note is exactly this rewrite.
    """
    base = accepted_id(target, proposal, set())
    if base == target.id:
        return base
    candidate, n = base, 1
    while candidate in taken:
        if candidate != target.id and _is_rewrite(store, target, proposal, candidate):
            return candidate
        n += 1
        suffix = f"-{n}"
        candidate = base[: MAX_ID_LENGTH - len(suffix)].rstrip("-") + suffix
    return candidate


def _is_rewrite(store: MarkdownStore, target: Note, proposal: Proposal, note_id: str) -> bool:
    try:
        there = store.get(note_id)
    except (NoteNotFoundError, LorebookError):
        return False
    return content_digest(there) == content_digest(accepted_rewrite(target, proposal, note_id))


def _remember(paths: KBPaths, conflict_id: str, proposal: Proposal) -> list[str]:
    """Record the rejected proposal's claim in the ledger; return the file if it changed."""
    claim = RejectedClaim(
        fingerprint(proposal.title, proposal.description), f"conflict:{conflict_id}"
    )
    with kb_lock(paths.lock):
        new = record_rejections(paths, [claim])
    return [paths.rel(ledger_path(paths))] if new else []


def _refuse_decided(conflict: Conflict) -> None:
    if conflict.status not in UNDECIDED:
        raise LorebookError(
            f"conflict {conflict.id} is decided already ({conflict.status}: "
            f"{conflict.decided_because or 'no reason given'})",
            hint="a decided conflict is a record; edit the note itself to change it",
        )


def resolve_conflict(
    paths: KBPaths, conflict_id: str, decision: Decision, why: str | None, *, entry_budget: int
) -> Resolution:
    """Apply ``decision`` to the conflict ``conflict_id``.

    Raises:
        LorebookError: no such conflict, it is decided already, or accept cannot find the
            target note (nothing is changed then).
    """
    path = conflict_path(paths, conflict_id)
    if not path.is_file():
        raise LorebookError(
            f"no conflict {conflict_id!r} ({paths.rel(path)} does not exist)",
            hint="`lorebook conflict list` shows the open ones",
        )
    with curate_lock(paths):
        conflict, body = read_conflict(path, source=paths.rel(path))
        _refuse_decided(conflict)
        resolution = Resolution(
            conflict_id, decision, DECISION_STATUS[decision], conflict.target_id
        )
        if decision == "accept":
            changed, resolution.renamed_to = _accept(
                paths, conflict.target_id, conflict_id, conflict.proposal
            )
            resolution.changed += changed
        elif decision == "reject":  # a malformed ledger fails here, before any write
            resolution.changed += _remember(paths, conflict_id, conflict.proposal)
        reason = " ".join((why or "").split()) or None
        decided = conflict.model_copy(
            update={"status": resolution.status, "decided_because": reason}
        )
        atomic_write_text(path, decided_text(decided, body))
        resolution.changed.append(paths.rel(path))
    if decision == "accept":
        from lorebook.recall.sync import reconcile

        rebuilt = rebuild_indexes(paths, entry_budget)
        reconcile(paths)
        resolution.changed += [r for r in rebuilt.written if r not in resolution.changed]
    return resolution


__all__ = ["Resolution", "resolve_conflict"]
