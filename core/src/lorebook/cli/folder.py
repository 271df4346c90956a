"""``lorebook folder describe``: set a folder's one-line summary."""

from __future__ import annotations

from typing import Annotated

import typer

from lorebook.cli.output import JsonOption, print_json, repo_paths, say, warn
from lorebook.kb.fsutil import kb_lock
from lorebook.kb.summaries import set_summary

folder_app = typer.Typer(
    name="folder", help="Folder summaries.", no_args_is_help=True, rich_markup_mode=None
)


def describe(
    ctx: typer.Context,
    folder: Annotated[str, typer.Argument(help="Folder under nodes/, e.g. tooling/python.")],
    summary: Annotated[str, typer.Argument(help="One line saying what the folder holds.")],
    json_output: JsonOption = False,
) -> None:
    """Set the one-line summary shown for a folder in ENTRY.md and the indexes."""
    paths = repo_paths(ctx)
    with kb_lock(paths.lock):
        set_summary(paths, folder.rstrip("/"), summary)
    if json_output:
        print_json({"ok": True, "folder": folder.rstrip("/")})
    else:
        say(f"described {folder.strip('/')} in {paths.rel(paths.summaries)}")
    warn("lorebook: run `lorebook index rebuild` to show it in the indexes")


def register(app: typer.Typer) -> None:
    """Add the command group to the app."""
    folder_app.command("describe")(describe)
    app.add_typer(folder_app)
