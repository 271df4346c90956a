"""``lorebook migrate status|run``: bring a knowledge base at an older format version up to date."""

from __future__ import annotations

import typer

from lorebook.cli.output import JsonOption, print_json, repo_paths, say, warn

migrate_app = typer.Typer(
    name="migrate",
    help="Bring a knowledge base written at an older format version (lb_schema) up to date.",
    no_args_is_help=True,
    rich_markup_mode=None,
)


def status(ctx: typer.Context, json_output: JsonOption = False) -> None:
    """Print the version on disk and the pending steps; runs nothing, writes nothing.

    Exit 1 when a file would stop the migration (each one is named) or the knowledge base
    is newer than this lorebook.
    """
    from lorebook.migrate import status as migration_status

    doc = migration_status(repo_paths(ctx))
    if json_output:
        print_json(doc)
    else:
        for line in _status_lines(doc):
            say(line)
        for problem in doc["problems"]:
            warn(f"lorebook: {problem}")
    if not doc["ok"]:
        raise typer.Exit(1)


def _status_lines(doc: dict[str, object]) -> list[str]:
    head = f"format version on disk: {doc['version']}; this lorebook: {doc['current']}"
    pending = doc["pending"]
    assert isinstance(pending, list)
    if not pending:
        return [head, "nothing to do"]
    files = doc["files"]
    assert isinstance(files, list)
    lines = [head, "pending steps (run `lorebook migrate run`):"]
    lines += [f"  {s['from']} -> {s['to']} {s['name']}: {s['summary']}" for s in pending]
    lines.append(f"{len(files)} files to rewrite")
    if doc["interrupted"]:
        lines.append("an earlier run was cut short: `lorebook migrate run` finishes it")
    return lines


def run(ctx: typer.Context, json_output: JsonOption = False) -> None:
    """Apply every pending step, then rebuild the indexes.

    Every file is validated before the first write; ids, paths and note bodies never
    change, and a note a person had reviewed stays reviewed. If the run is cut short,
    run it again: it finishes what is left.
    """
    from lorebook.cli.progress import finish_hint
    from lorebook.migrate import run_migration

    paths = repo_paths(ctx)
    with finish_hint("lorebook migrate run", "it finishes what is left"):
        plan = run_migration(paths)
    if json_output:
        print_json(
            {
                "ok": True,
                "from": plan.version,
                "steps": [s.name for s in plan.steps] if plan.writes else [],
                "written": [rel for rel, _ in plan.writes],
                "kept_as_written": plan.kept_as_written,
            }
        )
        return
    if not plan.writes:
        say("nothing to do: the knowledge base is at the current format version")
        return
    say(f"migrated .lorebook/ from format version {plan.version}: {len(plan.writes)} files")
    for rel, _ in plan.writes:
        say(f"  wrote .lorebook/{rel}")
    for rel in plan.kept_as_written:
        say(f"  .lorebook/{rel}: only lb_schema changed (its frontmatter may hold a comment)")


def register(app: typer.Typer) -> None:
    """Add the command group to the app."""
    migrate_app.command("status")(status)
    migrate_app.command("run")(run)
    app.add_typer(migrate_app)
