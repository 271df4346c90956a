"""``lorebook folder describe``: set a folder's one-line summary."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from lorebook.cli.output import JsonOption, print_json, repo_paths, say, warn
from lorebook.errors import LorebookError
from lorebook.kb.fsutil import kb_lock
from lorebook.kb.store import load_snapshot
from lorebook.kb.summaries import set_summary

if TYPE_CHECKING:
    from lorebook.kb.paths import KBPaths

folder_app = typer.Typer(
    name="folder", help="Folder summaries.", no_args_is_help=True, rich_markup_mode=None
)


def describe(
    ctx: typer.Context,
    folder: Annotated[str, typer.Argument(help="Folder under nodes/, e.g. tooling/python.")],
    summary: Annotated[str, typer.Argument(help="One line saying what the folder holds.")],
    json_output: JsonOption = False,
) -> None:
    """Set the one-line summary shown for a folder in ENTRY.md and the indexes.

    FOLDER is named as under nodes/ and must exist there (a name that does not is refused,
    with nothing written). The indexes are refreshed after; a folder that holds no note
    yet gets its summary shown once a note lands in it.
    """
    from lorebook.config import load_config
    from lorebook.kb.index import rebuild_indexes

    paths = repo_paths(ctx)
    budget = load_config(paths).budgets.entry_chars
    name = folder.strip("/")
    _require_folder(paths, name)
    with kb_lock(paths.lock):
        set_summary(paths, name, summary)
    folders = {s.folder for s in load_snapshot(paths).notes.values()}
    if not any(f == name or f.startswith(name + "/") for f in folders):
        warn(f"lorebook: no note lives in nodes/{name} yet; the summary shows once one does")
    report = rebuild_indexes(paths, budget, skip_broken=True)
    for problem in report.skipped:
        warn(f"lorebook: left out of the indexes: {problem}")
    if json_output:
        print_json({"ok": True, "folder": name, "written": list(report.written)})
        return
    say(f"described {name} in {paths.rel(paths.summaries)}")
    for rel in report.written:
        say(f"  wrote {rel}")


def _require_folder(paths: KBPaths, name: str) -> None:
    """Refuse a folder that does not exist under ``nodes/`` (a typo would be kept silently)."""
    import difflib

    from lorebook.kb.paths import validate_relpath

    validate_relpath(name, what="folder")
    if (paths.nodes / name).is_dir():
        return
    folders = sorted(
        path.relative_to(paths.nodes).as_posix()
        for path in paths.nodes.rglob("*")
        if path.is_dir() and not path.is_symlink()
    )
    shown = ", ".join(folders[:20]) + (
        f" and {len(folders) - 20} more" if len(folders) > 20 else ""
    )
    close = difflib.get_close_matches(name, folders, n=1)
    raise LorebookError(
        f"folder {name!r}: no such folder under {paths.rel(paths.nodes)}/ "
        f"(folders: {shown or 'none yet'}); nothing was written",
        hint=f"did you mean {close[0]!r}?"
        if close
        else f"to describe a folder before its first note, create it: mkdir -p "
        f"{paths.rel(paths.nodes)}/{name}",
    )


def register(app: typer.Typer) -> None:
    """Add the command group to the app."""
    folder_app.command("describe")(describe)
    app.add_typer(folder_app)
