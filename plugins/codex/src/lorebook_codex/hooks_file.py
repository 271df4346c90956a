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
its definition (see :mod:`lorebook_codex.trust`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from lorebook.errors import LorebookError

HOOKS_PATH = ".codex/hooks.json"
"""The project hooks file, relative to the repository (committed, shared)."""

HOOKS: tuple[tuple[str, str | None, int], ...] = (
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


def hook_group(event: str, matcher: str | None, timeout: int) -> dict[str, Any]:
    """The matcher group lorebook installs for one Codex hook event."""
    group: dict[str, Any] = {} if matcher is None else {"matcher": matcher}
    group["hooks"] = [{"type": "command", "command": hook_command(event), "timeout": timeout}]
    return group


def is_ours(entry: Any) -> bool:
    """Whether a hook entry is one lorebook installed (any version)."""
    if not isinstance(entry, dict):
        return False
    command = entry.get("command")
    return isinstance(command, str) and _OURS.search(command) is not None


def our_positions(groups: Any) -> list[tuple[int, int, dict[str, Any], dict[str, Any]]]:
    """(group index, handler index, group, entry) of each of our entries in an event's list.

    The indexes are the ones Codex puts in a hook's trust key.
    """
    found: list[tuple[int, int, dict[str, Any], dict[str, Any]]] = []
    for group_index, group in enumerate(groups if isinstance(groups, list) else ()):
        entries = group.get("hooks") if isinstance(group, dict) else None
        for handler_index, entry in enumerate(entries if isinstance(entries, list) else ()):
            if is_ours(entry):
                found.append((group_index, handler_index, group, entry))
    return found


def our_commands(groups: Any) -> list[str]:
    """The commands of lorebook's entries among an event's matcher groups."""
    return [entry["command"] for _, _, _, entry in our_positions(groups)]


def _strip_group(group: Any) -> tuple[Any, bool]:
    """The group without our entries (None if nothing else was in it), and if any went."""
    entries = group.get("hooks") if isinstance(group, dict) else None
    if not isinstance(entries, list):
        return group, False
    kept = [entry for entry in entries if not is_ours(entry)]
    if len(kept) == len(entries):
        return group, False
    if not kept:
        return None, True
    return {**group, "hooks": kept}, True


def without_ours(groups: list[Any]) -> tuple[list[Any], bool]:
    """An event's groups without our entries (emptied groups dropped), and if any went."""
    kept: list[Any] = []
    removed = False
    for group in groups:
        stripped, changed = _strip_group(group)
        removed = removed or changed
        if stripped is not None:
            kept.append(stripped)
    return kept, removed


def with_ours(groups: list[Any], ours: dict[str, Any]) -> list[Any]:
    """An event's groups with exactly one group of ours.

    Our group takes the place of the first group that held only our entries (so an older
    lorebook entry is replaced where it stood, and keeps its trust key), or goes last; our
    entries mixed into a user's group are taken out of it.
    """
    result: list[Any] = []
    placed = False
    for group in groups:
        stripped, changed = _strip_group(group)
        if not changed:
            result.append(group)
        elif stripped is not None:
            result.append(stripped)
        elif not placed:
            result.append(ours)
            placed = True
    if not placed:
        result.append(ours)
    return result


def load_hooks(path: Path) -> dict[str, Any]:
    """Read a hooks file: ``{}`` when it does not exist.

    Raises:
        LorebookError: the file is not valid JSON, is not a JSON object, or its ``hooks``
            (or one event under it) has a shape Codex would not accept.
    """
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return {}
    try:
        data = json.loads(raw)
    except ValueError as exc:
        raise LorebookError(
            f"{path} is not valid JSON: {exc}", hint="fix or remove it, then " + FIX
        ) from None
    if not isinstance(data, dict):
        raise LorebookError(f"{path} must hold a JSON object, not {type(data).__name__}")
    hooks = data.get("hooks", {})
    if not isinstance(hooks, dict):
        raise LorebookError(f"{path}: 'hooks' must be an object, not {type(hooks).__name__}")
    for event, groups in hooks.items():
        if not isinstance(groups, list):
            raise LorebookError(
                f"{path}: 'hooks.{event}' must be a list, not {type(groups).__name__}"
            )
    return data


def dump_hooks(data: dict[str, Any]) -> bytes:
    """The hooks file as written: 2-space indent, trailing newline, UTF-8."""
    return (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def installed(data: dict[str, Any]) -> dict[str, Any]:
    """The hooks file with lorebook's hooks in place (and stale entries of ours removed)."""
    hooks: dict[str, Any] = dict(data.get("hooks", {}))
    wanted = {event for event, _, _ in HOOKS}
    for event in [name for name in hooks if name not in wanted]:
        kept, removed = without_ours(hooks[event])
        if removed and not kept:
            del hooks[event]
        elif removed:
            hooks[event] = kept
    for event, matcher, timeout in HOOKS:
        hooks[event] = with_ours(hooks.get(event, []), hook_group(event, matcher, timeout))
    return {**data, "hooks": hooks}


def uninstalled(data: dict[str, Any]) -> dict[str, Any]:
    """The hooks file without lorebook's entries; keys emptied by that removal are dropped."""
    if "hooks" not in data:
        return data
    hooks: dict[str, Any] = {}
    removed_any = False
    for event, groups in data["hooks"].items():
        kept, removed = without_ours(groups)
        removed_any = removed_any or removed
        if kept or not removed:
            hooks[event] = kept if removed else groups
    if not removed_any:
        return data
    rest = {key: value for key, value in data.items() if key != "hooks"}
    return {**data, "hooks": hooks} if hooks else rest


def events_of(data: dict[str, Any]) -> Iterable[tuple[str, list[Any]]]:
    """Each event lorebook installs, with the groups the file holds for it."""
    hooks = data.get("hooks", {})
    for event, _, _ in HOOKS:
        yield event, hooks.get(event, [])
