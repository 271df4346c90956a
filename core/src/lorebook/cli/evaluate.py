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
    Path | None,
    typer.Option(
        "--notes",
        help="A .lorebook/nodes folder, an OKF bundle (kenkeep pack), a folder of Cursor rule "
        "files, or a LoCoMo .json file (which brings its own questions).",
    ),
]
CorpusOption = Annotated[
    Path | None,
    typer.Option(
        "--corpus",
        help="Instead of --notes: a folder of projects, each with notes/ and queries.jsonl "
        "(benchmarks/retrieval); one row per project and the pooled row, leave-one-project-out.",
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
OthersOption = Annotated[
    bool,
    typer.Option(
        "--other-projects",
        help="With --corpus: each project's store also holds the other projects' notes, "
        "as distractors.",
    ),
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
    notes: NotesOption = None,
    queries: QueriesOption = None,
    distractors: DistractorsOption = None,
    k: KOption = 5,
    config: ConfigOption = None,
    verbose: VerboseOption = False,
    usage: UsageOption = None,
    corpus: CorpusOption = None,
    other_projects: OthersOption = False,
    json_output: JsonOption = False,
) -> None:
    """Rank NOTES for QUERIES: our ranker as the hook injects it and raw, grep, plain BM25.

    With --corpus, every project of a corpus on its own notes, one row each and pooled.
    """
    from lorebook.errors import UsageError

    if corpus is not None:
        if notes is not None or queries is not None or usage is not None:
            raise UsageError("--corpus brings its own notes and queries: drop --notes, "
                             "--queries and --usage")  # fmt: skip
        _retrieval_corpus(
            corpus, list(distractors or []), k, config, verbose, json_output, other_projects
        )
        return
    if other_projects:
        raise UsageError("--other-projects needs --corpus")
    if notes is None:
        raise UsageError("eval retrieval needs --notes (with --queries) or --corpus")
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
    from lorebook.evaluation.serving import serving_measures, serving_table

    serving = serving_measures(evalset, settings)
    if json_output:
        values = settings_values(settings)
        values["source"] = str(config) if config is not None else "defaults"
        print_json(json_document(report, values, verbose) | {"serving": serving})
        return
    if verbose:
        for line in verbose_lines(report):
            say(line)
        say()
    say(summary_line(report))
    say(f"hook settings: {config if config is not None else 'defaults'}")
    say(table(report))
    say()
    say(serving_table(serving))


def _retrieval_corpus(
    corpus: Path,
    distractors: list[Path],
    k: int,
    config: Path | None,
    verbose: bool,
    json_output: bool,
    others: bool = False,
) -> None:
    from lorebook.evaluation import projects as pj
    from lorebook.evaluation.report import verbose_lines
    from lorebook.evaluation.retrieval import hook_config, settings_values

    settings = hook_config(config)
    found = pj.load_retrieval_corpus(corpus)
    extra = [(path, path.name or "distractors") for path in distractors]
    report = pj.run_corpus(
        found, settings, k, plugin=pj.serving_plugin(), distractors=extra, others=others
    )
    if json_output:
        values = settings_values(settings)
        values["source"] = str(config) if config is not None else "defaults"
        print_json(pj.corpus_document(report, values))
        return
    if verbose:
        for project, run in zip(report.rows, report.reports, strict=True):
            say(f"== {project.name}")
            for line in verbose_lines(run):
                say(line)
            say()
    queries = sum(r.answerable + r.refusals for r in report.rows)
    say(f"{len(report.rows)} projects, {queries} queries, "
        f"{len(distractors)} distractor folder(s); k = {k}")  # fmt: skip
    say(f"hook settings: {config if config is not None else 'defaults'}")
    say(pj.corpus_table(report))
    for line in pj.corpus_notes(report):
        say(line)


def register(app: typer.Typer) -> None:
    """Add the ``eval`` group to the application."""
    app.add_typer(eval_app, name="eval")
