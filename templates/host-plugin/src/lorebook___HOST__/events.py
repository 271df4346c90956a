"""__HOST_TITLE__ hook payloads to lorebook events, and answers back (the hook fast path).

The launcher imports this module in every hook process: keep it to the standard library,
``lorebook.events`` and ``lorebook.hostkit`` (no pluggy, pydantic or yaml).
"""

from __future__ import annotations

from lorebook.hostkit import hookspecific

TYPE_CHECKING = False  # typing costs the hook path milliseconds to import
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

    from lorebook.events import EventName, HookAnswer, HookEvent, HostOutput
    from lorebook.hostkit.payload import Payload

HARNESS = "__HOST__"

EVENTS: dict[str, EventName] = dict(hookspecific.EVENTS)
"""Your host's event names (as its hooks file spells them) to lorebook's."""

CONTEXT_EVENTS = frozenset({"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse"})
"""Events whose ``additionalContext`` your host shows the model (check it against the host)."""

_HOST_NAME = hookspecific.host_names(EVENTS)


def _error_of(name: str, payload: Payload) -> str | None:
    response = payload.data.get("tool_response")
    if isinstance(response, dict) and isinstance(response.get("error"), str):
        return str(response["error"]) or None
    return None


def parse_event(name: str, payload: Mapping[str, Any]) -> HookEvent:
    """Translate one payload; a ValueError names a missing field."""
    return hookspecific.parse_event(HARNESS, EVENTS, name, payload, _error_of)


def _decision(answer: HookAnswer) -> tuple[str, str] | None:
    if answer.decision in ("deny", "ask"):
        return answer.decision, answer.reason or "blocked by lorebook"
    return None


def render(event: HookEvent, answer: HookAnswer) -> HostOutput:
    """Put the answer in ``hookSpecificOutput``; nothing to say prints nothing; exit 0."""
    return hookspecific.render(event, answer, CONTEXT_EVENTS, _decision, _HOST_NAME)


LOADED_NAMES = ("AGENTS.md",)
"""The instruction files your host reads by itself in each folder (keep in step with
``instruction_files`` in plugin.py, and check it against the real client)."""


def loaded_files(repo: str, cwd: str | None) -> frozenset[str]:
    """The repository files __HOST_TITLE__ loads whole by itself when a session starts.

    Core serves no note derived from one of them to this host (``lorebook.inject.loaded``),
    since the model has read it already. Here: ``AGENTS.md`` in each folder from the
    repository root down to the session's cwd; say what your host really reads.
    """
    from lorebook.hostkit.loaded import existing, folders, join

    candidates = [join(folder, name) for folder in folders(repo, cwd) for name in LOADED_NAMES]
    return frozenset(existing(repo, candidates))
