"""``lorebook init``: create the knowledge base and wire harnesses."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Annotated

import typer

from lorebook.cli.output import JsonOption, print_json, repo_paths, say, warn
from lorebook.cli.usage import require_providers
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
    pre_commit: Annotated[
        bool,
        typer.Option(
            "--pre-commit",
            help="Also install a git pre-commit hook that runs `lorebook scan` on the staged "
            ".lorebook/ files (a shell hook of your own keeps its content; lorebook's block "
            "runs first).",
        ),
    ] = False,
    json_output: JsonOption = False,
) -> None:
    """Create .lorebook/ in this repository (or update it) and wire the named harnesses.

    Safe to run again: a second run with the same harnesses changes no byte. Run it once on
    every fresh clone to give this machine working hooks (and, with --pre-commit, the
    secrets scan before each commit; it is per machine, like the hooks' launcher). A
    knowledge base written at an older format version is migrated first, as `lorebook
    migrate run` does (ids, paths and bodies kept; review it with git diff).
    """
    names = [n.strip() for n in harnesses.split(",") if n.strip()]
    require_providers("harness", names)  # a mistyped name: before anything is said or written
    start = Path((ctx.find_root().obj or {}).get("repo") or Path.cwd()).resolve()
    top = _git_toplevel(start)
    repo = top or start
    if top is None:
        warn(
            f"lorebook: warning: {repo} is not inside a git repository; the knowledge base is "
            "meant to be committed and reviewed with git"
        )
    if pre_commit:
        from lorebook.precommit import hook_path

        hook_path(repo)  # not a git repository: refused before anything is written
    migrated = _migrate_first(repo)
    report = init_repo(repo, names)
    if migrated:
        report.changed = list(dict.fromkeys([*migrated[1], *report.changed]))
        report.notes.insert(
            0,
            f"migrated .lorebook/ from format version {migrated[0]} to the current one, as "
            f"`lorebook migrate run` does: {len(migrated[1])} files rewritten (ids, paths and "
            "bodies kept); review with `git diff .lorebook/`, then commit",
        )
    if pre_commit:
        from lorebook.precommit import install_pre_commit

        report.changed += install_pre_commit(repo)
    _show(report, json_output, "initialised")


def _migrate_first(repo: Path) -> tuple[int, list[str]] | None:
    """Bring a knowledge base at an older format version up to date: (version, files).

    None when it is at the current version (or there is none). A newer version is left to
    ``init_repo``, which refuses it (upgrade lorebook).
    """
    from lorebook.constants import SCHEMA_VERSION
    from lorebook.kb.paths import KBPaths
    from lorebook.kb.version import config_version

    paths = KBPaths(repo)
    version = config_version(str(paths.root))
    if version is None or version >= SCHEMA_VERSION:
        return None
    from lorebook.migrate import run_migration

    plan = run_migration(paths)
    return version, [paths.rel(paths.root / rel) for rel, _ in plan.writes]


def _show(report: InitReport, json_output: bool, verb: str) -> None:
    if json_output:
        print_json(report.as_json())
        return
    if report.changed:
        say(f"lorebook: {verb} {report.repo}")
        for rel in report.changed:
            say(f"  {report.how(rel)} {rel}")
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
    pre_commit: Annotated[
        bool,
        typer.Option(
            "--pre-commit",
            help="Remove only lorebook's pre-commit hook block; every harness stays wired.",
        ),
    ] = False,
    json_output: JsonOption = False,
) -> None:
    """Remove exactly what `init` added for these harnesses; every note is kept.

    With the last harness gone, this clone's merge driver (git config) and lorebook's
    pre-commit block go too (the file as well, if lorebook created it).
    """
    from lorebook.gitmerge import remove_driver
    from lorebook.precommit import uninstall_pre_commit

    paths = repo_paths(ctx)
    if pre_commit:
        from lorebook.config import load_config

        wired = list(load_config(paths).harnesses)
        report = InitReport(
            repo=paths.repo, harnesses=wired, notes=uninstall_pre_commit(paths.repo)
        )
        _show(report, json_output, "removed the pre-commit hook from")
        return
    names = [n.strip() for n in harnesses.split(",") if n.strip()]
    require_providers("harness", names)
    report = uninstall_repo(paths.repo, names)
    if not report.harnesses:
        report.notes += remove_driver(paths.repo)
        report.notes += uninstall_pre_commit(paths.repo)
    _show(report, json_output, "unwired harnesses in")


def register(app: typer.Typer) -> None:
    """Add the command to the app."""
    app.command("init")(init_command)
    app.command("uninstall")(uninstall_command)
