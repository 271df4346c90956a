"""``lorebook review``: the proposed change to the knowledge base as one diff; reject one."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from lorebook.cli.output import JsonOption, print_json, repo_paths, say, warn

if TYPE_CHECKING:
    from lorebook.kb.paths import KBPaths
    from lorebook.review import Change, Rejection

ACCEPT = "accept: git add .lorebook && git commit"
REJECT = "reject one change: lorebook review --reject PATH"
LEDGER = ".lorebook/rejected-claims.txt"


def _summary(changes: list[Change], generated: bool) -> list[str]:
    width = max(len(c.kind) for c in changes)
    lines = [f"proposed changes to the knowledge base since HEAD ({len(changes)} files):"]
    for change in changes:
        new = "" if change.tracked else " (untracked)"
        lines.append(f"  {change.kind:<{width}}  {change.category:<9}  {change.path}{new}")
    if any(c.category == "generated" for c in changes) and not generated:
        lines.append(
            "generated files follow from the notes (`lorebook index rebuild`); "
            "--generated shows their diff too"
        )
    lines += [f"{ACCEPT}; {REJECT}", ""]
    return lines


def _show(paths: KBPaths, generated: bool, json_output: bool) -> None:
    from lorebook.review import list_changes, render_diff

    changes = list_changes(paths)
    if json_output:
        print_json({"ok": True, "changes": [c.as_json() for c in changes]})
        return
    if not changes:
        say("no proposed changes: .lorebook/ matches HEAD")
        return
    for line in _summary(changes, generated):
        say(line)
    from lorebook.cli.status_view import stdout_is_terminal
    from lorebook.inject.sanitize import for_terminal

    # The diff is of notes anyone could have written: git would pass an escape sequence in a
    # note to the terminal as it is, inside its own colours. So git does not colour it; the
    # note's controls are shown as pictures, then each line is coloured here.
    diff = for_terminal(render_diff(paths, changes, generated=generated))
    sys.stdout.write(coloured(diff) if stdout_is_terminal() else diff)


def _colour(line: str, in_hunk: bool) -> str | None:
    """The SGR colour of one diff line as git gives it by default (None: plain)."""
    if line.startswith("@@"):
        return "36"  # hunk header: cyan
    if not in_hunk:
        return "1"  # file header (diff --git, index, ---, +++): bold
    return {"+": "32", "-": "31"}.get(line[:1])  # added green, removed red


def coloured(diff: str) -> str:
    """``diff`` (terminal-safe text) with each line coloured as git would colour it."""
    out = []
    in_hunk = False
    for line in diff.split("\n"):
        in_hunk = (in_hunk or line.startswith("@@")) and not line.startswith("diff ")
        code = _colour(line, in_hunk) if line else None
        out.append(f"\x1b[{code}m{line}\x1b[m" if code else line)
    return "\n".join(out)


def _show_rejection(rejection: Rejection, json_output: bool) -> None:
    change = rejection.change
    if json_output:
        print_json(
            {
                "ok": True,
                "rejected": change.as_json(),
                "action": rejection.action,
                "dangling": list(rejection.dangling),
                "remembered": list(rejection.remembered),
            }
        )
    else:
        say(f"rejected: {rejection.action} {change.path}; indexes rebuilt")
        if rejection.remembered:
            count = len(rejection.remembered)
            say(
                f"remembered {count} rejected claim{'' if count == 1 else 's'} in "
                f"{LEDGER}: curation drops {'it' if count == 1 else 'them'} from now on "
                "(commit the file so your team's curation does too)"
            )
    if rejection.dangling:
        warn(
            f"lorebook: warning: {', '.join(rejection.dangling)} still name "
            f"{change.note_id!r} in their edges; `lorebook lint` reports them"
        )


def _accept(paths: KBPaths, target: str, json_output: bool) -> None:
    from lorebook.review import accept

    ids = accept(paths, target, Path.cwd())
    if json_output:
        print_json({"ok": True, "accepted": ids})
    else:
        say(f"accepted {len(ids)} note{'' if len(ids) == 1 else 's'}: {', '.join(ids) or '-'}")


def review_command(
    ctx: typer.Context,
    reject: Annotated[
        str | None,
        typer.Option(
            "--reject",
            metavar="PATH",
            help="Undo the change to this file under .lorebook/ (a path as listed, or a "
            "note id): delete it if new, restore it from HEAD if changed; remember the "
            "rejected claim in .lorebook/rejected-claims.txt so curation drops it when it "
            "is extracted again; then rebuild the indexes.",
        ),
    ] = None,
    accept: Annotated[
        str | None,
        typer.Option(
            "--accept",
            metavar="NOTE",
            help="Accept a note no person has reviewed, as it is on disk (its id or path, or "
            "`all`): one curation, bootstrap, harvest or a pack wrote, or a file put in "
            "nodes/ and not committed. It is then served whole, without the 'unreviewed' "
            "label, and may ask or deny. Committing it does the same.",
        ),
    ] = None,
    generated: Annotated[
        bool,
        typer.Option("--generated", help="Also show the diff of generated files (last)."),
    ] = False,
    json_output: JsonOption = False,
) -> None:
    """Show every uncommitted change under .lorebook/ as one diff, notes first.

    Curation and `lorebook note` write to the working tree and stage nothing: the proposal
    is what git sees changed since HEAD, new files included. Accept it with
    `git add .lorebook && git commit` (or stage only what you want). Reject one change with
    `--reject PATH` (a rejected note's or conflict's claim is remembered, so re-importing
    the session does not bring it back). A note no person has reviewed (curation,
    bootstrap, harvest or a pack wrote it, or it was put in nodes/ and not committed) is
    served only as a pointer labelled "unreviewed" and cannot ask or deny until it is
    committed or `--accept`ed. Generated
    files (ENTRY.md, GRAPH.md, index.md) are not rejected on their own, they follow from
    the notes. With --json: the changed
    paths and their kinds.
    """
    paths = repo_paths(ctx)
    if accept is not None:
        _accept(paths, accept, json_output)
        return
    if reject is None:
        _show(paths, generated, json_output)
        return
    from lorebook.config import load_config
    from lorebook.review import reject as reject_change

    budget = load_config(paths).budgets.entry_chars
    _show_rejection(reject_change(paths, reject, Path.cwd(), budget=budget), json_output)


def register(app: typer.Typer) -> None:
    """Add the command to the app."""
    app.command("review")(review_command)
