"""``lorebook review``: triage the unreviewed notes at a terminal, or summarise the proposal.

The triage itself is :mod:`lorebook.review_tui`; the groups by origin are
:mod:`lorebook.review_groups`.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from lorebook.bounds import clip
from lorebook.cli.output import JsonOption, plural, print_json, repo_paths, say, warn
from lorebook.errors import LorebookError, UsageError

if TYPE_CHECKING:
    from lorebook.kb.paths import KBPaths
    from lorebook.review.changes import Change
    from lorebook.review.verdicts import Rejection
    from lorebook.review_groups import OriginGroup

ACCEPT = "accept: git add .lorebook && git commit"
REJECT = "reject: lorebook review --reject PATH... (or --origin ORIGIN)"
LEDGER = ".lorebook/rejected-claims.txt"


FIRST_LINES = 3
"""Notes (or files) listed per group without --verbose."""


def _more(count: int) -> list[str]:
    return [f"    ... and {count} more (--verbose lists every one)"] if count > 0 else []


def _group_lines(groups: list[OriginGroup], verbose: bool) -> list[str]:
    count = sum(len(g.notes) for g in groups)
    lines = [
        f"unreviewed notes: {count} in {plural(len(groups), 'group')} by origin "
        "(`--accept --origin ORIGIN` or `--reject --origin ORIGIN` decides a whole group):"
    ]
    for group in groups:
        lines.append(f"  {group.origin}: {plural(len(group.notes), 'note')}")
        shown = group.notes if verbose else group.notes[:FIRST_LINES]
        for note in shown:
            what = note.title or f"cannot be read: {note.problem}"
            lines.append(f"    {note.path}  {what}" + (f" ({note.kind})" if note.kind else ""))
            if verbose and note.quote:
                lines.append(f"      > {note.quote}")
        lines += _more(len(group.notes) - len(shown))
    return lines


def _other_lines(changes: list[Change], verbose: bool) -> list[str]:
    if not changes:
        return []
    width = max(len(c.kind) for c in changes)
    lines = [f"other changes: {plural(len(changes), 'file')}"]
    shown = changes if verbose else changes[: FIRST_LINES * 3]
    for change in shown:
        new = "" if change.tracked else " (untracked)"
        lines.append(f"  {change.kind:<{width}}  {change.category:<9}  {change.path}{new}")
    return lines + _more(len(changes) - len(shown))


def _summary(
    changes: list[Change], groups: list[OriginGroup], verbose: bool, generated: bool
) -> list[str]:
    lines = [f"proposed changes to the knowledge base since HEAD ({len(changes)} files):"]
    if groups:
        lines += _group_lines(groups, verbose)
    pending = {n.path for g in groups for n in g.notes}
    lines += _other_lines(
        [c for c in changes if c.category != "generated" and c.path not in pending], verbose
    )
    made = sum(c.category == "generated" for c in changes)
    if made:
        shown = "--generated shows their diff" if verbose and not generated else ""
        lines.append(
            f"generated: {plural(made, 'file')}, following from the notes "
            f"(`lorebook index rebuild`){'; ' + shown if shown else ''}"
        )
    if not verbose:
        lines.append("the whole diff: lorebook review --verbose")
    lines += [f"{ACCEPT}; {REJECT}", ""]
    return lines


def _groups(paths: KBPaths, origins: list[str]) -> list[OriginGroup]:
    from lorebook.review_groups import group_by_origin, matches_origin, pending_notes

    groups = group_by_origin(pending_notes(paths))
    if origins:
        groups = [g for g in groups if any(matches_origin(g.origin, o) for o in origins)]
    return groups


def _groups_json(groups: list[OriginGroup]) -> list[dict[str, Any]]:
    return [
        {
            "origin": g.origin,
            "notes": [
                {
                    "id": n.note_id,
                    "path": n.path,
                    "title": n.title,
                    "kind": n.kind,
                    "quote": n.quote,
                    "problem": n.problem or None,
                }
                for n in g.notes
            ],
        }
        for g in groups
    ]


def _show(
    paths: KBPaths, origins: list[str], verbose: bool, generated: bool, json_output: bool
) -> None:
    from lorebook.review.changes import list_changes, render_diff

    changes = list_changes(paths)
    groups = _groups(paths, origins)
    if json_output:
        print_json(
            {"ok": True, "changes": [c.as_json() for c in changes],
             "unreviewed": _groups_json(groups)}
        )  # fmt: skip
        return
    if not changes and not groups:
        say("no proposed changes: .lorebook/ matches HEAD")
        return
    for line in _summary(changes, groups, verbose, generated):
        say(line)
    if not (verbose or generated):
        return
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


def _show_rejections(rejections: list[Rejection], json_output: bool, verbose: bool) -> None:
    if json_output:
        rows = [
            {**r.change.as_json(), "action": r.action, "dangling": list(r.dangling),
             "remembered": list(r.remembered)}
            for r in rejections
        ]  # fmt: skip
        print_json(
            {
                "ok": True,
                "rejections": rows,
                "remembered": [f for r in rejections for f in r.remembered],
                "dangling": sorted({i for r in rejections for i in r.dangling}),
            }
        )
    else:
        shown = rejections if verbose or len(rejections) <= FIRST_LINES * 3 else []
        lines = [f"rejected: {r.action} {r.change.path}" for r in shown] or [
            f"rejected: {plural(len(rejections), 'change')} (--verbose lists them)"
        ]
        lines[-1] += "; indexes rebuilt"
        for line in lines:
            say(line)
        count = sum(len(r.remembered) for r in rejections)
        notes = sum(1 for r in rejections if r.remembered)
        if count:
            # a note merged from several proposals holds several claims: say whose they are
            made = "" if count == notes else f", from {plural(notes, 'note')},"
            say(
                f"remembered {plural(count, 'rejected claim')}{made} in {LEDGER}: curation drops "
                f"{'it' if count == 1 else 'them'} from now on (commit the file so your "
                "team's curation does too)"
            )
    for r in rejections:
        if r.dangling:
            warn(
                f"lorebook: warning: {', '.join(r.dangling)} still name "
                f"{r.change.note_id!r} in their edges; `lorebook lint` reports them"
            )


def _show_accepted(ids: list[str], json_output: bool, verbose: bool) -> None:
    if json_output:
        print_json({"ok": True, "accepted": ids})
    elif not ids:
        say("nothing to accept: no note is waiting for review")
    elif verbose or len(ids) <= FIRST_LINES * 3:
        say(f"accepted {plural(len(ids), 'note')}: {', '.join(ids)}")
    else:
        say(f"accepted {plural(len(ids), 'note')} (--verbose lists them)")


def _targets(paths: KBPaths, targets: list[str], origins: list[str]) -> list[str]:
    """The paths and ids given, then every unreviewed note of the ``--origin`` groups."""
    if not origins:
        return targets
    groups = _groups(paths, origins)
    if not groups:
        raise LorebookError(
            f"no unreviewed note comes from {', '.join(map(repr, origins))}",
            hint='`lorebook review --json` lists the groups under "unreviewed"',
        )
    return [*targets, *(n.path for g in groups for n in g.notes)]


def _interactive(paths: KBPaths, origins: list[str]) -> bool:
    """Triage at the terminal, when one is there and a note waits; False when it is not."""
    from lorebook.cli.status_view import stdout_is_terminal

    if not (stdout_is_terminal() and sys.stdin.isatty()):
        return False
    groups = _groups(paths, origins)
    if not groups:
        return False
    from lorebook.config import load_config
    from lorebook.review_tui import triage

    done = triage(paths, groups, budget=load_config(paths).budgets.entry_chars)
    left = sum(len(g.notes) for g in groups) - len(done.accepted) - len(done.rejected)
    say()
    say(
        f"accepted {len(done.accepted)}, rejected {len(done.rejected)}, "
        f"still unreviewed {left}" + (f" ({plural(done.remembered, 'claim')} remembered)"
                                      if done.remembered else "")
    )  # fmt: skip
    if done.accepted or done.rejected:
        say(f"share the verdicts: {ACCEPT}")
    if done.interrupted:
        raise typer.Exit(130)
    if done.problems:
        raise typer.Exit(1)
    return True


def review_command(
    ctx: typer.Context,
    targets: Annotated[
        list[str] | None,
        typer.Argument(
            metavar="[PATH|ID]...",
            help="With --reject or --accept: the files under .lorebook/ (as listed, or "
            "relative to the current folder) or note ids to decide.",
            show_default=False,
        ),
    ] = None,
    reject: Annotated[
        bool,
        typer.Option(
            "--reject",
            help="Undo the changes to these files under .lorebook/: delete each one that "
            "is new, restore each changed one from HEAD; remember the rejected claims in "
            ".lorebook/rejected-claims.txt so curation drops them when they are extracted "
            "again; then rebuild the indexes once.",
        ),
    ] = False,
    accept: Annotated[
        bool,
        typer.Option(
            "--accept",
            help="Accept notes no person has reviewed, as they are on disk (ids or paths, "
            "or `all`): ones curation, bootstrap, harvest or a pack wrote, or files put in "
            "nodes/ and not committed. They are then served whole, without the "
            "'unreviewed' label, and may ask or deny. Committing them does the same. A "
            "retired id (a note split or renamed) accepts the notes it leads to, and says so.",
        ),
    ] = False,
    origin: Annotated[
        list[str] | None,
        typer.Option(
            "--origin",
            metavar="ORIGIN",
            help="Only the unreviewed notes from this origin, as review lists it "
            "(session:claude:ID, document:AGENTS.md, pack:NAME, harvest:claude-memory), or "
            "every one of a kind (session, document, pack, harvest, hand). Repeatable.",
        ),
    ] = None,
    verbose: Annotated[
        bool,
        typer.Option("--verbose", "-v", help="List every file and note, then the whole diff."),
    ] = False,
    generated: Annotated[
        bool,
        typer.Option("--generated", help="Also show the diff of generated files (last)."),
    ] = False,
    json_output: JsonOption = False,
) -> None:
    """Review what tools proposed to the knowledge base: triage at a terminal, or a summary.

    At a terminal (no --json, --accept or --reject), the notes no person has reviewed come
    in groups of one origin (a session, a document, a pack, a harvest), each with its
    evidence: one key accepts, rejects, edits or skips the note, or the rest of its group
    (keys A, R, S); q quits and keeps what was decided. Otherwise (a script, CI, a pipe)
    it prints the unreviewed notes by origin, a count and the first lines of each group,
    then the other changes under .lorebook/ since HEAD; --verbose lists every one and
    prints the whole diff.

    Curation and `lorebook note` write to the working tree and stage nothing: the proposal
    is what git sees changed since HEAD, new files included. Accept it with
    `git add .lorebook && git commit` (or stage only what you want), or accept notes on
    this machine with `--accept`. Reject changes with `--reject PATH...` or
    `--reject --origin ORIGIN` (a rejected note's or conflict's claim is remembered, so
    re-importing the session does not bring it back). A note no person has reviewed is
    served only as a pointer labelled "unreviewed" and cannot ask or deny until it is
    committed or accepted. Generated files (ENTRY.md, GRAPH.md, index.md) are not rejected
    on their own, they follow from the notes. With --json: the changed paths and their
    kinds, and the unreviewed notes by origin.
    """
    paths = repo_paths(ctx)
    given, origins = list(targets or []), list(origin or [])
    if reject and accept:
        raise UsageError("give --accept or --reject, not both")
    if (reject or accept) and not (given or origins):
        flag = "--reject" if reject else "--accept"
        raise UsageError(f"{flag} needs paths, note ids or --origin ORIGIN")
    if given and not (reject or accept):
        raise UsageError(f"{clip(given[0])}: give --accept or --reject before the paths to decide")
    if accept:
        from lorebook.review.verdicts import accept as accept_notes

        ids = accept_notes(paths, _targets(paths, given, origins), Path.cwd(), warn)
        _show_accepted(ids, json_output, verbose)
        return
    if reject:
        from lorebook.config import load_config
        from lorebook.review.verdicts import reject_many

        budget = load_config(paths).budgets.entry_chars
        done = reject_many(paths, _targets(paths, given, origins), Path.cwd(), budget=budget)
        _show_rejections(done, json_output, verbose)
        return
    if json_output or verbose or generated or not _interactive(paths, origins):
        _show(paths, origins, verbose, generated, json_output)


def register(app: typer.Typer) -> None:
    """Add the command to the app."""
    app.command("review")(review_command)
