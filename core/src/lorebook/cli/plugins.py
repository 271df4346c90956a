"""``lorebook plugins``: every plugin, its distribution, version, hooks and status."""

from __future__ import annotations

import typer

from lorebook.cli.output import JsonOption, print_json, say


def plugins_command(json_output: JsonOption = False) -> None:
    """List plugins: name, distribution, version, implemented hooks, status (and why it failed)."""
    from lorebook.plugins import get_plugins

    records = get_plugins().records
    if json_output:
        print_json({"ok": True, "plugins": [r.as_json() for r in records]})
        return
    for record in records:
        say(f"{record.name}  ({record.distribution} {record.version})  {record.status}")
        if record.hooks:
            say(f"    hooks: {', '.join(record.hooks)}")
        if record.error:
            say(f"    {record.error}")


def register(app: typer.Typer) -> None:
    """Add the command to the app."""
    app.command("plugins")(plugins_command)
