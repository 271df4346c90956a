"""``lorebook init``: create the knowledge base and wire harnesses."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Annotated

import typer

from lorebook.cli.output import JsonOption, print_json, repo_paths, say, warn
from lorebook.initialize import InitReport, init_repo, uninstall_repo


def _git_toplevel(start: Path) -> Path | None:
    try:
        out = subprocess.run(
            ["git", "rev-parse", "--show-toplevel"],
            cwd=start,
            capture_output=True,
            text=True,
            check=False,
        )
    except OSError:
        return None
    return Path(out.stdout.strip()) if out.returncode == 0 and out.stdout.strip() else None


def init_command(
    ctx: typer.Context,
    harnesses: Annotated[
        str,
        typer.Option(
            "--harnesses",
            help="Comma-separated harnesses to wire (`lorebook plugins` lists the installed ones).",
        ),
    ] = "",
    json_output: JsonOption = False,
) -> None:
    """Create .lorebook/ in this repository (or update it) and wire the named harnesses.

    Safe to run again: a second run with the same harnesses changes no byte. Run it once on
    every fresh clone to give this machine working hooks.
    """
    start = Path((ctx.find_root().obj or {}).get("repo") or Path.cwd()).resolve()
    top = _git_toplevel(start)
    repo = top or start
    if top is None:
        warn(
            f"lorebook: warning: {repo} is not inside a git repository; the knowledge base is "
            "meant to be committed and reviewed with git"
        )
    names = [n.strip() for n in harnesses.split(",") if n.strip()]
    _show(init_repo(repo, names), json_output, "initialised")


def _show(report: InitReport, json_output: bool, verb: str) -> None:
    if json_output:
        print_json(report.as_json())
        return
    if report.changed:
        say(f"lorebook: {verb} {report.repo}")
        for rel in report.changed:
            say(f"  changed {rel}")
    else:
        say(f"lorebook: {report.repo} is up to date; nothing changed")
    say(f"  harnesses wired: {', '.join(report.harnesses) or 'none'}")
    for line in report.notes:
        say(f"  {line}")


def uninstall_command(
    ctx: typer.Context,
    harnesses: Annotated[
        str,
        typer.Option("--harnesses", help="Comma-separated harnesses to unwire (default: all)."),
    ] = "",
    json_output: JsonOption = False,
) -> None:
    """Remove exactly what `init` added for these harnesses; every note is kept.

    With the last harness gone, this clone's merge driver (git config) goes too.
    """
    from lorebook.gitmerge import remove_driver

    paths = repo_paths(ctx)
    names = [n.strip() for n in harnesses.split(",") if n.strip()]
    report = uninstall_repo(paths.repo, names)
    if not report.harnesses:
        report.notes += remove_driver(paths.repo)
    _show(report, json_output, "unwired harnesses in")


def register(app: typer.Typer) -> None:
    """Add the command to the app."""
    app.command("init")(init_command)
    app.command("uninstall")(uninstall_command)
