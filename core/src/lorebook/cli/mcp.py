"""``lorebook mcp``: run the MCP server on stdio (needs lorebook's ``mcp`` extra)."""

from __future__ import annotations

import typer

from lorebook.cli.output import repo_paths


def mcp_command(ctx: typer.Context) -> None:
    """Serve recall, note_show and propose to an MCP client over stdio.

    Hosts that read project MCP config start it themselves: `lorebook init` registers it
    (in .mcp.json for Claude Code and Copilot CLI, .cursor/mcp.json for Cursor) when the
    SDK is installed. `propose` only stages a proposal for review; nothing is written to
    the notes.
    """
    import sys

    from lorebook.config import load_config
    from lorebook.errors import LorebookError
    from lorebook.mcp_server import require_sdk, serve

    paths = repo_paths(ctx)
    load_config(paths)  # a broken config is one clear error before any client connects
    require_sdk()  # from a terminal too: what to install comes before how it is started
    if not hasattr(sys.stdin, "buffer") or sys.stdin.isatty():
        raise LorebookError(
            "lorebook mcp speaks the MCP protocol on stdin and stdout",
            hint="let an MCP client start it (`lorebook init` registers it for your host)",
        )
    serve(paths.repo)


def register(app: typer.Typer) -> None:
    """Add the command to the app."""
    app.command("mcp")(mcp_command)
