"""The ``lorebook`` application: global options, command registration, error handling."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from lorebook import __version__
from lorebook.errors import LorebookError

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


def _version(value: bool) -> None:
    if value:
        typer.echo(f"lorebook {__version__}")
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
        typer.Option("--version", callback=_version, is_eager=True, help="Print the version."),
    ] = False,
) -> None:
    """Global options."""
    ctx.obj = {"repo": repo}


def _register() -> None:
    from lorebook.cli import (
        capture,
        checks,
        conflict,
        curate,
        evaluate,
        extract,
        folder,
        index,
        init,
        note,
        plugins,
        review,
        schema,
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


_register()


def main() -> None:
    """Run the CLI; expected errors become one message on stderr and exit code 1."""
    json_mode = "--json" in sys.argv[1:]
    try:
        app()
    except LorebookError as exc:
        if json_mode:
            import json

            doc = {"ok": False, "error": {"message": exc.message, "hint": exc.hint}}
            sys.stdout.write(json.dumps(doc, indent=2, ensure_ascii=False) + "\n")
        sys.stderr.write(f"lorebook: error: {exc}\n")
        sys.exit(1)
