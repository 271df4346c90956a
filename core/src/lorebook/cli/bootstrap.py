"""``lorebook bootstrap``: notes from the rules a repo's docs and instruction files state."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from lorebook.cli.output import JsonOption, finish, repo_paths
from lorebook.config import load_config

if TYPE_CHECKING:
    from collections.abc import Sequence

    from lorebook.bootstrap.preview import Preview
    from lorebook.bootstrap.run import BootstrapReport
    from lorebook.kb.paths import KBPaths

SHOWN_LEFT_OUT = 6
"""The reasons for leaving sentences out that the summary names (the most frequent)."""


def _documents_line(report: BootstrapReport) -> str:
    return (
        f"documents: {report.documents} found, {len(report.unchanged)} unchanged, "
        f"{len(report.drafted)} drafted ({report.proposals} proposals), "
        f"{len(report.empty)} with nothing to draft"
    )


def _statements_line(report: BootstrapReport) -> str | None:
    read = report.statements()
    if not read["read"]:
        return None
    reasons = sorted(read["left_out"].items(), key=lambda item: (-item[1], item[0]))
    named = ", ".join(f"{n} {why}" for why, n in reasons[:SHOWN_LEFT_OUT])
    return (
        f"sentences: {read['read']} read, {read['rules']} rules "
        f"({read['duplicates']} said again elsewhere, merged); left out: {named or 'none'}"
    )


def _summary(report: BootstrapReport) -> list[str]:
    if report.documents == 0:
        return ["nothing to bootstrap: no document found (see `lorebook bootstrap --help`)"]
    if not report.drafted and not report.empty and report.curation is None:
        return [
            f"nothing to bootstrap: all {report.documents} documents are unchanged since "
            "bootstrap last read them (.lorebook/.state/bootstrap-state.json)"
        ]
    lines = [_documents_line(report)]
    if (statements := _statements_line(report)) is not None:
        lines.append(statements)
    if report.resumed:
        lines.append(f"resumed {len(report.resumed)} document(s) an earlier run staged")
    for collision in report.collisions:
        lines.append(
            f"collision: {collision['origin']} would be {collision['existing']}, which exists "
            f"(left as it is); written as {collision['written']}"
        )
    if report.curation is not None:
        from lorebook.cli.curate import summary_lines

        lines += summary_lines(report.curation, unit="documents")
    if report.left:
        lines.append(f"left pending (a curation step failed): {', '.join(report.left)}")
    return lines


def _preview_lines(preview: Preview) -> list[str]:
    report = preview.report
    lines = ["dry run: nothing written", _documents_line(report)]
    if (statements := _statements_line(report)) is not None:
        lines.append(statements)
    counts = preview.counts()
    lines.append(
        f"{counts['add']} notes would be written; {counts['merge']} drafts would merge into "
        f"notes that exist, {counts['conflict']} would be conflicts, {counts['drop']} dropped"
    )
    for note in preview.added:
        lines.append(f"  + [{note.kind}] {note.title}")
        lines.append(f"      from {', '.join(note.derived_from)}")
    lines += [f"  ~ {origin} -> merged into {note_id}" for origin, note_id in preview.merged]
    lines += [f"  ! {origin} conflicts with {note_id}" for origin, note_id, _ in preview.conflicts]
    return lines


def bootstrap_command(
    ctx: typer.Context,
    paths_: Annotated[
        list[str] | None,
        typer.Argument(
            metavar="[PATH...]",
            help="Documents or folders to read (default: READMEs, CONTRIBUTING, docs/ in "
            "Markdown or reStructuredText and a docs site's .mdx pages for contributors, ADRs, "
            "CLAUDE.md, AGENTS.md, .cursor/rules, .github/copilot-instructions.md, "
            ".github/instructions).",
            show_default=False,
        ),
    ] = None,
    extractor: Annotated[
        str | None,
        typer.Option(
            "--extractor",
            help="Pass each document's sections through this extractor provider (headless, "
            "http, or a plugin's) instead of reading their rules here.",
        ),
    ] = None,
    curator: Annotated[
        str | None, typer.Option("--curator", help="Curator to use (default: rules).")
    ] = None,
    dry_run: Annotated[
        bool,
        typer.Option(
            "--dry-run",
            help="Print the notes a run would write, with counts, and write nothing (judged "
            "by the rules curator; no extractor is called).",
        ),
    ] = False,
    json_output: JsonOption = False,
) -> None:
    """Write notes from the rules the repository's documents state.

    Each rule, prohibition, definition or decision a document states becomes one note
    titled by the rule, quoting the sentence it comes from and citing the document and
    section in lb_derived_from; headings, setup steps, click-through instructions,
    changelogs and tutorials are not rules. A rule said again in another document is one
    note citing both. One ADR is one decision. A rule file's globs become its notes' file
    anchors. Notes go through curation (contradictions become conflict files; no note is
    overwritten). A rerun reads only new or changed documents; an interrupted run resumes
    where it stopped. lorebook's own block in CLAUDE.md and AGENTS.md is skipped. Review
    with `lorebook review`, then commit.
    """
    paths = repo_paths(ctx)
    if dry_run:
        _dry_run(paths, paths_ or (), extractor=extractor, json_output=json_output)
        return
    from lorebook.bootstrap.run import run_bootstrap
    from lorebook.cli.progress import finish_hint, progress

    config = load_config(paths)
    with (
        finish_hint("lorebook bootstrap", "it resumes where it stopped"),
        progress("bootstrap: documents", json_output=json_output) as advance,
    ):
        report = run_bootstrap(
            paths,
            config,
            paths_ or (),
            extractor=extractor,
            curator=curator,
            progress=lambda step, done, total: advance(
                total=total, completed=done, description=f"bootstrap: {step}"
            ),
        )
    held_back = report.curation.problems if report.curation is not None else []
    finish(
        [*report.problems, *held_back],  # curation's warnings too: what it held back
        report.as_json,
        lambda: _summary(report),
        json_output=json_output,
        failed=bool(report.left),
    )


def _dry_run(
    paths: KBPaths, targets: Sequence[str], *, extractor: str | None, json_output: bool
) -> None:
    from lorebook.bootstrap.preview import preview_bootstrap
    from lorebook.errors import LorebookError

    if extractor is not None:
        raise LorebookError(
            "--dry-run reads the documents itself; it does not call an extractor",
            hint="run without --dry-run, then review with `lorebook review`",
        )
    preview = preview_bootstrap(paths, targets)
    finish(
        preview.report.problems,
        preview.as_json,
        lambda: _preview_lines(preview),
        json_output=json_output,
        failed=False,
    )


def register(app: typer.Typer) -> None:
    """Add the command to the app."""
    app.command("bootstrap")(bootstrap_command)
