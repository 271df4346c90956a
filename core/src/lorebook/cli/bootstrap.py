"""``lorebook bootstrap``: notes drafted from the docs and instruction files a repo has."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from lorebook.cli.output import JsonOption, finish, repo_paths
from lorebook.config import load_config

if TYPE_CHECKING:
    from lorebook.bootstrap.run import BootstrapReport


def _summary(report: BootstrapReport) -> list[str]:
    if report.documents == 0:
        return ["nothing to bootstrap: no document found (see `lorebook bootstrap --help`)"]
    if not report.drafted and not report.empty and report.curation is None:
        return [
            f"nothing to bootstrap: all {report.documents} documents are unchanged since "
            "bootstrap last read them (.lorebook/.state/bootstrap-state.json)"
        ]
    lines = [
        f"documents: {report.documents} found, {len(report.unchanged)} unchanged, "
        f"{len(report.drafted)} drafted ({report.proposals} proposals), "
        f"{len(report.empty)} with nothing to draft"
    ]
    if report.resumed:
        lines.append(f"resumed {len(report.resumed)} document(s) an earlier run staged")
    for collision in report.collisions:
        lines.append(
            f"collision: {collision['origin']} would be {collision['existing']}, which exists "
            f"(left as it is); written as {collision['written']}"
        )
    if report.curation is not None:
        from lorebook.cli.curate import _summary as curate_summary

        lines += curate_summary(report.curation)[-4:]
    if report.left:
        lines.append(f"left pending (a curation step failed): {', '.join(report.left)}")
    return lines


def bootstrap_command(
    ctx: typer.Context,
    paths_: Annotated[
        list[str] | None,
        typer.Argument(
            metavar="[PATH...]",
            help="Documents or folders to read (default: READMEs, docs/, ADRs, CLAUDE.md, "
            "AGENTS.md, .cursor/rules, .github/copilot-instructions.md, "
            ".github/instructions).",
            show_default=False,
        ),
    ] = None,
    extractor: Annotated[
        str | None,
        typer.Option(
            "--extractor",
            help="Pass each document's sections through this extractor provider (headless, "
            "http, or a plugin's) instead of drafting one note per rule or section.",
        ),
    ] = None,
    curator: Annotated[
        str | None, typer.Option("--curator", help="Curator to use (default: rules).")
    ] = None,
    json_output: JsonOption = False,
) -> None:
    """Draft notes from the documents the repository already has.

    One Cursor rule, Copilot instructions file or ADR is one proposal; any other document
    gives one proposal per section. A rule's globs become the note's file anchors, and every
    note cites its document and section in lb_derived_from. Proposals go through curation
    (duplicates merged, contradictions become conflict files; no note is overwritten). A
    rerun reads only new or changed documents; an interrupted run resumes where it stopped.
    lorebook's own block in CLAUDE.md and AGENTS.md is skipped. Review with `lorebook
    review`, then commit.
    """
    from lorebook.bootstrap.run import run_bootstrap
    from lorebook.cli.progress import progress

    paths = repo_paths(ctx)
    config = load_config(paths)
    with progress("bootstrap: documents", json_output=json_output) as advance:
        report = run_bootstrap(
            paths,
            config,
            paths_ or (),
            extractor=extractor,
            curator=curator,
            progress=lambda _rel: advance(),
        )
    finish(
        report.problems,
        report.as_json,
        lambda: _summary(report),
        json_output=json_output,
        failed=bool(report.left),
    )


def register(app: typer.Typer) -> None:
    """Add the command to the app."""
    app.command("bootstrap")(bootstrap_command)
