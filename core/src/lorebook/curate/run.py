"""``lorebook curate``: every pending proposal becomes one batch, applied crash-safely.

A proposal is pending while the session log holding it has status ``extracted``. One run:

1. takes the curate lock (``.lorebook/.state/curate.lock``), and first finishes the batch of
   a run that was interrupted (its journal is still there);
2. reads the pending logs (sorted by file name) and their proposals, in order;
3. drops the proposals with a field that holds what looks like a secret (a warning names
   each one's session and field: :func:`lorebook.curate.gate.refuse_secret_proposals`) and
   those whose claim a person rejected before (:mod:`lorebook.curate.rejections`), asks
   the ``curate`` pipeline hook for the batch of the others (first result; the built-in
   runs the curator chosen by ``--curator``, default ``rules``), files every new note in a
   folder of its kind (:mod:`lorebook.curate.placement`), and validates the whole batch
   (:mod:`lorebook.curate.validate`) before anything is written: a proposal whose action
   cannot be written is held back (a drop, and one warning naming it, its session, why,
   and what the user can do), and every other action goes ahead;
4. writes the journal (:mod:`lorebook.curate.journal`), then applies the steps in order,
   each idempotent (:mod:`lorebook.curate.apply`), recording each result in the journal;
5. stamps the consumed logs ``curated`` (only those whose steps all landed), rebuilds the
   indexes, deletes the journal, and reports the warnings the journal holds.

A held-back proposal is consumed like a dropped one: its session is stamped ``curated`` once
its other steps landed, so a rerun neither asks the curator about it nor warns again. It
stays in its staged log until that is pruned or forgotten; the warning says so, and how to
write the claim by hand or erase the session (``lorebook forget-session``).

A run killed at any point leaves every note whole (each write is an atomic rename); the
next run resumes the journal and skips what landed, so nothing is written twice. The batch
is a deterministic function of the proposals and the notes, so a run killed before its
journal was written computes the same batch (and the same run id) again.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lorebook.capture.stage import staged_logs
from lorebook.curate.apply import Applier, stamp_log
from lorebook.curate.base import (
    DEFAULT_CURATOR,
    CurationError,
    Curator,
    KbView,
    build_curator,
)
from lorebook.curate.gate import refuse_secret_proposals, text_secrets
from lorebook.curate.journal import (
    ConsumedLog,
    Journal,
    StepResult,
    curate_lock,
    delete_journal,
    new_journal,
    read_journal,
    read_results,
    record_result,
    write_journal,
)
from lorebook.curate.placement import place_adds
from lorebook.curate.rejections import drop_rejected
from lorebook.curate.validate import (
    AnswerItem,
    HeldBack,
    parse_batch,
    refuse_unusable_answer,
    validate_batch,
)
from lorebook.kb.index import rebuild_indexes, refuse_broken
from lorebook.kb.janitor import sweep_temp_files
from lorebook.kb.store import MarkdownStore, load_snapshot, open_store
from lorebook.models.session import Proposal, SessionLog

if TYPE_CHECKING:
    from lorebook.kb.paths import KBPaths
    from lorebook.models.config import Config
    from lorebook.plugins import Plugins


@dataclass(slots=True)
class CurateReport:
    """What a curate run did."""

    curator: str
    run: str | None = None
    resumed: str | None = None
    proposals: int = 0
    rejected: list[str] = field(default_factory=list)
    """Proposals dropped because a person rejected their claim before (the ledger)."""
    refused: list[str] = field(default_factory=list)
    """Proposals dropped because a field holds what looks like a secret (one warning each)."""
    held_back: list[str] = field(default_factory=list)
    """Proposals dropped because their action cannot be written (one warning each)."""
    results: list[StepResult] = field(default_factory=list)
    sessions: dict[str, str] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    premise_conflicts: list[str] = field(default_factory=list)
    """Conflict files written because two notes' premises derive a contradiction."""
    rebalanced: list[dict[str, str]] = field(default_factory=list)
    """Notes the rebalance trigger moved at the end of the run (id, from, to)."""
    rebalance_splits: list[dict[str, Any]] = field(default_factory=list)
    """Notes the rebalance trigger split at the end of the run (id, from, into, reason)."""

    @property
    def failed(self) -> list[StepResult]:
        """The steps that failed (their proposals stay pending)."""
        return [r for r in self.results if r.status == "failed"]

    def counts(self) -> dict[str, int]:
        """Steps by action, and how many were already applied or failed."""
        counts = {"add": 0, "modify": 0, "contradict": 0, "drop": 0}
        for result in self.results:
            counts[result.action] = counts.get(result.action, 0) + 1
        counts["already-applied"] = sum(r.status == "already-applied" for r in self.results)
        counts["failed"] = len(self.failed)
        return counts

    def as_json(self) -> dict[str, Any]:
        """The report as ``lorebook curate --json`` prints it."""
        return {
            "ok": not self.failed,
            "curator": self.curator,
            "run": self.run,
            "resumed": self.resumed,
            "proposals": self.proposals,
            "rejected": self.rejected,
            "refused": self.refused,
            "held_back": self.held_back,
            "actions": self.counts(),
            "results": [r.model_dump(mode="json") for r in self.results],
            "sessions": dict(sorted(self.sessions.items())),
            "conflicts": [
                r.path for r in self.results if r.action == "contradict" and r.path is not None
            ]
            + self.premise_conflicts,
            "rebalanced": self.rebalanced,
            "rebalance_splits": self.rebalance_splits,
            "problems": self.problems,
        }


def pending_logs(paths: KBPaths, problems: list[str]) -> list[tuple[Path, SessionLog]]:
    """Session logs whose proposals await curation (status ``extracted``), by file name."""
    return [(path, log) for path, log in staged_logs(paths, problems) if log.status == "extracted"]


def _collect(logs: list[tuple[Path, SessionLog]]) -> tuple[list[Proposal], list[ConsumedLog]]:
    proposals: list[Proposal] = []
    consumed = []
    owners: dict[str, str] = {}
    for path, log in logs:
        for proposal in log.proposals:
            if proposal.id in owners:
                raise CurationError(
                    f"proposal id {proposal.id!r} is in both {owners[proposal.id]} and "
                    f"{path.name}; proposal ids must be unique across pending sessions",
                    hint="extract one of the sessions again, or remove its log",
                )
            owners[proposal.id] = path.name
            proposals.append(proposal)
        consumed.append(
            ConsumedLog(
                log=path.name,
                transcript_hash=log.transcript_hash,
                proposals=[p.id for p in log.proposals],
            )
        )
    return proposals, consumed


def ask_curator(
    plugins: Plugins, curator: Curator, proposals: list[Proposal], store: MarkdownStore
) -> Any:
    """Call the ``curate`` pipeline hook with ``curator`` as the configured one."""
    answer = plugins.hook.curate(proposals=list(proposals), store=store, curator=curator)
    if answer is None:
        raise CurationError("no curate hook answered (the built-in one is missing)")
    return answer


def _plan(
    paths: KBPaths, config: Config, plugins: Plugins, name: str, report: CurateReport
) -> Journal | None:
    """Compute and validate the batch of the pending proposals (None: nothing pending)."""
    logs = pending_logs(paths, report.problems)
    if not logs:
        return None
    proposals, consumed = _collect(logs)
    refuse_broken(load_snapshot(paths))
    owners = {p.id: (path, log) for path, log in logs for p in log.proposals}
    sessions = {pid: log.session_id for pid, (_, log) in owners.items()}
    clean, refused, warnings = refuse_secret_proposals(proposals, sessions)
    fresh, drops = drop_rejected(paths, clean)
    store = open_store(paths.repo)
    view = KbView.from_store(store)
    actions: list[AnswerItem] = [*refused, *drops]
    if fresh:
        curator = build_curator(plugins.curator(name), config=config, paths=paths, plugins=plugins)
        answer = parse_batch(ask_curator(plugins, curator, fresh, store))
        refuse_unusable_answer(answer, fresh)
        actions += place_adds(answer, view)
    batch = validate_batch(actions, proposals, view, repo=paths.repo)
    warnings += [_held_back_line(paths, held, owners) for held in batch.held_back]
    report.proposals += len(proposals)
    report.rejected += [drop.proposal_id for drop in drops]
    report.refused += [drop.proposal_id for drop in refused]
    return new_journal(name, batch.steps, consumed, [*warnings, *batch.ignored])


def _held_back_line(
    paths: KBPaths, held: HeldBack, owners: dict[str, tuple[Path, SessionLog]]
) -> str:
    """The one warning for a proposal held back: which, from where, why, what to do."""
    path, log = owners[held.proposal_id]
    title = next(p.title for p in log.proposals if p.id == held.proposal_id)
    named = "" if text_secrets(title) else f"{json.dumps(title, ensure_ascii=False)}, "
    session = shlex.quote(log.session_id)
    return (
        f"proposal {held.proposal_id} ({named}session {log.session_id}) held back: "
        f"{held.problem}; the rest of the batch is written without it. It stays in "
        f"{paths.rel(path)} until pruned: write the note yourself (`lorebook note add`) if "
        f"it holds, or erase the session with `lorebook forget-session {session}`"
    )


StepProgress = Callable[[int, int], None]
AfterCuration = Callable[["CurateReport"], None]
"""Run under the curate lock once the batch has landed (the rebalance trigger, passed in by
the features that curate: the command line and bootstrap)."""
"""Told ``(steps applied, steps in the batch)`` as curation writes its batch."""


def _finish(
    paths: KBPaths,
    journal: Journal,
    report: CurateReport,
    budget: int,
    progress: StepProgress | None = None,
) -> None:
    """Apply every step not applied yet, stamp the logs, rebuild, delete the journal."""
    report.problems += journal.warnings
    report.held_back += journal.held_back()
    applier = Applier(open_store(paths.repo), journal)
    results = read_results(paths, journal.run)
    for index, step in enumerate(journal.steps):
        if index not in results:
            results[index] = applier.apply(index, step)
            record_result(paths, journal.run, results[index])
        report.results.append(results[index])
        if progress is not None:
            progress(index + 1, len(journal.steps))
    failed = {r.proposal_id for r in results.values() if r.status == "failed"}
    for consumed in journal.consumed:
        if failed.intersection(consumed.proposals):
            report.sessions[consumed.log] = "a step failed; left pending for the next run"
        else:
            report.sessions[consumed.log] = stamp_log(paths, consumed)
    from lorebook.recall.sync import reconcile

    rebuild_indexes(paths, budget)
    reconcile(paths)
    delete_journal(paths)


def curate_pending(
    paths: KBPaths,
    config: Config,
    *,
    curator_name: str | None = None,
    plugins: Plugins | None = None,
    progress: StepProgress | None = None,
    after: AfterCuration | None = None,
) -> CurateReport:
    """Curate every pending proposal (see the module docstring).

    Args:
        paths: The knowledge base.
        config: Its config (the index budget; LLM curators read ``extraction``).
        curator_name: The curator provider to use (default ``rules``).
        plugins: The plugin host (default: the process-wide one).
        progress: Told each step written, with the batch's size.
        after: Run last, under the curate lock, with the report (it may add to it): the
            rebalance trigger (:func:`lorebook.rebalance.aftercurate.rebalance_after_curation`).

    Returns:
        What the run did: each step's result, each consumed log's stamp.

    Raises:
        CurationError: the batch cannot be computed, or the curator's answer holds no usable
            action at all (nothing was written).
    """
    if plugins is None:
        from lorebook.plugins import get_plugins

        plugins = get_plugins()
    name = curator_name or DEFAULT_CURATOR
    plugins.curator(name)  # an unknown name fails before anything is read
    report = CurateReport(curator=name)
    budget = config.budgets.entry_chars
    with curate_lock(paths):
        unfinished = read_journal(paths)
        if unfinished is not None:
            report.resumed = unfinished.run
            sweep_temp_files(paths)
            _finish(paths, unfinished, report, budget, progress)
            if report.failed:  # say so; the next run plans those proposals afresh
                return report
        journal = _plan(paths, config, plugins, name, report)
        if journal is not None:
            report.run = journal.run
            write_journal(paths, journal)
            _finish(paths, journal, report, budget, progress)
        if (paths.root / "premises").is_dir():
            from lorebook.premises.conflicts import premise_conflicts

            written, problems = premise_conflicts(paths)
            report.premise_conflicts += [paths.rel(p) for p in written]
            report.problems += problems
        if after is not None:
            after(report)
    return report


__all__ = ["CurateReport", "ask_curator", "curate_pending", "pending_logs"]
