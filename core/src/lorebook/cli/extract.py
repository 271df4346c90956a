"""``lorebook extract``: turn staged sessions into proposals, with their quotes checked."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from lorebook.cli.output import JsonOption, print_json, repo_paths, say, warn
from lorebook.config import load_config

if TYPE_CHECKING:
    from lorebook.extract.run import ExtractReport, SessionOutcome
    from lorebook.kb.paths import KBPaths


def _progress_line(outcome: SessionOutcome) -> str:
    where = outcome.session or outcome.log
    if outcome.status == "failed":
        return f"failed     {where}: {outcome.error}"
    if outcome.status == "skipped":
        return f"skipped    {where}: {outcome.error}"
    return (
        f"extracted  {where}: {outcome.kept} kept, {outcome.rejected} rejected "
        f"({outcome.new_turns} new turns)"
    )


def _summary(report: ExtractReport) -> list[str]:
    lines = [
        f"extractor {report.extractor}: {report.count('extracted')} sessions extracted, "
        f"{report.count('failed')} failed, {report.count('skipped')} skipped",
        f"proposals: {report.kept} kept, {report.rejected} rejected (quote not in the session)",
    ]
    fraction = report.token_fraction
    if fraction is not None:
        lines.append(
            f"sent to the model: {report.sent_words} of {report.total_words} words "
            f"({fraction:.1%}) in {report.llm_calls} calls"
        )
    if report.rejected:
        lines.append("rejections are listed in .lorebook/_logs/extract-rejections.log")
    if report.kept:
        lines.append("next: `lorebook curate` turns the proposals into notes for you to review")
    return lines


def _unread_languages(paths: KBPaths, report: ExtractReport) -> str | None:
    """A warning when many of the person's inputs are in a language the rules do not read.

    Such a session gives the rules extractor nothing to find: a run that proposes nothing
    says why, and what reads it (:mod:`lorebook.extractors.unread`).
    """
    from collections import Counter

    from lorebook.capture.stage import load_log
    from lorebook.extractors.unread import unread_language

    found: Counter[str] = Counter()
    inputs = 0
    for outcome in report.sessions:
        try:
            log = load_log(paths.sessions / outcome.log) if outcome.status == "extracted" else None
        except (OSError, ValueError):
            continue
        for turn in log.turns if log is not None else ():
            if turn.role == "user" and turn.text.strip():
                inputs += 1
                if language := unread_language(turn.text):
                    found[language] += 1
    unread = sum(found.values())
    if unread < 3 or unread * 5 < inputs:
        return None
    named = ", ".join(f"{language} ({count})" for language, count in found.most_common(3))
    return (
        f"lorebook: {unread} of the {inputs} inputs of these sessions are in a language the "
        f"rules extractor does not read ({named}); it reads English, French, Japanese and "
        "Chinese. An LLM extractor reads any: `lorebook extract --extractor headless` runs "
        "your assistant's own CLI (extraction.extractor in config.yaml makes it the default)"
    )


def extract_command(
    ctx: typer.Context,
    extractor: Annotated[
        str | None,
        typer.Option(
            "--extractor",
            help="Extractor to use instead of extraction.extractor in config.yaml "
            "(rules, headless, http, or one a plugin provides).",
        ),
    ] = None,
    retry_failed: Annotated[
        bool,
        typer.Option("--retry-failed", help="Also retry sessions whose extraction failed."),
    ] = False,
    json_output: JsonOption = False,
) -> None:
    """Extract proposals from every pending staged session.

    Each proposal carries a quote from its session; one whose quote is not there is
    rejected and logged. Progress goes to stderr, one line per session. Exits 1 if any
    session failed (`lorebook status` shows it; rerun with --retry-failed).
    """
    import anyio

    from lorebook.cli.progress import progress as progress_bar
    from lorebook.cli.usage import require_providers
    from lorebook.extract.run import extract_pending, logs_to_extract

    paths = repo_paths(ctx)
    config = load_config(paths)
    require_providers("extractor", [extractor] if extractor else [])
    total = len(logs_to_extract(paths, retry=retry_failed))
    with progress_bar("extracting sessions", total, json_output=json_output) as advance:

        def progress(outcome: SessionOutcome) -> None:
            warn(_progress_line(outcome))
            advance()

        report = anyio.run(
            lambda: extract_pending(
                paths, config, extractor_name=extractor, retry=retry_failed, progress=progress
            )
        )
    if json_output:
        print_json(report.as_json())
    else:
        for line in _summary(report):
            say(line)
        if report.extractor == "rules" and (unread := _unread_languages(paths, report)):
            warn(unread)
    if report.count("failed"):
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    """Add the command to the app."""
    app.command("extract")(extract_command)
