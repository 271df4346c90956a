"""``lorebook pack export`` and ``lorebook pack import``: notes shared as OKF bundles."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from lorebook.cli.output import JsonOption, print_json, repo_paths, say
from lorebook.config import load_config

pack_app = typer.Typer(
    help="Share notes between repositories as packs (OKF bundles; kenkeep packs import too).",
    no_args_is_help=True,
)


@pack_app.command("export")
def export_command(
    ctx: typer.Context,
    out: Annotated[Path, typer.Argument(metavar="DIR", help="Folder to write the pack into.")],
    folder: Annotated[
        str | None,
        typer.Option("--folder", help="Export only the notes under nodes/<F> (default: all)."),
    ] = None,
    name: Annotated[
        str | None, typer.Option("--name", help="The pack's name (default: the folder's).")
    ] = None,
    json_output: JsonOption = False,
) -> None:
    """Write the notes as a pack in DIR (missing, empty, or a pack written before).

    The knowledge base must lint clean. Notes are copied byte for byte with their
    redirects and folder summaries; only the pack's own files in DIR are replaced.
    """
    from lorebook.pack.export import export_pack

    paths = repo_paths(ctx)
    budget = load_config(paths).budgets.entry_chars
    report = export_pack(paths, out, folder=folder, budget=budget, name=name)
    if json_output:
        print_json(report.as_json())
        return
    say(f"exported {len(report.notes)} notes as pack {report.name!r} to {report.out}")
    if report.outside_edges:
        say(f"{len(report.outside_edges)} edge(s) name notes outside the pack; a repository")
        say("importing it must hold them: " + ", ".join(report.outside_edges[:5]))


@pack_app.command("import")
def import_command(
    ctx: typer.Context,
    source: Annotated[Path, typer.Argument(metavar="DIR", help="The pack's folder.")],
    json_output: JsonOption = False,
) -> None:
    """Land the pack in DIR as one folder, nodes/<pack name>/, after validating it all.

    Refused, with nothing written, when the knowledge base has uncommitted changes, the
    pack holds a symbolic link, an id is taken here, or an edge or redirect names no
    note. If a write fails, the message names the git commands that undo the import. An
    import killed part-way is finished by rerunning it on the same pack.
    """
    from lorebook.errors import LorebookError
    from lorebook.pack.land import import_pack

    paths = repo_paths(ctx)
    # The path first: a mistyped one is the answer, not the working tree's state.
    if not source.is_dir():
        what = "not a folder" if source.exists() else "no such folder"
        raise LorebookError(f"{source}: {what}; nothing was imported")
    budget = load_config(paths).budgets.entry_chars
    report = import_pack(paths, source, budget=budget)
    if json_output:
        print_json(report.as_json())
        return
    done = "finished the interrupted import of" if report.resumed else "imported"
    say(f"{done} pack {report.name!r} ({report.format}): {len(report.notes)} notes in "
        f"{report.folder}; redirects merged: {report.redirects_merged}")  # fmt: skip
    say("review with `lorebook review`, then commit (or undo: git restore -- .lorebook; "
        f"git clean -fd -- {report.folder})")  # fmt: skip


def register(app: typer.Typer) -> None:
    """Add the command group to the app."""
    app.add_typer(pack_app, name="pack")
