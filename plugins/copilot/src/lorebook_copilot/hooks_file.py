r"""lorebook's entries in the repository's ``.github/hooks/lorebook.json``.

Copilot CLI loads every ``.github/hooks/*.json`` under the folder it runs in, once that
folder is trusted (shared/HARNESSES.md section 4.1), and reads ``{"version": 1, "hooks":
{"<event>": [{"type": "command", "bash": ..., "powershell": ..., "cwd": ".", "timeoutSec":
N}]}}``. lorebook keeps its entries in a file of its own; a user's entries in it (or a
user's own file beside it) are kept as they are. Copilot runs ``bash`` on Linux and macOS
and ``powershell`` on Windows, with ``cwd`` relative to the repository root; both commands
run the per-machine launcher when it exists and otherwise exit 0 quietly (a fresh clone
before ``lorebook init``). The merge itself is :mod:`lorebook.hostkit.flathooks`.
"""

from __future__ import annotations

import re
from typing import Any

from lorebook.hostkit.flathooks import FlatHookFile

HOOKS_PATH = ".github/hooks/lorebook.json"
"""lorebook's hooks file, relative to the repository (committed, shared)."""

TIMEOUTS: dict[str, int] = {
    "sessionStart": 30,
    "userPromptSubmitted": 10,
    "preToolUse": 10,
    "postToolUse": 10,
    "agentStop": 30,
    "sessionEnd": 30,
    "preCompact": 30,
}
"""Every camelCase event lorebook installs, with its ``timeoutSec`` (Copilot's default: 30)."""

FIX = "run `lorebook init --harnesses copilot`"

LAUNCHER = ".lorebook/bin/hook"
"""The per-machine launcher, relative to the repository (Copilot runs hooks there)."""

WINDOWS_LAUNCHER = ".lorebook/bin/hook.cmd"
"""The launcher's Windows form, as the ``powershell`` command runs it."""

_OURS = re.compile(r"\.lorebook[/\\]bin[/\\]hook(\.cmd)?['\"]?\s+copilot(\s|$)")


def bash_command(event: str) -> str:
    """The POSIX shell command lorebook installs for one event."""
    return f"test -x {LAUNCHER} && exec {LAUNCHER} copilot {event} || true"


def powershell_command(event: str) -> str:
    """The PowerShell command lorebook installs for one event (stdin passed through)."""
    return (
        f"if (Test-Path '{WINDOWS_LAUNCHER}') {{ $input | & '{WINDOWS_LAUNCHER}' copilot {event} }}"
    )


def entry(event: str) -> dict[str, Any]:
    """The exact entry lorebook installs for one Copilot event."""
    return {
        "type": "command",
        "bash": bash_command(event),
        "powershell": powershell_command(event),
        "cwd": ".",
        "timeoutSec": TIMEOUTS[event],
    }


def is_our_entry(value: Any) -> bool:
    """Whether a hook entry runs lorebook's launcher for Copilot (any version)."""
    if not isinstance(value, dict):
        return False
    commands = [value.get(key) for key in ("bash", "powershell", "command")]
    return any(isinstance(c, str) and _OURS.search(c) for c in commands)


FILE = FlatHookFile(HOOKS_PATH, tuple(TIMEOUTS), entry, is_our_entry, FIX)
"""lorebook's Copilot hooks file as :mod:`lorebook.hostkit.flathooks` merges it."""
