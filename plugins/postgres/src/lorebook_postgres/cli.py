"""``lorebook-postgres``: review an organisation's proposals, approve them, check the store.

The organisation comes from the repository's ``.lorebook/config.yaml`` (``organisation:``)
at or above the current folder (``--repo``), else the user config; the connection from
``$LOREBOOK_POSTGRES_DSN`` or the user config. Who approves is the database role the
connection logs in as: the right to approve is the database's own (see the README).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from lorebook.errors import LorebookError

app = typer.Typer(
    name="lorebook-postgres",
    help="Review and approve an organisation's notes in the postgres store; check its cache.",
    no_args_is_help=True,
    add_completion=False,
)

RepoOption = Annotated[
    Path | None,
    typer.Option("--repo", help="A folder in the repository (default: the current one)."),
]
JsonOption = Annotated[bool, typer.Option("--json", help="One JSON document on stdout.")]


def _store(repo: Path | None) -> Any:
    from lorebook.kb.paths import find_repo
    from lorebook_postgres import settings
    from lorebook_postgres.store import PostgresStore

    root = find_repo((repo or Path.cwd()).resolve())
    return PostgresStore(settings.organisation(root))


def _print_json(doc: Any) -> None:
    import json

    sys.stdout.write(json.dumps(doc, indent=2, sort_keys=True, default=str) + "\n")


@app.command()
def review(repo: RepoOption = None, json_output: JsonOption = False) -> None:
    """List the proposals awaiting approval (oldest first), with the version to approve."""
    store = _store(repo)
    try:
        proposals = store.proposals()
    finally:
        store.close()
    if json_output:
        _print_json([_as_dict(p) for p in proposals])
        return
    if not proposals:
        typer.echo(f"no proposals await approval in {store.org!r}")
        return
    for p in proposals:
        kind = "change" if p.replaces_approved else "new"
        when = p.proposed_at.strftime("%Y-%m-%d %H:%M")
        typer.echo(f"{p.id} (version {p.version}, {kind}) by {p.proposed_by} at {when}: {p.title}")
    typer.echo("approve one with `lorebook-postgres approve ID --version N`; `show ID` prints it")


def _as_dict(value: Any) -> dict[str, Any]:
    from dataclasses import asdict

    return asdict(value)


@app.command()
def show(
    note_id: Annotated[str, typer.Argument(metavar="ID", help="The note to print.")],
    repo: RepoOption = None,
) -> None:
    """Print a note's current text (what approving it would serve)."""
    from lorebook.kb.notes import render_note

    store = _store(repo)
    try:
        typer.echo(render_note(store.get(note_id), None), nl=False)
    finally:
        store.close()


@app.command()
def approve(
    note_ids: Annotated[list[str], typer.Argument(metavar="ID...", help="Notes to approve.")],
    version: Annotated[
        int | None,
        typer.Option(help="Approve only this version (the one you read); refused if changed."),
    ] = None,
    repo: RepoOption = None,
    json_output: JsonOption = False,
) -> None:
    """Approve proposals: served in every repository of the organisation from its next session."""
    if version is not None and len(note_ids) != 1:
        raise typer.BadParameter("--version goes with one ID", param_hint="--version")
    store = _store(repo)
    done = []
    try:
        for note_id in note_ids:
            who, when = store.approve(note_id, version)
            done.append({"id": note_id, "approved_by": who, "approved_at": when.isoformat()})
    finally:
        store.close()
    if json_output:
        _print_json(done)
        return
    for item in done:
        typer.echo(f"approved {item['id']} by {item['approved_by']} at {item['approved_at']}")


@app.command()
def reject(
    note_id: Annotated[str, typer.Argument(metavar="ID", help="The proposal to drop.")],
    repo: RepoOption = None,
) -> None:
    """Drop a proposal: a new note is deleted, a change returns to the approved text."""
    store = _store(repo)
    try:
        store.reject(note_id)
    finally:
        store.close()
    typer.echo(f"rejected the proposal of {note_id}")


@app.command()
def refresh(repo: RepoOption = None) -> None:
    """Refresh this machine's cache of the organisation's approved notes now."""
    from lorebook_postgres.cache import refresh as refresh_cache, save_status

    store = _store(repo)
    try:
        done = refresh_cache(store)
    finally:
        store.close()
    save_status(store.paths, ok=True, notes=done.notes, seconds=round(done.seconds, 3))
    typer.echo(
        f"{done.notes} approved notes cached ({done.written} written, {done.removed} removed) "
        f"in {done.seconds:.2f} s at {store.paths.nodes}"
    )


@app.command()
def status(repo: RepoOption = None, json_output: JsonOption = False) -> None:
    """Say whether the database answers, and when the cache was last refreshed."""
    from lorebook_postgres.cache import last_status

    store = _store(repo)
    doc: dict[str, Any] = {"organisation": store.org, "cache": str(store.paths.root)}
    doc["last_refresh"] = last_status(store.paths) or None
    try:
        doc["proposals"] = len(store.proposals())
        doc["reachable"] = True
    except LorebookError as exc:
        doc["reachable"] = False
        doc["error"] = exc.message
    finally:
        store.close()
    if json_output:
        _print_json(doc)
    else:
        state = "reachable" if doc["reachable"] else f"UNREACHABLE ({doc['error']})"
        last = doc["last_refresh"] or {}
        typer.echo(f"organisation {store.org!r}: database {state}")
        typer.echo(
            f"cache {doc['cache']}: last refreshed {last.get('last_ok', 'never')}"
            + ("" if last.get("ok", True) else f"; last attempt failed: {last.get('error')}")
        )
    if not doc["reachable"]:
        raise typer.Exit(1)


def main() -> None:
    """The console script: an expected failure is one line on stderr and exit code 1."""
    try:
        app()
    except LorebookError as exc:
        sys.stderr.write(f"lorebook-postgres: error: {exc.message}\n")
        if exc.hint:
            sys.stderr.write(f"  hint: {exc.hint}\n")
        sys.exit(1)
