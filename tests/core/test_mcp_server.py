"""The MCP server, driven by the official SDK's own client over stdio."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

pytest.importorskip("mcp", reason="the MCP server needs the lorebook[mcp] extra")

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


def _add(cli: Any, repo: Path, *args: str) -> None:
    done = cli("note", "add", *args, cwd=repo)
    assert done.exit_code == 0, done.stderr


async def _session(repo: Path, calls: list[tuple[str, dict[str, Any]]]) -> tuple[Any, list[Any]]:
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "lorebook", "mcp"], cwd=str(repo), env=dict(os.environ)
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        tools = await session.list_tools()
        results = [await session.call_tool(name, args) for name, args in calls]
    return tools, results


def _payload(result: Any) -> Any:
    assert not result.is_error, result
    if result.structured_content is not None:
        return result.structured_content
    return json.loads(result.content[0].text)


def test_the_sdk_client_lists_the_tools_and_recall_matches_the_cli(kb_repo: Path, cli: Any) -> None:
    (kb_repo / "src").mkdir()
    (kb_repo / "src/db.py").write_text("POOL = 5\n")
    _add(
        cli, kb_repo, "--title", "Database connection pool size",
        "--description", "How large the database connection pool is",
        "--body", "The pool holds five connections.", "--kind", "gotcha",
        "--depends-on-file", "src/db.py",
    )  # fmt: skip
    (kb_repo / "src/db.py").write_text("POOL = 50\n")
    query = "how large is the database connection pool?"
    tools, (recalled, unrelated, shown, proposed) = anyio.run(
        _session,
        kb_repo,
        [
            ("recall", {"query": query}),
            ("recall", {"query": "what a lovely sunny afternoon for a picnic"}),
            ("note_show", {"note_id": "gotcha-database-connection-pool-size"}),
            ("propose", {"title": "Pool size is fifty", "description": "Database pool",
                         "body": "The pool now holds fifty connections.", "kind": "gotcha"}),
        ],
    )  # fmt: skip
    assert sorted(t.name for t in tools.tools) == [
        "note_show", "premise_ask", "premise_record", "propose", "recall"
    ]  # fmt: skip
    printed = cli("recall", query, "--json", cwd=kb_repo).json()
    got = _payload(recalled)
    assert got["notes"] == printed["notes"]
    assert got["notes"][0]["recheck"] == "recheck: `src/db.py` changed since this was written"
    assert _payload(unrelated)["notes"] == []  # the hooks' relevance floor, not "nearest five"
    assert _payload(shown)["validity"] == "stale"
    staged = _payload(proposed)
    assert staged["staged"].startswith(".lorebook/_sessions/mcp-")
    # A proposal is never a note: nothing new under nodes/, nothing served.
    assert not list((kb_repo / ".lorebook/nodes").rglob("*fifty*"))
    assert "fifty" not in json.dumps(printed["notes"])
    pending = cli("recall", "pool size fifty", "--json", "--pending", cwd=kb_repo).json()
    assert pending["pending"][0]["title"] == "Pool size is fifty"
    assert pending["pending"][0]["label"] == "unreviewed proposal: not a team note"


def test_init_registers_the_server_for_claude_and_keeps_the_users_servers(
    kb_repo: Path, cli: Any
) -> None:
    (kb_repo / ".mcp.json").write_text(json.dumps({"mcpServers": {"mine": {"command": "x"}}}))
    done = cli("init", "--harnesses", "claude", cwd=kb_repo)
    assert done.exit_code == 0, done.stderr
    servers = json.loads((kb_repo / ".mcp.json").read_text())["mcpServers"]
    assert servers["mine"] == {"command": "x"}
    assert servers["lorebook"] == {"type": "stdio", "command": ".lorebook/bin/mcp", "args": []}
    assert os.access(kb_repo / ".lorebook/bin/mcp", os.X_OK)
    cli("uninstall", "--harnesses", "claude", cwd=kb_repo)
    assert json.loads((kb_repo / ".mcp.json").read_text())["mcpServers"] == {
        "mine": {"command": "x"}
    }
