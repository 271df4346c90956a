"""``lorebook stats``: what injected notes cost and whether the agent used them."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from lorebook.cli.output import JsonOption, plural, print_json, repo_paths

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
    verbose: Annotated[
        bool,
        typer.Option(
            "--verbose", "-v", help="Name each note never injected, or injected and never used."
        ),
    ] = False,
    json_output: JsonOption = False,
) -> None:
    """Per event and per note: times injected, characters, how often the agent then used it.

    Read from the staged session logs (.lorebook/_sessions/) of the sessions lorebook
    served (imports, bootstrap documents and harvested memories are not sessions). A note
    counts as used when one of the next three assistant turns cites its file, quotes it,
    runs what it says, names its code or paraphrases it; a command it forbids counts as
    broken (docs/stats.md spells out each signal and its confidence). Also counts the notes
    never injected and those injected but never used (--verbose names each), and gives hook
    latency per event (the host's own records where it keeps them, else lorebook's timing
    log) and the standing cost every session pays. Rewrites .lorebook/.cache/usage.json.
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
    _print_report(report, verbose=verbose)


def _table(title: str, columns: list[str], rows: list[list[str]]) -> object:
    from rich.table import Table
    from rich.text import Text

    from lorebook.inject.sanitize import for_terminal

    table = Table(title=title, title_justify="left")
    for index, column in enumerate(columns):
        if index == 0:
            table.add_column(column, justify="left", no_wrap=True)
        else:
            table.add_column(column, justify="right")
    for row in rows:
        table.add_row(*(Text(for_terminal(cell)) for cell in row))  # text, not rich markup
    return table


def _print_report(report: StatsReport, *, verbose: bool) -> None:
    from rich.console import Console

    console = Console(highlight=False, soft_wrap=True)
    if not console.is_terminal:
        console = Console(highlight=False, soft_wrap=True, width=200)  # ids are never folded
    since = f" since {report.since}" if report.since else ""
    console.print(served_line(report) + since)
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
    from lorebook.inject.sanitize import for_terminal

    for line in summary_lines(report, verbose=verbose):
        console.print(for_terminal(line), markup=False)


def served_line(report: StatsReport) -> str:
    """How many sessions the figures come from, and the staged logs that are not sessions."""
    sessions = plural(report.sessions, "session")
    others = report.staged_logs - report.sessions
    if not others:
        return f"{sessions} lorebook served"
    logs = "1 other staged log" if others == 1 else f"{others} other staged logs"
    return (
        f"{sessions} lorebook served ({logs}: imports, bootstrap documents or harvested "
        "memories, which no hook served)"
    )


def summary_lines(report: StatsReport, *, verbose: bool) -> list[str]:
    """The lines under the tables: standing cost, the notes lists, problems.

    A list of note ids is a count, with the ids one per line under it with ``verbose``: a
    knowledge base of hundreds of notes would otherwise print them all on one line.
    """
    standing = report.standing
    mean = standing["session_start_mean"]
    lines = [
        f"standing cost per session: {standing['per_session']} characters (pointer block "
        f"{_sizes(standing['pointer_block'])}, skill line {_sizes(standing['skill_line'])}, "
        f"session start mean {'n/a' if mean is None else mean})"
    ]
    sessions = plural(report.sessions, "session")
    lines += _id_list(f"never injected in {sessions}", report.never_injected, "active note",
                      verbose=verbose)  # fmt: skip
    lines += _id_list("injected, never used", report.never_used, "note", verbose=verbose)
    runs = sum(
        len(r.samples) for r in report.latency if (r.event, r.source) == ("prompt", "lorebook")
    )
    if not report.sessions and runs:  # the hooks ran, yet no captured session shows it
        lines.append(
            f"the hooks answered {plural(runs, 'prompt')}, yet no session capture staged holds"
            " them: injections are counted from the transcripts capture stages when a"
            " session stops or ends (`lorebook status` lists those)"
        )
    lines += [f"problem: {problem}" for problem in report.problems]
    return lines


def _sizes(found: object) -> str:
    """``{"CLAUDE.md": 469}`` as "469 in CLAUDE.md"; "none" when empty.

    Several files: a host reads its own, so the cost counts the largest ("the largest of 469
    in CLAUDE.md, 469 in AGENTS.md"), and the parts shown do not add up to more than it.
    """
    if not isinstance(found, dict) or not found:
        return "none"
    sizes = ", ".join(f"{chars} in {name}" for name, chars in found.items())
    return sizes if len(found) == 1 else f"the largest of {sizes}"


def _id_list(head: str, ids: list[str], what: str, *, verbose: bool) -> list[str]:
    if not ids:
        return [f"{head}: none"]
    if verbose:
        return [f"{head}: {plural(len(ids), what)}:", *(f"  {i}" for i in ids)]
    return [f"{head}: {plural(len(ids), what)} (--verbose names each)"]


def register(app: typer.Typer) -> None:
    """Add ``stats`` to the application."""
    app.command("stats")(stats_command)
