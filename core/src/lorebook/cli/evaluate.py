"""``lorebook eval``: measure lorebook against labelled data and baselines.

``eval retrieval`` ranks a note collection for a query set with the prompt hook's own code
(:mod:`lorebook.evaluation.retrieval`) and with grep and plain BM25, and prints one table;
``eval extraction`` (:mod:`lorebook.cli.eval_extraction`) scores the extractor.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from lorebook.cli import eval_extraction
from lorebook.cli.output import JsonOption, print_json, say, warn

eval_app = typer.Typer(
    name="eval",
    help="Measure lorebook: retrieval against grep and plain BM25, extraction against "
    "labelled sessions.",
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode=None,
)
eval_extraction.register(eval_app)


NotesOption = Annotated[
    Path,
    typer.Option(
        "--notes",
        help="A .lorebook/nodes folder, an OKF bundle (kenkeep pack), a folder of Cursor rule "
        "files, or a LoCoMo .json file (which brings its own questions).",
    ),
]
QueriesOption = Annotated[
    Path | None,
    typer.Option(
        "--queries",
        help='JSON Lines of {"query": ..., "expected": [ids]} ([] = nothing should be '
        "injected), or kenkeep's golden-queries.yaml.",
    ),
]
DistractorsOption = Annotated[
    list[Path] | None,
    typer.Option("--distractors", help="A folder of notes added to the store (repeatable)."),
]
KOption = Annotated[int, typer.Option("--k", min=1, help="The window of recall@k.")]
ConfigOption = Annotated[
    Path | None,
    typer.Option("--config", help="A lorebook config.yaml whose settings the hook uses."),
]
VerboseOption = Annotated[
    bool, typer.Option("--verbose", help="List what each system served for each query.")
]


UsageOption = Annotated[
    Path | None,
    typer.Option(
        "--usage",
        help="Usage counts (.lorebook/.cache/usage.json, kept by capture and `lorebook stats`):"
        " adds a row with notes weighed by them.",
        exists=True,
        dir_okay=False,
    ),
]


@eval_app.command("retrieval")
def retrieval(
    notes: NotesOption,
    queries: QueriesOption = None,
    distractors: DistractorsOption = None,
    k: KOption = 5,
    config: ConfigOption = None,
    verbose: VerboseOption = False,
    usage: UsageOption = None,
    json_output: JsonOption = False,
) -> None:
    """Rank NOTES for QUERIES: our ranker as the hook injects it and raw, grep, plain BM25."""
    from lorebook.evaluation.report import json_document, summary_line, table, verbose_lines
    from lorebook.evaluation.retrieval import (
        hook_config,
        load_evalset,
        run_retrieval,
        settings_values,
    )
    from lorebook.stats.usage import read_usage_file

    settings = hook_config(config)
    evalset = load_evalset(notes, queries, list(distractors or []))
    for problem in evalset.skipped:
        warn(f"skipped (not served by the hook either): {problem}")
    report = run_retrieval(evalset, settings, k, read_usage_file(usage) if usage else None)
    if json_output:
        values = settings_values(settings)
        values["source"] = str(config) if config is not None else "defaults"
        print_json(json_document(report, values, verbose))
        return
    if verbose:
        for line in verbose_lines(report):
            say(line)
        say()
    say(summary_line(report))
    say(f"hook settings: {config if config is not None else 'defaults'}")
    say(table(report))


def register(app: typer.Typer) -> None:
    """Add the ``eval`` group to the application."""
    app.add_typer(eval_app, name="eval")
