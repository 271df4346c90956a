"""``lorebook conflict``: list contradictions and record a person's decision on each."""

from __future__ import annotations

from enum import StrEnum
from typing import TYPE_CHECKING, Annotated, Any

import typer

from lorebook.cli.output import JsonOption, print_json, repo_paths, say, warn
from lorebook.config import load_config

if TYPE_CHECKING:
    from lorebook.curate.conflicts import ConflictFile
    from lorebook.kb.paths import KBPaths

conflict_app = typer.Typer(
    name="conflict",
    help="Contradictions curation found: list them and decide each one.",
    no_args_is_help=True,
    rich_markup_mode=None,
)


class DecisionName(StrEnum):
    """What a person decides about a conflict."""

    accept = "accept"
    reject = "reject"
    keep = "keep"
    skip = "skip"


def _entry(paths: KBPaths, item: ConflictFile) -> dict[str, Any]:
    from lorebook.kb.store import open_store
    from lorebook.store import NoteNotFoundError

    conflict = item.conflict
    try:
        target_title: str | None = open_store(paths.repo).get(conflict.target_id).title
    except (NoteNotFoundError, OSError):
        target_title = None
    return {
        "id": conflict.id,
        "status": conflict.status,
        "target_id": conflict.target_id,
        "target_title": target_title,
        "proposal": {"title": conflict.proposal.title, "origin": conflict.proposal.origin},
        "rationale": conflict.rationale,
        "decided_because": conflict.decided_because,
        "path": paths.rel(item.path),
    }


def list_command(
    ctx: typer.Context,
    show_all: Annotated[
        bool, typer.Option("--all", help="Also list decided conflicts (kept as records).")
    ] = False,
    json_output: JsonOption = False,
) -> None:
    """List the conflicts awaiting a decision (open or skipped), oldest file first."""
    from lorebook.curate.conflicts import list_conflicts

    paths = repo_paths(ctx)
    listing = list_conflicts(paths, include_decided=show_all)
    entries = [_entry(paths, item) for item in listing.conflicts]
    for problem in listing.problems:
        warn(f"lorebook: warning: {problem}")
    if json_output:
        print_json({"ok": True, "conflicts": entries, "problems": listing.problems})
        return
    if not entries:
        say("no conflict awaits a decision" if not show_all else "no conflict recorded")
        return
    for entry in entries:
        target = entry["target_title"] or "(note not found)"
        say(f"{entry['id']}  [{entry['status']}]  {entry['path']}")
        say(f"    note:     {entry['target_id']}: {target}")
        say(f"    proposal: {entry['proposal']['title']}  ({entry['proposal']['origin']})")
        say(f"    why:      {entry['rationale']}")
    say("decide with `lorebook conflict resolve ID --decision accept|reject|keep|skip`")


def resolve_command(
    ctx: typer.Context,
    conflict_id: Annotated[str, typer.Argument(help="The conflict's id, as `list` shows it.")],
    decision: Annotated[
        DecisionName,
        typer.Option(
            "--decision",
            help="accept: rewrite the note in place to say what the proposal says (both "
            "origins, only the new claim's dependencies; an id made of the old title is "
            "renamed after the new one, the old id leading there). reject: leave the note; the "
            "claim is dismissed. keep: leave the note, and keep the conflict file as the "
            "record of a claim that was made and not followed (commit it as history). skip: "
            "decide later; it stays listed.",
        ),
    ],
    why: Annotated[
        str | None, typer.Option("--why", help="Why you decided so (recorded in the file).")
    ] = None,
    json_output: JsonOption = False,
) -> None:
    """Record a decision on one conflict. Decided files stay, with status and reason."""
    from lorebook.curate.resolve import resolve_conflict

    paths = repo_paths(ctx)
    budget = load_config(paths).budgets.entry_chars
    result = resolve_conflict(paths, conflict_id, decision.value, why, entry_budget=budget)
    if json_output:
        print_json(result.as_json())
        return
    say(f"{result.conflict_id}: {result.status}")
    if result.renamed_to:
        say(
            f"  renamed {result.target_id} -> {result.renamed_to}: its id said the old title "
            "(the old id leads to it in nodes/.redirects.json)"
        )
    for rel in result.changed:
        say(f"  {'changed' if (paths.repo / rel).exists() else 'removed'} {rel}")
    if result.decision == "accept":
        say("review with `lorebook review`, then commit or restore")


def register(app: typer.Typer) -> None:
    """Add the command group to the app."""
    conflict_app.command("list")(list_command)
    conflict_app.command("resolve")(resolve_command)
    app.add_typer(conflict_app)
