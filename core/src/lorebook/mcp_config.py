"""Register the MCP server in the project MCP config of the hosts that read one.

Each host plugin names the file its host reads in ``HarnessSpec.mcp_config`` (an
``mcpServers`` mapping; core knows no host's file). The entry runs
``.lorebook/bin/mcp``, this machine's launcher (gitignored, written by ``lorebook init``
next to the hook launcher), so the committed config is the same string on every machine.
The user's own servers are kept, byte for byte: our entry is added to (or taken out of)
the file's text, so an entry written ``"args": ["mcp", "start"]`` stays on its line, and an
uninstall gives back the file as it was. Our entry is added with the first harness that
reads the file and removed with the last. Nothing is registered while the SDK is not installed
(the ``mcp`` extra), so a host never starts a server that cannot run.
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from lorebook.datafile import DataFileError, read_json
from lorebook.errors import ConfigError
from lorebook.kb.fsutil import atomic_write_text
from lorebook.kb.paths import KBPaths

if TYPE_CHECKING:
    from lorebook.providers import HarnessSpec

SERVER = "lorebook"
COMMAND = ".lorebook/bin/mcp"
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


class _Member(NamedTuple):
    """Where one member of a JSON object lies in the text: ``"key": value``."""

    key: str
    start: int  # the key's opening quote
    value_start: int
    end: int  # just past the value


def _skip_space(text: str, at: int) -> int:
    while at < len(text) and text[at] in " \t\r\n":
        at += 1
    return at


def _value_end(text: str, at: int) -> int:
    """Just past the JSON value starting at ``at`` (the text is known to be valid JSON)."""
    if text[at] == '"':
        at += 1
        while text[at] != '"':
            at += 2 if text[at] == "\\" else 1
        return at + 1
    if text[at] in "{[":
        depth = 0
        while True:
            char = text[at]
            if char == '"':
                at = _value_end(text, at)
                continue
            depth += char in "{["
            depth -= char in "}]"
            at += 1
            if depth == 0:
                return at
    while at < len(text) and text[at] not in ",}] \t\r\n":
        at += 1
    return at


def _members(text: str, at: int) -> tuple[list[_Member], int]:
    """The members of the object whose ``{`` is at ``at``, and where its ``}`` is."""
    members: list[_Member] = []
    at = _skip_space(text, at + 1)
    while text[at] != "}":
        key_end = _value_end(text, at)
        value_start = _skip_space(text, _skip_space(text, key_end) + 1)  # past the colon
        end = _value_end(text, value_start)
        members.append(_Member(json.loads(text[at:key_end]), at, value_start, end))
        at = _skip_space(text, end)
        at = _skip_space(text, at + 1) if text[at] == "," else at
    return members, at


def _indent_before(text: str, at: int) -> str:
    """The white space that starts the line ``at`` is on ("" when something else precedes)."""
    line = text[text.rfind("\n", 0, at) + 1 : at]
    return line if not line.strip() else ""


def _insert(text: str, close: int, members: list[_Member], key: str, value: str) -> str:
    """Add ``"key": value`` as the last member of the object whose ``}`` is at ``close``."""
    member = f"{json.dumps(key)}: {value}"
    if members:
        last = members[-1]
        indent = _indent_before(text, last.start)
        gap = f",\n{indent}" if indent else ", "
        return text[: last.end] + gap + member + text[last.end :]
    line = text[text.rfind("\n", 0, close) + 1 : close]
    outer = line[: len(line) - len(line.lstrip())]  # the indent of the line the object ends on
    inner = outer + ("\t" if outer.startswith("\t") else "  ")
    return text[:close].rstrip() + f"\n{inner}{member}\n{outer}" + text[close:]


def _edited(text: str, wanted: bool) -> str | None:
    """The file's text with our entry set or taken out, everything else as it was.

    None when the text cannot be edited in place; the caller then writes the data out whole.
    """
    entry = json.dumps({"type": "stdio", "command": COMMAND, "args": []})
    start = _skip_space(text, 0)
    if start >= len(text) or text[start] != "{":
        return None
    top, top_close = _members(text, start)
    servers = next((m for m in top if m.key == "mcpServers"), None)
    if servers is None:
        return _insert(text, top_close, top, "mcpServers", f"{{{json.dumps(SERVER)}: {entry}}}")
    if text[servers.value_start] != "{":
        return None
    inner, inner_close = _members(text, servers.value_start)
    ours = [i for i, m in enumerate(inner) if m.key == SERVER]
    if wanted and ours:
        member = inner[ours[-1]]
        return text[: member.value_start] + entry + text[member.end :]
    if wanted:
        return _insert(text, inner_close, inner, SERVER, entry)
    for i in reversed(ours):  # from the previous member's end, or up to the next one's key
        member = inner[i]
        if i > 0:
            text = text[: inner[i - 1].end] + text[member.end :]
        elif len(inner) > 1:
            text = text[: member.start] + text[inner[1].start :]
        else:
            text = text[: servers.value_start + 1] + text[_skip_space(text, member.end) :]
    return text


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
        text = path.read_text(encoding="utf-8") if path.exists() else ""
        try:
            edited = _edited(text, wanted) if text.strip() else None
        except (IndexError, ValueError):  # not the JSON it was a moment ago
            edited = None
        if edited is None or json.loads(edited) != data:  # any doubt: the data, written whole
            edited = json.dumps(data, indent=2) + "\n"
        atomic_write_text(path, edited)
    else:
        path.unlink(missing_ok=True)  # the file held only our entry
    return True


def write_launcher(paths: KBPaths) -> None:
    """Write this machine's ``.lorebook/bin/mcp`` (executable)."""
    target = paths.bin / "mcp"
    paths.bin.mkdir(parents=True, exist_ok=True)
    atomic_write_text(target, LAUNCHER.format(python=sys.executable))
    os.chmod(target, 0o755)


def sync_mcp(
    paths: KBPaths, wired: list[str], harnesses: Mapping[str, HarnessSpec] | None = None
) -> tuple[list[str], list[str]]:
    """Register or unregister the server per wired harness; return (changed files, notes).

    ``harnesses`` is the harness table (default: every installed plugin's): our entry is
    kept in the ``mcp_config`` files of the wired ones and taken out of every other's.
    """
    if harnesses is None:
        from lorebook.plugins import get_plugins

        harnesses = get_plugins().harnesses()
    files = {name: spec.mcp_config for name, spec in harnesses.items() if spec.mcp_config}
    readers = {files[n] for n in wired if n in files}
    if readers and not sdk_installed():
        from lorebook.installhint import install_command

        return [], [f"MCP server not registered: install it with {install_command('mcp')}"]
    changed = [rel for rel in sorted(set(files.values()))
               if _set_entry(paths.repo, rel, rel in readers)]  # fmt: skip
    launcher = paths.bin / "mcp"
    if readers:
        write_launcher(paths)
    elif launcher.exists():  # no host reads our entry any more: this machine's launcher goes
        launcher.unlink()
        changed.append(paths.rel(launcher))
    return changed, []
