r"""What lorebook writes for Cursor: entries in ``.cursor/hooks.json`` and a rules file.

Cursor reads ``{"version": 1, "hooks": {"<event>": [{"command": "..."}]}}`` from the
project's ``.cursor/hooks.json`` (trusted workspaces; shared/HARNESSES.md section 5) and runs
a command from the project root. lorebook adds one entry per event it listens to, whose
command runs the per-machine launcher when it exists and otherwise exits 0 quietly; a
user's entries are kept as they are (:mod:`lorebook.hostkit.flathooks`).

Because ``beforeSubmitPrompt`` cannot inject and sessionStart context is unreliable in the
IDE, lorebook also keeps ``.cursor/rules/lorebook.mdc`` (``alwaysApply: true``): a short
pointer to the knowledge base, so the agent knows it exists whatever the hooks deliver.
"""

from __future__ import annotations

import re
from typing import Any

from lorebook.hostkit.flathooks import FlatHookFile
from lorebook.hostkit.managed import ManagedFile

HOOKS_PATH = ".cursor/hooks.json"
RULES_PATH = ".cursor/rules/lorebook.mdc"
EVENTS = ("sessionStart", "beforeShellExecution", "preToolUse", "stop", "sessionEnd")
FIX = "run `lorebook init --harnesses cursor`"

_OURS = re.compile(r"\.lorebook/bin/hook['\"]?\s+cursor(\s|$)")

RULES_MARKER = (
    "<!-- lorebook:managed-rule (written by `lorebook init`; removed by `lorebook uninstall`) -->"
)
RULES_TEXT = f"""---
description: This project's lorebook knowledge base - what the team taught coding assistants
alwaysApply: true
---
{RULES_MARKER}

This repository keeps what its team taught coding assistants as notes in `.lorebook/`.
Before you change code, start from `.lorebook/ENTRY.md`, open the `index.md` of the folder
that fits the task, and read the notes it lists. Notes marked superseded or refuted are
history, not instructions.
"""


def command(event: str) -> str:
    """The exact command lorebook installs for one Cursor event."""
    return f"test -x .lorebook/bin/hook && exec .lorebook/bin/hook cursor {event} || true"


def entry(event: str) -> dict[str, Any]:
    """The entry lorebook installs for one Cursor event."""
    return {"command": command(event)}


def is_our_entry(value: Any) -> bool:
    """Whether a hook entry runs lorebook's launcher for Cursor (any version)."""
    text = value.get("command") if isinstance(value, dict) else None
    return isinstance(text, str) and _OURS.search(text) is not None


HOOKS = FlatHookFile(HOOKS_PATH, EVENTS, entry, is_our_entry, FIX)
RULES = ManagedFile(RULES_PATH, RULES_TEXT, RULES_MARKER)
