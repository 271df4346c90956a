r"""lorebook's hook entries in a project's ``.claude/settings.json``.

Claude reads ``{"hooks": {"<Event>": [{"matcher": "*", "hooks": [{"type": "command",
"command": "...", "timeout": 10}]}]}}`` (shared/HARNESSES.md section 1.1). lorebook adds one
matcher group per event it listens to, holding one command that runs the per-machine
launcher ``.lorebook/bin/hook`` when it exists and otherwise exits 0 quietly (a fresh clone
before ``lorebook init``). Our entries are recognised by their command running
``.lorebook/bin/hook`` (quoted or not) with the ``claude`` argument; everything else in the
file is the user's and is kept as it is, in its order. The merge itself is
:mod:`lorebook.hostkit.hookfile`; this module names Claude's file, events and command.
"""

from __future__ import annotations

import re

from lorebook.hostkit.hookfile import HookFile, HookSpec

SETTINGS_PATH = ".claude/settings.json"
"""The project settings file, relative to the repository (committed, shared)."""

LAUNCHER = '"$CLAUDE_PROJECT_DIR/.lorebook/bin/hook"'
"""The per-machine launcher, as the hook command names it (Claude sets the variable)."""

HOOKS: tuple[HookSpec, ...] = (
    ("SessionStart", None, 30),
    ("UserPromptSubmit", None, 10),
    ("PreToolUse", "*", 10),
    ("PostToolUse", "*", 10),
    ("PostToolUseFailure", "*", 10),
    ("Stop", None, 30),
    ("SessionEnd", None, 2),
    ("PreCompact", None, 30),
)
"""(host event, matcher, timeout in seconds) for every hook lorebook installs.

SessionEnd stays small: Claude's own budget for it is 1.5 s by default.
"""

FIX = "run `lorebook init --harnesses claude`"

_OURS = re.compile(r'\.lorebook/bin/hook"?\s+claude(\s|$)')


def hook_command(event: str) -> str:
    """The exact command lorebook installs for one Claude hook event."""
    return f"test -x {LAUNCHER} && {LAUNCHER} claude {event} || true"


def is_our_command(command: str) -> bool:
    """Whether a hook command is one lorebook installed for Claude (any version)."""
    return _OURS.search(command) is not None


FILE = HookFile(SETTINGS_PATH, HOOKS, hook_command, is_our_command, FIX)
"""Claude's settings file as :mod:`lorebook.hostkit.hookfile` merges it."""
