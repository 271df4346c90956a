"""Register the MCP server in the project MCP config of the hosts that read one.

Claude Code and Copilot CLI read ``.mcp.json``, Cursor reads ``.cursor/mcp.json`` (all an
``mcpServers`` mapping; ``shared/HARNESSES.md`` sections 1.6, 4.6 and 5). The entry runs
``.lorebook/bin/mcp``, this machine's launcher (gitignored, written by ``lorebook init``
next to the hook launcher), so the committed config is the same string on every machine.
The user's own servers are kept; our entry is added with the first harness that reads the
file and removed with the last. Nothing is registered while the SDK is not installed
(the ``mcp`` extra), so a host never starts a server that cannot run.
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
from pathlib import Path

from lorebook.datafile import DataFileError, read_json
from lorebook.errors import ConfigError
from lorebook.kb.fsutil import atomic_write_text
from lorebook.kb.paths import KBPaths

SERVER = "lorebook"
COMMAND = ".lorebook/bin/mcp"
CONFIG_FILES = {"claude": ".mcp.json", "copilot": ".mcp.json", "cursor": ".cursor/mcp.json"}
"""Harness -> the project MCP config its host reads."""
MAX_MCP_CONFIG_BYTES = 1024 * 1024
"""A committed MCP config larger than this is refused unread (it holds a few servers)."""
LAUNCHER = """#!{python}
# Written by `lorebook init` for this machine (gitignored): runs lorebook's MCP server
# for the repository this file lives in.
import os, sys
repo = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from lorebook.cli.app import main
sys.argv = ["lorebook", "-C", repo, "mcp"]
main()
"""


def sdk_installed() -> bool:
    """True when the official MCP SDK can be imported."""
    return importlib.util.find_spec("mcp") is not None


def _load(path: Path, source: str) -> dict[str, object]:
    """The committed MCP config at ``path`` ({} when missing), read bounded.

    Raises:
        ConfigError: too large, too deep, not JSON or not an object (named by ``source``).
    """
    try:
        data = read_json(path, max_bytes=MAX_MCP_CONFIG_BYTES, source=source)
    except FileNotFoundError:
        return {}
    except DataFileError as exc:
        raise ConfigError(f"{exc.message}; nothing changed") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{source}: the top level is not an object; nothing changed")
    return data


def _set_entry(repo: Path, rel: str, wanted: bool) -> bool:
    path = repo / rel
    data = _load(path, rel)
    servers = data.get("mcpServers")
    servers = dict(servers) if isinstance(servers, dict) else {}
    entry = {"type": "stdio", "command": COMMAND, "args": []}
    if wanted == (servers.get(SERVER) == entry):
        return False
    if wanted:
        servers[SERVER] = entry
    else:
        servers.pop(SERVER, None)
    if servers or len(data) > 1 or wanted:
        data["mcpServers"] = servers
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(path, json.dumps(data, indent=2) + "\n")
    else:
        path.unlink(missing_ok=True)  # the file held only our entry
    return True


def write_launcher(paths: KBPaths) -> None:
    """Write this machine's ``.lorebook/bin/mcp`` (executable)."""
    target = paths.bin / "mcp"
    paths.bin.mkdir(parents=True, exist_ok=True)
    atomic_write_text(target, LAUNCHER.format(python=sys.executable))
    os.chmod(target, 0o755)


def sync_mcp(paths: KBPaths, wired: list[str]) -> tuple[list[str], list[str]]:
    """Register or unregister the server per wired harness; return (changed files, notes)."""
    readers = {CONFIG_FILES[n] for n in wired if n in CONFIG_FILES}
    if readers and not sdk_installed():
        from lorebook.installhint import install_command

        return [], [f"MCP server not registered: install it with {install_command('mcp')}"]
    changed = [rel for rel in sorted(set(CONFIG_FILES.values()))
               if _set_entry(paths.repo, rel, rel in readers)]  # fmt: skip
    if readers:
        write_launcher(paths)
    return changed, []
