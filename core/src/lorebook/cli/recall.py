"""``lorebook recall QUERY``: what the hooks would serve for a query, and why."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import typer

from lorebook.cli.output import JsonOption, plural, print_json, repo_paths, say

if TYPE_CHECKING:
    from lorebook.kb.paths import KBPaths


def _how(note: dict[str, Any]) -> str:
    """How the hook serves a note, and why, in one line."""
    failed = [text for text, ok in note["confidence"]["tests"] if not ok]
    if note["served"] == "whole":
        return "served whole (confident)"
    if note["served"] == "left out":
        return "left out: the prompt budget (budgets.prompt_chars) was full"
    if note["unreviewed"]:
        return "served as a pointer: unreviewed"
    if failed:
        return "served as a pointer: not confident (" + "; ".join(failed) + ")"
    return "served as a pointer: confident, but too long for what was left of the budget"


def _host_line(doc: dict[str, Any]) -> str | None:
    """Whose prompt hook the listing is, when it matters: what that host leaves out."""
    if doc.get("harness") is None and len(doc.get("wired", [])) > 1:
        return "as a hook that leaves nothing out (--harness NAME: as that host's hook serves it)"
    if doc.get("loaded"):
        return (
            f"as the {doc['harness']} prompt hook serves it (notes from "
            f"{', '.join(doc['loaded'])} left out: {doc['harness']} loads them itself)"
        )
    return None


def _show(doc: dict[str, Any]) -> None:
    if not doc["notes"] and not doc["warnings"]:
        say("no note matches")
    counts = [sum(1 for n in doc["notes"] if n["served"] == s) for s in SERVED]
    if not doc.get("prompt_hook", True):
        say(
            f"{doc['harness']} gets nothing at its prompts: it lets no hook add context there"
            " (its session start, tool hooks and rules file carry the notes); other hosts'"
            " prompt hooks would serve:"
        )
    if doc["notes"]:
        say("the prompt hook would serve: " + ", ".join(
            f"{count} {label}" for count, label in zip(counts, SERVED_LABELS, strict=True) if count
        ))  # fmt: skip
    for n, note in enumerate(doc["notes"], 1):
        say(f"{n}. {note['title']} ({note['kind']}; {note['where']})")
        if note["unreviewed"]:
            say(f"   {note['unreviewed']}")
        say(f"   {_how(note)}")
        say(f"   why: {note['why']}")
        if note["recheck"]:
            say(f"   {note['recheck']}")
        for text in note["errata"]:
            say(f"   erratum: {text}")
    for warning in doc["warnings"]:
        say(f"! {warning['warning']} ({warning['where']})")
    if unreadable := doc.get("unreadable"):
        them = "it" if len(unreadable) == 1 else "them"
        say(
            f"! {plural(len(unreadable), 'note file')} could not be read and no hook serves "
            f"{them} (`lorebook lint` says why): {', '.join(unreadable)}"
        )
    for proposal in doc.get("pending", []):
        say(f"? {proposal['label']}: {proposal['title']} ({proposal['log']})")
    if (host := _host_line(doc)) is not None:
        say(host)
    if "ranking" in doc:
        _show_ranking(doc["ranking"])


SERVED = ("whole", "pointer", "left out")
SERVED_LABELS = ("whole", "as pointers", "left out by the budget")


def _show_ranking(ranking: list[dict[str, Any]]) -> None:
    say("raw ranking (served or not), each test of confidence (+ passed, - failed):")
    for n, cand in enumerate(ranking, 1):
        say(
            f"{n}. {cand['id']}: score {cand['score']:.3f}, BM25 {cand['lexical']:.2f}, "
            f"coverage {cand['coverage']:.0%}, meaning {cand['similarity']:.2f}"
        )
        tests = cand["confidence"]["tests"]
        say("   " + "; ".join(("+ " if ok else "- ") + text for text, ok in tests))


def host_loads(paths: KBPaths, harness: str | None) -> tuple[str | None, frozenset[str], bool]:
    """The harness whose prompt hook is shown, what it loads, whether it has a prompt hook.

    The files are those the host loads by itself; a host whose prompts no hook can add
    context to (Cursor) has no prompt hook.

    ``harness`` when given (it must be wired), else the one harness wired, else none (every
    note served: no host leaves a file out).

    Raises:
        UsageError: ``harness`` is not wired in this repository.
    """
    import importlib

    from lorebook.config import load_config
    from lorebook.errors import UsageError
    from lorebook.inject.loaded import host_files
    from lorebook.plugins import get_plugins

    wired = list(load_config(paths).harnesses)
    if harness is not None and harness not in wired:
        from lorebook.cli.usage import did_you_mean

        installed = get_plugins().harnesses()
        known = (
            "not wired in this repository"
            if harness in installed
            else "no harness of that name is installed"
        )
        raise UsageError(
            f"--harness {harness}: {known} (wired: {', '.join(wired) or 'none'})",
            hint=(
                f"lorebook init --harnesses {','.join([*wired, harness])}"
                if harness in installed
                else did_you_mean(harness, wired or list(installed))
            ),
        )
    name = harness if harness is not None else (wired[0] if len(wired) == 1 else None)
    spec = get_plugins().harnesses().get(name) if name is not None else None
    if spec is None or spec.event_module is None:
        return name, frozenset(), True
    module = importlib.import_module(spec.event_module)
    events = getattr(module, "EVENTS", None)
    prompts = not isinstance(events, dict) or "prompt" in events.values()
    return name, host_files(module, str(paths.repo), str(paths.repo), []), prompts


def recall_command(
    ctx: typer.Context,
    query: Annotated[str, typer.Argument(help="What you want to know (a prompt, a question).")],
    pending: Annotated[
        bool,
        typer.Option(
            "--pending", help="Also list proposals no person has reviewed yet (labelled)."
        ),
    ] = False,
    explain: Annotated[
        bool,
        typer.Option(
            "--explain",
            help="Also list the raw ranking's first notes, served or not, with every test "
            "of the ranker's confidence.",
        ),
    ] = False,
    harness: Annotated[
        str | None,
        typer.Option(
            "--harness",
            help="Whose prompt hook to show (default: the one harness wired, if only one): "
            "notes derived from an instruction file that host loads by itself (CLAUDE.md for "
            "claude, AGENTS.md for codex ...) are left out, as its hook leaves them out.",
        ),
    ] = None,
    json_output: JsonOption = False,
) -> None:
    """Rank every configured store for QUERY exactly as the prompt hook does.

    The same ranker, relevance decision and validity checks: a stale note is demoted and
    says what to recheck, errata come with their note, a refuted note is listed as a
    warning, a note no person has reviewed is labelled. Each note says how the hook serves
    it: whole (the ranker is confident it answers QUERY), as a one-line pointer (and why
    not whole), or left out because the prompt budget was full; why it matched, and which
    store it came from. With --json, "context" is the text the hook would inject. Note
    text is sanitised as the hooks sanitise it.
    """
    from lorebook.errors import UsageError
    from lorebook.inject.query import recall

    if not query.strip():
        raise UsageError(
            "QUERY is empty: give the prompt to rank notes for",
            hint='lorebook recall "how do we run the tests?"',
        )
    paths = repo_paths(ctx)
    host, loaded, prompts = host_loads(paths, harness)
    doc = recall(paths, query, pending=pending, explain=explain, harness=host, loaded=loaded)
    doc["prompt_hook"] = prompts  # False: Cursor's prompts
    if json_output:
        print_json(doc)
    else:
        _show(doc)


def register(app: typer.Typer) -> None:
    """Add the command to the app."""
    app.command("recall")(recall_command)
