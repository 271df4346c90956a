"""``lorebook mark``: record a teaching moment during a session, as a proposal to curate."""

from __future__ import annotations

from typing import Annotated

import typer

from lorebook.cli.output import JsonOption, print_json, repo_paths, say
from lorebook.models.note import NOTE_KINDS


def mark_command(
    ctx: typer.Context,
    text: Annotated[str, typer.Argument(help="What the session taught, in one or two sentences.")],
    kind: Annotated[
        str, typer.Option("--kind", help=f"One of: {', '.join(NOTE_KINDS)}.", show_default=False)
    ],
    anchor_file: Annotated[
        list[str] | None,
        typer.Option("--anchor-file", help="A file glob it applies to (repeatable)."),
    ] = None,
    session: Annotated[
        str | None,
        typer.Option(
            "--session",
            help="<harness>:<session id> (default: the session running this command).",
        ),
    ] = None,
    json_output: JsonOption = False,
) -> None:
    """Stage a teaching moment as a proposal of this session, for `lorebook curate`.

    Never writes a note: the proposal waits in the session's staged log (.lorebook/_sessions/)
    with its session and turn, goes through curation like any extracted proposal, and the
    human reviews the note it becomes.
    """
    from lorebook.capture.stage import load_log
    from lorebook.mark import OWN_HARNESS, find_session, parse_session, stage_mark

    if kind not in NOTE_KINDS:
        raise typer.BadParameter(
            f"{kind!r} is not a kind; use one of: {', '.join(NOTE_KINDS)}", param_hint="--kind"
        )
    paths = repo_paths(ctx)
    where = parse_session(session) if session else find_session(paths, text)
    path, proposal = stage_mark(paths, where, kind, text, list(anchor_file or []))
    if json_output:
        print_json({"proposal": proposal.model_dump(mode="json"), "log": paths.rel(path)})
        return
    where_from = f"from {proposal.origin} in {paths.rel(path)}"
    say(f"staged proposal {proposal.id} ({proposal.kind}) {where_from}")
    if where.harness == OWN_HARNESS and not session:
        say("no session's transcript holds this text, so it is staged under a session of its "
            "own (pass --session <harness>:<session id> to attach it to one)")  # fmt: skip
    staged = load_log(path)
    ready = staged is not None and staged.status == "extracted"
    first = "`lorebook curate`" if ready else "`lorebook extract` and `lorebook curate`"
    say(f"run {first} to turn it into a note, then review it")


def register(app: typer.Typer) -> None:
    """Add ``mark`` to the application."""
    app.command("mark")(mark_command)
