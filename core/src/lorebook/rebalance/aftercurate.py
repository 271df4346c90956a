"""The rebalance trigger as the last phase of curation (``rebalance.after_curate``).

Curation sits below the features, so it does not import this: the features that curate
(``lorebook curate``, bootstrap) pass :func:`after_curation` to
:func:`lorebook.curate.run.curate_pending`, which runs it under the curate lock once the
batch has landed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lorebook.errors import LorebookError

if TYPE_CHECKING:
    from lorebook.curate.run import AfterCuration, CurateReport
    from lorebook.kb.paths import KBPaths
    from lorebook.models.config import Config


def rebalance_after_curation(paths: KBPaths, config: Config, report: CurateReport) -> None:
    """Run the rebalance trigger and add what it did to ``report``; a failure is a warning.

    The notes it moved go to ``report.rebalanced`` (id, from, to), the notes it split to
    ``report.rebalance_splits`` (id, from, into, reason), each with those of an interrupted
    run it finished; a plan that cannot be made or applied is one line in
    ``report.problems`` (nothing of it was written).
    """
    from lorebook.rebalance.run import run_rebalance

    try:
        done = run_rebalance(paths, config)
    except LorebookError as exc:
        report.problems.append(f"rebalance skipped: {exc.message} (`lorebook rebalance` retries)")
        return
    report.problems += done.warnings
    report.rebalanced += [m.as_json() for m in [*done.resumed, *done.plan.moves]]
    report.rebalance_splits += [{"id": i, "resumed": True} for i in done.resumed_splits]
    report.rebalance_splits += [s.as_json(done.plan.written) for s in done.plan.splits]


def after_curation(paths: KBPaths, config: Config) -> AfterCuration | None:
    """What curation runs at its end: the rebalance trigger, unless config turns it off."""
    if not config.rebalance.after_curate:
        return None
    return lambda report: rebalance_after_curation(paths, config, report)


__all__ = ["after_curation", "rebalance_after_curation"]
