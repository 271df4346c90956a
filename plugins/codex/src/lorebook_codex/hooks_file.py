r"""lorebook's hook entries in a project's ``.codex/hooks.json``.

Codex reads ``{"hooks": {"<Event>": [{"matcher": "*", "hooks": [{"type": "command",
"command": "...", "timeout": 10}]}]}}`` (shared/HARNESSES.md section 2.1). lorebook adds one
matcher group per event it listens to, holding one command (:func:`hook_command`). Our
entries are recognised by their command running ``.lorebook/bin/hook`` with the ``codex``
argument; everything else in the file is the user's and is kept as it is, in its order.
Events Codex does not know (a ``Notification`` copied from a Claude config) are kept too:
Codex 0.171 ignores them without a warning.

Codex runs a hook command with the user's login shell (``$SHELL -lc <command>``) in the
session's working directory, which may be a subfolder of the repository, and gives it no
project-directory variable. So the committed command is a ``sh -c`` script (the same text
parses in sh, bash, zsh and fish: single quotes, no backslash, no ``!``) that walks up from
the working directory to the nearest ``.lorebook/bin/hook`` and ``exec``\ s it, stdin and
all. It stops at the repository root (the first folder holding ``.git``, as Codex's own
project root), so a repository nested in another one never runs the outer one's launcher.
With no launcher (a fresh clone before ``lorebook init``) it exits 0 without output.
It is the same string on every machine, which matters: Codex trusts a hook by the hash of
its definition (see :mod:`lorebook_codex.trust`). The merge itself is
:mod:`lorebook.hostkit.hookfile`; this module names Codex's file, events and command.
"""

from __future__ import annotations

import re
from typing import Any

from lorebook.hostkit.hookfile import HookFile, HookSpec

HOOKS_PATH = ".codex/hooks.json"
"""The project hooks file, relative to the repository (committed, shared)."""

HOOKS: tuple[HookSpec, ...] = (
    ("SessionStart", None, 30),
    ("UserPromptSubmit", None, 10),
    ("PreToolUse", "*", 10),
    ("PostToolUse", "*", 10),
    ("Stop", None, 30),
    ("SessionEnd", None, 3),
    ("PreCompact", None, 30),
)
"""(host event, matcher, timeout in seconds) for every hook lorebook installs.

SessionEnd stays at 3: Codex clamps a SessionEnd timeout to 3 seconds and warns otherwise.
"""

FIX = "run `lorebook init --harnesses codex`"

_SCRIPT = (
    'd="$PWD"; while [ -n "$d" ]; do '
    '[ -x "$d/.lorebook/bin/hook" ] && exec "$d/.lorebook/bin/hook" codex {event}; '
    '[ -e "$d/.git" ] && exit 0; d="${{d%/*}}"; done; exit 0'
)
_OURS = re.compile(r'\.lorebook/bin/hook"?\s+codex(\s|$)')


def hook_command(event: str) -> str:
    """The exact command lorebook installs for one Codex hook event."""
    return "sh -c '" + _SCRIPT.format(event=event) + "'"


def is_our_command(command: str) -> bool:
    """Whether a hook command is one lorebook installed for Codex (any version)."""
    return _OURS.search(command) is not None


FILE = HookFile(HOOKS_PATH, HOOKS, hook_command, is_our_command, FIX)
"""Codex's hooks file as :mod:`lorebook.hostkit.hookfile` merges it."""


def installed(data: dict[str, Any]) -> dict[str, Any]:
    """The hooks file with lorebook's hooks in place (and stale entries of ours removed).

    An older lorebook entry is replaced where it stood, so it keeps its trust key.
    """
    return FILE.installed(data)
