"""``lorebook premise``: facts and rules with proofs (``.lorebook/premises/``)."""

from __future__ import annotations

from typing import Annotated

import typer

from lorebook.cli.output import JsonOption, plural, print_json, repo_paths, say

premise_app = typer.Typer(
    name="premise",
    help="Facts and rules with proofs: record what a source states, ask what follows. "
    "Atoms are predicate(subject, object), optionally 'not ' before and '@scope' after; "
    "rules are 'head :- premise, premise' (1 to 3 premises, variables as ?x).",
    no_args_is_help=True,
    rich_markup_mode=None,
)

ContextOption = Annotated[
    str,
    typer.Option(
        "--context", help="The context (a folder under .lorebook/premises/); contexts never mix."
    ),
]


def record_command(
    ctx: typer.Context,
    source: Annotated[
        str, typer.Argument(metavar="SOURCE", help="The source's name (its file name).")
    ],
    fact: Annotated[
        list[str] | None,
        typer.Option(
            "--fact",
            metavar="ATOM",
            help="A ground atom, e.g. 'uses(billing, stripe)' (repeatable).",
        ),
    ] = None,
    rule: Annotated[
        list[str] | None,
        typer.Option(
            "--rule",
            metavar="RULE",
            help="A rule, e.g. 'avoid(?s, ?l) :- uses(?s, ?l), deprecated(?l, yes)'.",
        ),
    ] = None,
    cite: Annotated[
        list[str] | None,
        typer.Option(
            "--cite",
            metavar="NOTE-OR-FILE",
            help="A note id or file the source rests on (repeatable).",
        ),
    ] = None,
    context: ContextOption = "main",
    json_output: JsonOption = False,
) -> None:
    """Record a source's facts and rules, replacing what it said before (logged)."""
    from lorebook.premises.store import make_source, record

    paths = repo_paths(ctx)
    made = make_source(source, fact or [], rule or [], cite or [])
    action = record(paths, made, context)
    if json_output:
        print_json({"ok": True, "action": action, "context": context, "source": source})
        return
    held = f"{plural(len(made.facts), 'fact')}, {plural(len(made.rules), 'rule')}"
    say(f"{action}: {context}/{source} ({held})")


def retract_command(
    ctx: typer.Context,
    source: Annotated[str, typer.Argument(metavar="SOURCE", help="The source to remove.")],
    context: ContextOption = "main",
    json_output: JsonOption = False,
) -> None:
    """Remove a source; what it held stays in the context's events.jsonl."""
    from lorebook.premises.store import retract

    retract(repo_paths(ctx), source, context)
    if json_output:
        print_json({"ok": True, "action": "retract", "context": context, "source": source})
        return
    say(f"retract: {context}/{source}")


def ask_command(
    ctx: typer.Context,
    goal: Annotated[str, typer.Argument(help="A ground atom, e.g. 'avoid(billing, paypal)'.")],
    context: ContextOption = "main",
    json_output: JsonOption = False,
) -> None:
    """Say whether the context's premises support, refute, contradict or leave unknown a goal."""
    from lorebook.premises.kernel import ask
    from lorebook.premises.model import parse_atom
    from lorebook.premises.store import bundles

    paths = repo_paths(ctx)
    answer = ask(bundles(paths, context), parse_atom(goal))
    if json_output:
        print_json({"ok": True, "context": context, **answer.as_json()})
        return
    say(f"{answer.goal}: {answer.verdict}")
    if answer.proof is not None:
        say("because:")
        for line in answer.proof.lines(1):
            say(line)
    if answer.counter is not None:
        say("against it:")
        for line in answer.counter.lines(1):
            say(line)
    if answer.truncated:
        say("(the derivation stopped at its limit; the verdict may be incomplete)")


def list_command(
    ctx: typer.Context,
    context: ContextOption = "main",
    json_output: JsonOption = False,
) -> None:
    """List the sources of a context, and the contexts there are."""
    from lorebook.premises.store import contexts, load_context

    paths = repo_paths(ctx)
    sources = load_context(paths, context)
    if json_output:
        print_json(
            {
                "ok": True,
                "context": context,
                "contexts": contexts(paths),
                "sources": [{"source": s.id, **s.payload()} for s in sources],
            }
        )
        return
    if not sources:
        say(f"no premise source in context {context!r}")
    for s in sources:
        cites = f"; cites {', '.join(s.cites)}" if s.cites else ""
        say(f"{s.id}: {plural(len(s.facts), 'fact')}, {plural(len(s.rules), 'rule')}{cites}")
    others = [c for c in contexts(paths) if c != context]
    if others:
        say(f"other contexts: {', '.join(others)}")


def register(app: typer.Typer) -> None:
    """Add the command group to the app."""
    premise_app.command("record")(record_command)
    premise_app.command("retract")(retract_command)
    premise_app.command("ask")(ask_command)
    premise_app.command("list")(list_command)
    app.add_typer(premise_app)
