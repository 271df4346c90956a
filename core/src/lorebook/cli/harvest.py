"""``lorebook harvest``: a host's own memories of this repository, into team review."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from lorebook.cli.output import JsonOption, finish, repo_paths, warn
from lorebook.config import load_config

if TYPE_CHECKING:
    from lorebook.harvest.run import HarvestReport


def _summary(report: HarvestReport) -> list[str]:
    if report.store is None:
        return [f"nothing to harvest: {report.host} keeps no memories for this repository here"]
    skipped = ", ".join(f"{n} {why}" for why, n in sorted(report.skipped.items()))
    lines = [
        f"{report.host} memories in {report.store}: {report.entries} for this repository"
        + (f" (left out: {skipped})" if skipped else "")
    ]
    lines += _personal_lines(report)
    if not report.new and not report.modified:
        if report.personal:
            return lines
        lines.append(
            f"nothing new: {report.unchanged} unchanged since the last harvest"
            + (f", {len(report.rejected_before)} rejected before" if report.rejected_before else "")
        )
        return lines
    lines.append(
        f"proposed: {len(report.new)} new, {len(report.modified)} edited (as modifications); "
        f"{report.unchanged} unchanged, {len(report.rejected_before)} rejected before"
    )
    for key, outcome in sorted(report.outcomes.items()):
        if outcome != "personal":
            lines.append(f"{outcome:<9} {key}")
    if report.curation is not None:
        from lorebook.cli.curate import summary_lines

        lines += summary_lines(report.curation, unit=None)
    if report.left:
        lines.append(f"left for the next run (a curation step failed): {', '.join(report.left)}")
    return lines


def _personal_lines(report: HarvestReport) -> list[str]:
    if not report.personal:
        return []
    lines = [
        f"about you, kept in your personal store ({report.personal_store}), not the team's: "
        f"{len(report.personal)}"
    ]
    lines += [f"personal  {key} -> {note}" for key, note in sorted(report.personal.items())]
    if not report.personal_served:
        lines.append("  (not served here until `stores:` in .lorebook/config.yaml names personal)")
    return lines


def harvest_command(
    ctx: typer.Context,
    host: Annotated[
        str,
        typer.Option(
            "--from",
            help="Whose memories: a harness whose plugin reads its host's own memory, such as "
            "claude (Claude Code's auto memory of this project) or codex (Codex memories "
            "whose working directory is this repository).",
        ),
    ],
    curator: Annotated[
        str | None, typer.Option("--curator", help="Curator to use (default: rules).")
    ] = None,
    json_output: JsonOption = False,
) -> None:
    """Propose the host's new and edited memories of this repository as notes.

    Each memory goes through curation once; an edited one comes back as a modification of
    the note it became, and one whose claim was rejected never comes back. A memory about
    you rather than the project (Claude Code's `user` memories, "The user prefers terse
    answers") goes to your personal store (never committed, read in every repository), not
    the team's. Honours CLAUDE_CONFIG_DIR and CODEX_HOME. Review with `lorebook review`,
    then commit.
    """
    from lorebook.cli.progress import progress
    from lorebook.harvest.hosts import memory_hosts
    from lorebook.harvest.run import run_harvest

    hosts = memory_hosts()
    if host not in hosts:
        warn(f"lorebook: error: --from {host!r}: expected one of {', '.join(hosts) or 'none'}")
        raise typer.Exit(2)
    paths = repo_paths(ctx)
    with progress(f"harvest: {host} memories", json_output=json_output) as advance:
        report = run_harvest(
            paths,
            load_config(paths),
            host,
            curator=curator,
            progress=lambda _key: advance(),
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
    app.command("harvest")(harvest_command)
