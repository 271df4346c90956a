"""The ``lorebook`` application: global options, command registration, error handling."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from lorebook import __version__

EPILOG = (
    "Exit codes: 0 success; 1 the command failed or found errors (the message names the "
    "file, field and value); 2 the command line itself is wrong."
)

app = typer.Typer(
    name="lorebook",
    help=(
        "Project memory for AI coding assistants. lorebook keeps what a human taught the "
        "agent as markdown notes in .lorebook/, reviewed with git, and serves the relevant "
        "ones back to later sessions of any harness."
    ),
    epilog=EPILOG,
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


def installed_distributions() -> list[tuple[str, str]]:
    """Every installed lorebook distribution: core first, then plugins by name.

    A plugin counts when its name starts with ``lorebook-`` or it declares an entry point
    in one of lorebook's groups (a third party's ``acme-lorebook-store``).
    """
    from importlib import metadata

    from lorebook.constants import ENTRY_POINT_GROUPS

    found: dict[str, str] = {}
    for dist in metadata.distributions():
        name = dist.metadata["Name"] or ""
        groups = {ep.group for ep in dist.entry_points}
        if name == "lorebook" or name.startswith("lorebook-") or groups & set(ENTRY_POINT_GROUPS):
            found.setdefault(name, dist.version)
    found.pop("lorebook", None)
    return [("lorebook", __version__), *sorted(found.items())]


def _version(value: bool) -> None:
    if value:
        for name, version in installed_distributions():
            typer.echo(f"{name} {version}")
        raise typer.Exit()


@app.callback()
def main_options(
    ctx: typer.Context,
    repo: Annotated[
        Path | None,
        typer.Option(
            "--repo",
            "-C",
            help="Work on the repository at this path instead of the current folder.",
            file_okay=False,
        ),
    ] = None,
    version: Annotated[
        bool,
        typer.Option(
            "--version",
            callback=_version,
            is_eager=True,
            help="Print the version of lorebook and of every installed lorebook plugin.",
        ),
    ] = False,
    debug: Annotated[
        bool,
        typer.Option("--debug", help="On a failure, show the traceback instead of one message."),
    ] = False,
) -> None:
    """Global options."""
    ctx.obj = {"repo": repo}


def _register() -> None:
    from lorebook.cli import (
        bootstrap,
        capture,
        checks,
        conflict,
        curate,
        evaluate,
        extract,
        folder,
        harvest,
        index,
        init,
        mark,
        mcp,
        note,
        pack,
        plugins,
        recall,
        review,
        schema,
        stats,
    )

    init.register(app)
    capture.register(app)
    extract.register(app)
    curate.register(app)
    conflict.register(app)
    note.register(app)
    index.register(app)
    folder.register(app)
    review.register(app)
    checks.register(app)
    plugins.register(app)
    schema.register(app)
    evaluate.register(app)
    recall.register(app)
    mcp.register(app)
    bootstrap.register(app)
    harvest.register(app)
    pack.register(app)
    stats.register(app)
    mark.register(app)


_register()


def main() -> None:
    """Run the CLI; a failure becomes one message on stderr and exit code 1.

    ``--debug`` (before the command) lets the exception through with its traceback.
    """
    args = sys.argv[1:]
    if "--debug" in args:
        app()
        return
    try:
        app()
    except KeyboardInterrupt:
        sys.stderr.write("lorebook: interrupted\n")
        sys.exit(130)
    except Exception as exc:
        from lorebook.cli.failures import report

        sys.exit(report(exc, json_mode="--json" in args))
