"""``lorebook stats``: what injected notes cost and whether the agent used them."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from lorebook.cli.output import JsonOption, print_json, repo_paths

if TYPE_CHECKING:
    from lorebook.stats.report import StatsReport


def stats_command(
    ctx: typer.Context,
    since: Annotated[
        str | None,
        typer.Option(
            "--since",
            metavar="DATE",
            help="Only sessions active on or after this date (YYYY-MM-DD or ISO 8601, UTC).",
        ),
    ] = None,
    json_output: JsonOption = False,
) -> None:
    """Per event and per note: times injected, characters, how often the agent then used it.

    Read from the staged session logs (.lorebook/_sessions/). A note counts as used when one
    of the next three assistant turns cites its file, quotes it, runs what it says, names
    its code or paraphrases it; a command it forbids counts as broken (docs/stats.md spells
    out each signal and its confidence). Also lists notes never injected and notes injected
    but never used, hook latency per event (the host's own records where it keeps them,
    else lorebook's timing log) and the standing cost every session pays. Rewrites
    .lorebook/.cache/usage.json.
    """
    from lorebook.stats.report import compute_stats, parse_since

    paths = repo_paths(ctx)
    try:
        cutoff = parse_since(since) if since is not None else None
    except ValueError as exc:
        raise typer.BadParameter(str(exc), param_hint="--since") from None
    report = compute_stats(paths, cutoff)
    if json_output:
        print_json(report.as_json())
        return
    _print_report(report)


def _table(title: str, columns: list[str], rows: list[list[str]]) -> object:
    from rich.table import Table

    table = Table(title=title, title_justify="left")
    for index, column in enumerate(columns):
        if index == 0:
            table.add_column(column, justify="left", no_wrap=True)
        else:
            table.add_column(column, justify="right")
    for row in rows:
        table.add_row(*row)
    return table


def _print_report(report: StatsReport) -> None:
    from rich.console import Console

    console = Console(highlight=False, soft_wrap=True)
    if not console.is_terminal:
        console = Console(highlight=False, soft_wrap=True, width=200)  # ids are never folded
    since = f" since {report.since}" if report.since else ""
    console.print(f"{report.sessions} staged sessions{since}")
    events = [
        [r.event, str(r.injections), str(r.chars), str(r.notes), str(r.used), str(r.broke)]
        for r in report.events
    ]
    head = ["event", "injections", "chars", "notes", "used", "broken"]
    console.print(_table("Injections by event", head, events))
    notes = [
        [r.note_id, str(r.injected), str(r.chars), str(r.high), str(r.medium), str(r.broke)]
        for r in report.notes
    ]
    head = ["note", "injected", "chars", "used (high)", "used (medium)", "broken"]
    console.print(_table("Notes", head, notes))
    latency = [
        [str(v) for v in (j["event"], j["source"], j["count"], j["median_ms"], j["p95_ms"])]
        for j in (row.as_json() for row in report.latency)
    ]
    console.print(
        _table("Hook latency (ms)", ["event", "source", "runs", "median", "p95"], latency)
    )
    _print_lists(console, report)


def _print_lists(console: object, report: StatsReport) -> None:
    say = console.print  # type: ignore[attr-defined]
    standing = report.standing
    say(
        f"standing cost per session: {standing['per_session']} characters "
        f"(pointer block {standing['pointer_block'] or 'none'}, skill line "
        f"{standing['skill_line'] or 'none'}, session start mean "
        f"{'n/a' if standing['session_start_mean'] is None else standing['session_start_mean']})"
    )
    never = ", ".join(report.never_injected) or "none"
    say(f"never injected in {report.sessions} sessions: {never}")
    say(f"injected, never used: {', '.join(report.never_used) or 'none'}")
    for problem in report.problems:
        say(f"problem: {problem}")


def register(app: typer.Typer) -> None:
    """Add ``stats`` to the application."""
    app.command("stats")(stats_command)
