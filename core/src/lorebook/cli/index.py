"""``lorebook index rebuild``: regenerate ENTRY.md, GRAPH.md and every folder's index.md."""

from __future__ import annotations

from typing import Annotated

import typer

from lorebook.cli.output import JsonOption, print_json, repo_paths, say, warn
from lorebook.config import load_config
from lorebook.kb.index import (
    RebuildReport,
    plan_rebuild,
    rebuild_indexes,
    refuse_broken,
    stale_outputs,
)
from lorebook.kb.store import load_snapshot
from lorebook.recall.sync import reconcile

index_app = typer.Typer(
    name="index", help="Generated indexes.", no_args_is_help=True, rich_markup_mode=None
)


def rebuild(
    ctx: typer.Context,
    check: Annotated[
        bool,
        typer.Option("--check", help="Write nothing; exit 1 if any generated file is stale."),
    ] = False,
    json_output: JsonOption = False,
) -> None:
    """Regenerate ENTRY.md, GRAPH.md, every index.md and note link sections.

    Run it after adding or editing notes, and after merging branches that added notes
    (regenerate from the merged notes rather than resolving conflicts in generated files).
    A note file that cannot be read is left out and named; the exit code is then 1.
    """
    paths = repo_paths(ctx)
    config = load_config(paths)
    if check:
        snap = load_snapshot(paths)
        refuse_broken(snap)
        plan = plan_rebuild(paths, snap, config.budgets.entry_chars)
        stale = stale_outputs(paths, plan) + sorted(plan.notes)
        if json_output:
            print_json({"ok": not stale, "stale": stale, "nodes_hash": plan.digest})
        elif stale:
            say("stale generated files:")
            for rel in stale:
                say(f"  {rel}")
        else:
            say("generated files are up to date")
        if stale:
            raise typer.Exit(1)
        return
    from lorebook.cli.progress import finish_hint, progress
    from lorebook.recall.changes import paused_gc

    # Every note is read into objects that live until the end: the collector finds nothing.
    with (
        finish_hint("lorebook index rebuild", "it writes only what is stale"),
        progress("rebuilding the indexes", total=2, json_output=json_output) as advance,
        paused_gc(),
    ):
        advance(0, description="rebuilding the indexes: generated files")  # two steps, each shown
        report = rebuild_indexes(paths, config.budgets.entry_chars, skip_broken=True)
        advance(description=f"rebuilding the indexes: search ({report.note_count} notes)")
        reconcile(paths, snapshot=report.snapshot)  # each note parsed once, by the rebuild
        advance()
    _report(report, json_output)
    if report.skipped:
        raise typer.Exit(1)


def _report(report: RebuildReport, json_output: bool) -> None:
    for problem in report.skipped:
        warn(f"lorebook: skipped {problem}")
    if json_output:
        print_json(
            {
                "ok": True,
                "notes": report.note_count,
                "written": list(report.written),
                "removed": list(report.removed),
                "relinked": list(report.notes_relinked),
                "nodes_hash": report.digest,
                "skipped": list(report.skipped),
            }
        )
        return
    changed = len(report.written) + len(report.removed) + len(report.notes_relinked)
    say(f"indexed {report.note_count} notes; {changed} files changed")
    for rel in (*report.written, *report.notes_relinked):
        say(f"  wrote {rel}")
    for rel in report.removed:
        say(f"  removed {rel}")


def register(app: typer.Typer) -> None:
    """Add the command group to the app."""
    index_app.command("rebuild")(rebuild)
    app.add_typer(index_app)
