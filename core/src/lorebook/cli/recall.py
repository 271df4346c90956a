"""``lorebook recall QUERY``: what the hooks would serve for a query, and why."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from lorebook.cli.output import JsonOption, print_json, repo_paths, say


def _show(doc: dict[str, Any]) -> None:
    if not doc["notes"] and not doc["warnings"]:
        say("no note matches")
    for n, note in enumerate(doc["notes"], 1):
        say(f"{n}. {note['title']} ({note['kind']}; {note['where']})")
        if note["unreviewed"]:
            say(f"   {note['unreviewed']}")
        say(f"   why: {note['why']}")
        if note["recheck"]:
            say(f"   {note['recheck']}")
        for text in note["errata"]:
            say(f"   erratum: {text}")
    for warning in doc["warnings"]:
        say(f"! {warning['warning']} ({warning['where']})")
    for proposal in doc.get("pending", []):
        say(f"? {proposal['label']}: {proposal['title']} ({proposal['log']})")


def recall_command(
    ctx: typer.Context,
    query: Annotated[str, typer.Argument(help="What you want to know (a prompt, a question).")],
    pending: Annotated[
        bool,
        typer.Option(
            "--pending", help="Also list proposals no person has reviewed yet (labelled)."
        ),
    ] = False,
    json_output: JsonOption = False,
) -> None:
    """Rank every configured store for QUERY exactly as the prompt hook does.

    The same ranker, relevance decision and validity checks: a stale note is demoted and
    says what to recheck, errata come with their note, a refuted note is listed as a
    warning, a note no person has reviewed is labelled. Each note says why it matched and
    which store it came from. With --json, "context" is the text the hook would inject.
    Note text is sanitised as the hooks sanitise it.
    """
    from lorebook.recall.query import recall

    doc = recall(repo_paths(ctx), query, pending=pending)
    if json_output:
        print_json(doc)
    else:
        _show(doc)


def register(app: typer.Typer) -> None:
    """Add the command to the app."""
    app.command("recall")(recall_command)
