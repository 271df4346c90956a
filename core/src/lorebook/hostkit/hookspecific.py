"""Hook payloads and answers of the ``hookSpecificOutput`` shape, which several hosts share.

Such a host sends snake_case payloads (``session_id``, ``cwd``, ``transcript_path``,
``prompt``, ``tool_name``, ``tool_input``, ``source``) and reads one JSON object on stdout
whose ``hookSpecificOutput`` carries ``additionalContext`` and, before a tool,
``permissionDecision`` with its reason. A plugin for such a host names its events, says
how a finished tool shows an error and how it takes a decision; this module does the rest.

On the hook fast path: it imports only ``lorebook.events`` and
:mod:`lorebook.hostkit.payload`, and not ``typing`` at run time.
"""

from __future__ import annotations

from lorebook.events import HostOutput
from lorebook.hostkit.payload import Fields, encode_json, parse_with

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: importing typing costs the hook path ms
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from typing import Any

    from lorebook.events import EventName, HookAnswer, HookEvent
    from lorebook.hostkit.payload import Payload

    ErrorOf = Callable[[str, Payload], str | None]
    """(host event, payload) of a finished tool -> its error text, or None."""

    DecisionOf = Callable[[HookAnswer], tuple[str, str] | None]
    """An answer -> (permissionDecision, reason) to write before a tool, or None."""

EVENTS: dict[str, EventName] = {
    "SessionStart": "session_start",
    "UserPromptSubmit": "prompt",
    "PreToolUse": "pre_tool",
    "PostToolUse": "post_tool",
    "Stop": "stop",
    "SessionEnd": "session_end",
    "PreCompact": "pre_compact",
}
"""The hook events of this shape that map to lorebook's lifecycle points."""

_FIELDS = Fields(session="session_id", cwd="cwd")


def host_names(events: Mapping[str, EventName]) -> dict[EventName, str]:
    """Normalised name -> the first host event mapped to it (to name an event back)."""
    names: dict[EventName, str] = {}
    for host, name in events.items():
        names.setdefault(name, host)
    return names


def parse_event(
    harness: str,
    events: Mapping[str, EventName],
    name: str,
    data: Mapping[str, Any],
    error_of: ErrorOf,
) -> HookEvent:
    """Translate one hook payload of this shape into a normalised event.

    Args:
        harness: The harness name the event carries.
        events: Host event name -> normalised name, for every event the plugin installs.
        name: The host event as configured, passed by the launcher on its command line.
        data: The JSON object the host wrote to the hook's stdin.
        error_of: Called for every ``post_tool`` event: the tool's error text, or None.

    Returns:
        The normalised event; ``raw`` is the payload itself.

    Raises:
        ValueError: the event name is unknown, the payload is not a JSON object, or a
            field the event needs is missing (the message names the event and field).
    """
    return parse_with(harness, events, name, data, _FIELDS, error_of)


def render(
    event: HookEvent,
    answer: HookAnswer,
    context_events: frozenset[str],
    decision_of: DecisionOf,
    host_name: Mapping[EventName, str],
) -> HostOutput:
    """Put an answer in ``hookSpecificOutput``; empty stdout when there is nothing to say.

    Context goes to ``additionalContext`` on the host events in ``context_events`` (the
    ones whose context reaches the model) and is dropped elsewhere. On a ``pre_tool``
    event, ``decision_of`` gives the ``permissionDecision`` and its reason (None writes
    none: ``allow`` is never written, so the host keeps its own permission prompt). The
    exit code is always 0, so a hook never breaks the session.
    """
    host_event = event.host_event or host_name[event.name]
    specific: dict[str, Any] = {"hookEventName": host_event}
    decided = decision_of(answer) if event.name == "pre_tool" else None
    if decided is not None:
        specific["permissionDecision"], specific["permissionDecisionReason"] = decided
    if answer.context and host_event in context_events:
        specific["additionalContext"] = answer.context
    if len(specific) == 1:
        return HostOutput(b"", 0)
    return HostOutput(encode_json({"hookSpecificOutput": specific}), 0)
