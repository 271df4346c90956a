"""``lorebook eval extraction``: per-input figures of the rules extractor and the pre-selection."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from lorebook.cli.output import JsonOption, print_json, say

if TYPE_CHECKING:
    from lorebook.evaluation.extraction import Counts, ExtractionEval
    from lorebook.evaluation.extraction_corpus import ProjectFigures
    from lorebook.evaluation.extraction_loo import LeaveOneOut


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def _row(name: str, counts: Counts, share: float | None = None) -> str:
    words = "" if share is None else f" {share:>6.1%}"
    return (
        f"{name:48.48} {counts.inputs:6} {counts.teaching:8} {counts.flagged:7}"
        f" {_pct(counts.precision):>9} {_pct(counts.recall):>6}"
        f" {_pct(counts.selection_recall):>10}{words}"
    )


def _lines(report: ExtractionEval) -> list[str]:
    from lorebook.evaluation.extraction import Counts, by_label_kind, by_proposed_kind

    lines: list[str] = []
    if report.sessions:
        header = f"{'session':44} {'inputs':>6} {'teaching':>8} {'flagged':>7}"
        lines.append(f"{header} {'precision':>9} {'recall':>6} {'pre-recall':>10} {'words':>6}")
        for session in report.sessions:
            share = session.sent_words / session.total_words if session.total_words else 0.0
            lines.append(_row(session.file, Counts.of(session.inputs), share))
        lines.append(_row("total", Counts.of(report.results), report.word_share or 0.0))
        lines.append("")
        lines.append("recall by labelled kind:")
        lines += ["  " + _row(k, c) for k, c in by_label_kind(report.results).items()]
        lines.append("precision by proposed kind:")
        lines += ["  " + _row(k, c) for k, c in by_proposed_kind(report.results).items()]
    if report.prompt_eval is not None:
        figures = report.prompt_eval
        if lines:
            lines.append("")
        lines.append(
            f"prompt-eval: {figures.matched} of {figures.points} expected points matched "
            f"(deterministic proxy); {figures.empty_proposals} proposals from the "
            f"{figures.empty_sessions} sessions that expect none"
        )
        failed = ", ".join(f"{fixture} ({why})" for fixture, why in sorted(figures.failed.items()))
        lines.append(
            f"fixtures passed: {figures.passed} of {figures.fixtures} (nothing forbidden, no more"
            f" proposals than each allows){'; failed: ' + failed if failed else ''}"
        )
    return lines


def extraction_command(
    sessions: Annotated[
        list[Path] | None,
        typer.Option("--sessions", help="Session files to measure (repeat, or give several)."),
    ] = None,
    labels: Annotated[
        Path | None,
        typer.Option(
            "--labels",
            help="JSON Lines labels of the sessions' human inputs (needed with --sessions).",
        ),
    ] = None,
    prompt_eval: Annotated[
        Path | None,
        typer.Option(
            "--prompt-eval",
            help="A kenkeep prompt-eval folder (sessions/, expected/): count matched points "
            "and the proposals from sessions that expect none.",
            file_okay=False,
        ),
    ] = None,
    corpus: Annotated[
        list[Path] | None,
        typer.Option(
            "--corpus",
            help="A corpus folder of projects (each with sessions/ and labels.jsonl), or one "
            "project folder (repeat): figures per project.",
            file_okay=False,
        ),
    ] = None,
    extra: Annotated[
        list[Path] | None,
        typer.Argument(help="More session files, as after --sessions.", show_default=False),
    ] = None,
    json_output: JsonOption = False,
) -> None:
    """Measure the rules extractor and the LLM pre-selection against labelled inputs.

    Per input: precision and recall of the rules extractor (an input is flagged when a
    proposal is made from it), by labelled kind and by proposed kind; the pre-selection's
    recall and the share of the sessions' words it would send to a model.

    --corpus measures project by project, pooled, and pooled over the held-out projects
    (their SOURCE.json marks neither tuned_on nor shaped_on), with the share of each
    labelled rule's content words its proposal's title holds ('title'); then
    leave-one-project-out: each project scored by the rules with the learned gate fitted on
    the other projects only (`lorebook eval extraction --corpus benchmarks/corpus` in a clone
    of lorebook).
    """
    from lorebook.errors import UsageError
    from lorebook.evaluation.extraction import evaluate_extraction, report_json

    if corpus:
        if sessions or extra or labels or prompt_eval:
            raise UsageError("--corpus goes alone: its projects hold their sessions and labels")
        _corpus_report(corpus, json_output)
        return
    paths = [*(sessions or []), *(extra or [])]
    if not paths and prompt_eval is None:
        raise UsageError("nothing to measure: give --sessions with --labels, or --prompt-eval")
    report = evaluate_extraction(paths, labels, prompt_eval)
    if json_output:
        print_json(report_json(report))
        return
    for line in _lines(report):
        say(line)


_HEADER = (
    f"{'project':48} {'inputs':>6} {'teaching':>8} {'flagged':>7}"
    f" {'precision':>9} {'recall':>6} {'pre-recall':>10} {'words':>6}"
)


def leave_one_out_lines(report: LeaveOneOut) -> list[str]:
    """The table of the rules with the learned gate, each project's gate fitted without it."""
    from lorebook.evaluation.extraction_corpus import pooled

    lines = [
        "",
        "rules extractor + learned gate, leave-one-project-out (each project's gate is fitted on",
        "the other projects' labels; 'gate' is its threshold, 0.00 when it keeps every proposal):",
        f"{_HEADER} {'gate':>5}",
    ]
    for f, cut in zip(report.gated, report.thresholds, strict=True):
        lines.append(f"{_row(f.label, f.counts, f.word_share or 0.0)} {cut:5.2f}")
    counts, share = pooled(report.gated)
    lines.append(_row("pooled", counts, share or 0.0))
    return lines


def _corpus_report(roots: list[Path], json_output: bool) -> None:
    from lorebook.evaluation.extraction_corpus import load_corpus, pooled
    from lorebook.evaluation.extraction_loo import leave_one_out

    report = leave_one_out(load_corpus(roots))
    figures = list(report.rules)
    counts, share = pooled(figures)
    if json_output:
        from lorebook.evaluation.extraction import counts_json

        def rows(projects: Sequence[ProjectFigures]) -> list[dict[str, object]]:
            return [
                {"project": f.name, "tuned_on": f.tuned_on, "shaped_on": f.shaped_on,
                 **counts_json(f.counts),
                 "word_share": None if f.word_share is None else round(f.word_share, 3)}
                for f in projects
            ]  # fmt: skip

        gated, gated_share = pooled(report.gated)
        print_json({
            "projects": rows(figures),
            "pooled": {**counts_json(counts),
                       "word_share": None if share is None else round(share, 3)},
            "leave_one_out": {
                "projects": [
                    {**row, "gate_threshold": round(cut, 4)}
                    for row, cut in zip(rows(report.gated), report.thresholds, strict=True)
                ],
                "pooled": {**counts_json(gated),
                           "word_share": None if gated_share is None else round(gated_share, 3)},
            },
        })  # fmt: skip
        return
    say("rules extractor alone (its phrase rules were written reading these projects but the")
    say("held-out ones: see each project's SOURCE.json; 'title': the share of a labelled rule's")
    say("content words its proposal's title holds, over the teaching inputs proposed):")
    say(f"{_HEADER} {'title':>5}")
    for f in figures:
        say(f"{_row(f.label, f.counts, f.word_share or 0.0)} {_pct(f.counts.title_share):>5}")
    say(f"{_row('pooled', counts, share or 0.0)} {_pct(counts.title_share):>5}")
    held_out = [f for f in figures if f.held_out]
    if held_out and len(held_out) != len(figures):
        counts, share = pooled(held_out)
        say(f"{_row('pooled, held out', counts, share or 0.0)} {_pct(counts.title_share):>5}")
    for line in leave_one_out_lines(report):
        say(line)


def register(eval_app: typer.Typer) -> None:
    """Add ``extraction`` to the ``lorebook eval`` group."""
    eval_app.command("extraction")(extraction_command)
