"""``lorebook plugins``: every plugin, its distribution, version, hooks and status."""

from __future__ import annotations

import typer

from lorebook.cli.output import JsonOption, print_json, say, warn


def plugins_command(json_output: JsonOption = False) -> None:
    """List plugins: name, distribution, version, implemented hooks, status (and why it failed).

    Every provider hook is called first, so a plugin whose hook raises is listed as failed
    with the reason; exits 1 when two plugins provide the same name.
    """
    from lorebook.plugins import get_plugins

    plugins = get_plugins()
    problems = plugins.check()
    if json_output:
        records = [r.as_json() for r in plugins.records]
        print_json({"ok": not problems, "plugins": records, "problems": problems})
    else:
        for record in plugins.records:
            reason = f": {record.error}" if record.error else ""
            say(f"{record.name}  ({record.distribution} {record.version})  {record.status}{reason}")
            if record.hooks:
                say(f"    hooks: {', '.join(record.hooks)}")
        for problem in problems:
            warn(problem)
    if problems:
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    """Add the command to the app."""
    app.command("plugins")(plugins_command)
