"""``lorebook rebalance``: keep every folder of ``nodes/`` small enough to read."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from lorebook.cli.output import JsonOption, print_json, repo_paths, say, warn

if TYPE_CHECKING:
    from lorebook.rebalance.run import RebalanceReport

SHOWN_MOVES = 30
"""Moves listed one a line without ``--verbose``; the rest are counted by folder."""


def report_lines(report: RebalanceReport, *, verbose: bool = False) -> list[str]:
    """What a person reads of a rebalance (or of its plan, with ``--dry-run``)."""
    plan = report.plan
    would = "would " if report.dry_run else ""
    lines = []
    if report.resumed:
        verb = "would first finish" if report.dry_run else "finished"
        lines.append(f"{verb} the interrupted rebalance: {len(report.resumed)} moves")
    if report.resumed_splits:
        verb = "would first finish" if report.dry_run else "finished"
        lines.append(f"{verb} the split of {', '.join(report.resumed_splits)}")
    if report.dry_run and (report.resumed or report.resumed_splits):
        lines.append("run `lorebook rebalance` to finish it; the new plan is made after")
    split_reasons = {s.reason for s in plan.splits}
    for split in plan.splits:  # a split always says why: it retires an id
        into = ", ".join(f"{p.id} (nodes/{plan.written[p.id]})" for p in split.parts)
        lines.append(f"{would}split {split.note_id} (nodes/{split.source}) into {into}")
        lines.append(f"  why: {split.reason}")
    lines += [f"why: {r}" for r in plan.reasons if r not in split_reasons] if verbose else []
    moves = plan.moves if verbose else plan.moves[:SHOWN_MOVES]
    lines += [f"{would}move {m.note_id}: nodes/{m.source} -> nodes/{m.target}" for m in moves]
    if len(plan.moves) > len(moves):
        lines.append(f"... and {len(plan.moves) - len(moves)} more moves (--verbose lists all)")
    for folder, summary in sorted(plan.created.items()):
        lines.append(f"{would}create nodes/{folder}/: {summary}")
    for folder in plan.dropped:
        lines.append(f"{would}drop the summary of nodes/{folder}/ (it holds no note now)")
    if plan.pinned:
        lines.append(
            f"left in place, the target of an open conflict: {', '.join(plan.pinned)} "
            "(decide it with `lorebook conflict resolve`)"
        )
    if plan.empty and not (report.resumed or report.resumed_splits):
        lines.append(
            "nothing to rebalance: every folder and note is within the limits in config.yaml"
        )
    if plan.splits:
        parts = sum(len(s.parts) for s in plan.splits)
        lines.append(
            f"{len(plan.splits)} notes {'would be ' if report.dry_run else ''}split into "
            f"{parts}; each retired id {'would lead' if report.dry_run else 'leads'} to its "
            "parts in nodes/.redirects.json"
        )
    if plan.moves:
        lines.append(
            f"{len(plan.moves)} notes {would}move, {len(plan.created)} folders "
            f"{'would be ' if report.dry_run else ''}created; ids do not change"
        )
    if not plan.empty and not report.dry_run:
        lines.append("review with `git status .lorebook/` (renames), then commit")
    return lines


def rebalance_command(
    ctx: typer.Context,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Print the plan and write nothing.")
    ] = False,
    verbose: Annotated[
        bool, typer.Option("--verbose", "-v", help="List every move and why it is made.")
    ] = False,
    planner: Annotated[
        str | None,
        typer.Option(
            "--planner",
            help="Who proposes the plan: deterministic, or a curator that can (http, "
            "headless). Default: rebalance.planner in config.yaml.",
        ),
    ] = None,
    json_output: JsonOption = False,
) -> None:
    """Split over-full folders into topical subfolders, merge under-full ones, split notes.

    A folder holding more than rebalance.max_notes notes directly, or whose index.md would
    pass rebalance.max_index_chars, is split into subfolders by the tags, source documents
    and title words its notes share; a branch below the top level holding fewer than
    rebalance.min_notes is merged into its parent; a note at the top of nodes/ goes to its
    kind's folder; an active note longer than rebalance.split_note_chars whose ## sections
    share few terms is split into one note per concept (its id retired to the new ones in
    nodes/.redirects.json). The same notes give the same plan on every machine. Moves are
    renames: ids never change, and a note an open conflict is about never moves nor is split.
    The plan is checked
    against the tree before the first write; an interrupted run is finished by running it
    again. With rebalance.planner (or --planner) naming a curator, that curator proposes the
    plan when there is work, checked the same way; one it gets wrong is set aside with one
    warning and the deterministic plan is applied.
    """
    from lorebook.cli.progress import finish_hint
    from lorebook.config import load_config
    from lorebook.rebalance.run import run_rebalance

    paths = repo_paths(ctx)
    config = load_config(paths)
    with finish_hint("lorebook rebalance", "it finishes the interrupted moves first"):
        report = run_rebalance(paths, config, dry_run=dry_run, planner=planner)
    for warning in report.warnings:
        warn(f"lorebook: warning: {warning}")
    if json_output:
        print_json(report.as_json())
        return
    for line in report_lines(report, verbose=verbose):
        say(line)


def register(app: typer.Typer) -> None:
    """Add the command to the app."""
    app.command("rebalance")(rebalance_command)
