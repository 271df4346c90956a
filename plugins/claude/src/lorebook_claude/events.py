"""Claude Code hook payloads to lorebook events, and lorebook answers back to Claude.

This is the fast-path module the hook launcher imports on every Claude Code hook event
(``HarnessSpec.event_module``). It imports only ``json``, ``collections.abc`` and
``lorebook.events``: no pluggy, pydantic or yaml, and not even ``typing`` at run time
(DESIGN.md section 6).

Channels (shared/HARNESSES.md sections 1.3 and 9): Claude reads one JSON object on the
hook's stdout. ``hookSpecificOutput.additionalContext`` reaches the model for
SessionStart, UserPromptSubmit, PreToolUse and PostToolUse (and, per Claude's docs,
PostToolUseFailure); ``permissionDecision`` ``deny`` / ``ask`` on PreToolUse stops the
tool or asks the user. Stop, SessionEnd and PreCompact have no context channel.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from lorebook.events import HookAnswer, HookEvent, HostOutput

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: importing typing costs the hook path ms
if TYPE_CHECKING:
    from typing import Any

    from lorebook.events import EventName

HARNESS = "claude"

EVENTS: dict[str, EventName] = {
    "SessionStart": "session_start",
    "UserPromptSubmit": "prompt",
    "PreToolUse": "pre_tool",
    "PostToolUse": "post_tool",
    "PostToolUseFailure": "post_tool",
    "Stop": "stop",
    "SessionEnd": "session_end",
    "PreCompact": "pre_compact",
}
"""Claude's hook event names (as configured in settings.json) to normalised names."""

CONTEXT_EVENTS: frozenset[str] = frozenset(
    {"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "PostToolUseFailure"}
)
"""Host events whose ``additionalContext`` Claude puts in the model's context."""

_TOOL_EVENTS = frozenset({"PreToolUse", "PostToolUse", "PostToolUseFailure"})
_HOST_NAME: dict[EventName, str] = {
    "session_start": "SessionStart",
    "prompt": "UserPromptSubmit",
    "pre_tool": "PreToolUse",
    "post_tool": "PostToolUse",
    "stop": "Stop",
    "session_end": "SessionEnd",
    "pre_compact": "PreCompact",
}
_EXIT_CODE_KEYS = ("exitCode", "exit_code", "returnCode", "return_code")
_DEFAULT_DENY_REASON = "blocked by lorebook"


def _fail(name: str, problem: str) -> ValueError:
    return ValueError(f"claude {name} payload: {problem}")


def _required_str(name: str, payload: Mapping[str, Any], key: str, *, empty_ok: bool) -> str:
    """Return ``payload[key]`` as a string, or raise ValueError naming the event and field."""
    value = payload.get(key)
    if not isinstance(value, str):
        problem = "missing" if value is None else f"not a string ({type(value).__name__})"
        raise _fail(name, f"field {key!r} is {problem}")
    if not value and not empty_ok:
        raise _fail(name, f"field {key!r} is empty")
    return value


def _optional_str(payload: Mapping[str, Any], key: str) -> str | None:
    value = payload.get(key)
    return value if isinstance(value, str) and value else None


def _tool_input(name: str, payload: Mapping[str, Any]) -> Mapping[str, Any]:
    value = payload.get("tool_input")
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise _fail(name, f"field 'tool_input' is not an object ({type(value).__name__})")
    return value


def _failure_error(payload: Mapping[str, Any]) -> str:
    """The error text of a PostToolUseFailure payload (never empty: the tool did fail)."""
    error = payload.get("error")
    if isinstance(error, str) and error.strip():
        return error
    if payload.get("is_interrupt") is True:
        return "interrupted"
    return "tool failed"


def _response_error(response: Any) -> str | None:
    """The error a PostToolUse ``tool_response`` shows, or None when it shows none.

    Conservative on purpose: stderr alone is often warnings, so a failure needs a non-zero
    exit code, or an interruption together with stderr. Failures normally arrive as
    PostToolUseFailure instead.
    """
    if not isinstance(response, Mapping):
        return None
    stderr = response.get("stderr")
    stderr = stderr.strip() if isinstance(stderr, str) else ""
    for key in _EXIT_CODE_KEYS:
        code = response.get(key)
        if isinstance(code, int) and not isinstance(code, bool) and code != 0:
            return stderr or f"exit code {code}"
    if response.get("interrupted") is True and stderr:
        return stderr
    return None


def _tool_fields(
    name: str, payload: Mapping[str, Any]
) -> tuple[str | None, Mapping[str, Any], str | None]:
    """Tool name, tool input and error text of a tool event (Nones for other events)."""
    if name not in _TOOL_EVENTS:
        return None, {}, None
    tool_name = _required_str(name, payload, "tool_name", empty_ok=False)
    tool_input = _tool_input(name, payload)
    if name == "PostToolUseFailure":
        return tool_name, tool_input, _failure_error(payload)
    if name == "PostToolUse":
        return tool_name, tool_input, _response_error(payload.get("tool_response"))
    return tool_name, tool_input, None


def parse_event(name: str, payload: Mapping[str, Any]) -> HookEvent:
    """Translate one Claude Code hook payload into a normalised event.

    Args:
        name: Claude's event name as configured (``UserPromptSubmit``), passed by the
            launcher on its command line.
        payload: The JSON object Claude wrote to the hook's stdin.

    Returns:
        The normalised event; ``raw`` is the payload itself.

    Raises:
        ValueError: the event name is unknown, the payload is not a JSON object, or a
            field the event needs is missing (the message names the event and field).
    """
    normalised = EVENTS.get(name)
    if normalised is None:
        known = ", ".join(EVENTS)
        raise ValueError(f"claude: unknown hook event {name!r} (known: {known})")
    if not isinstance(payload, Mapping):
        raise _fail(name, f"not a JSON object ({type(payload).__name__})")
    session_id = _required_str(name, payload, "session_id", empty_ok=False)
    cwd = _required_str(name, payload, "cwd", empty_ok=False)
    prompt = None
    if name == "UserPromptSubmit":
        prompt = _required_str(name, payload, "prompt", empty_ok=True)
    tool_name, tool_input, error_text = _tool_fields(name, payload)
    return HookEvent(
        name=normalised,
        harness=HARNESS,
        session_id=session_id,
        cwd=cwd,
        transcript_ref=_optional_str(payload, "transcript_path"),
        prompt=prompt,
        tool_name=tool_name,
        tool_input=tool_input,
        error_text=error_text,
        source=_optional_str(payload, "source") if name == "SessionStart" else None,
        host_event=name,
        raw=payload,
    )


def _host_event(event: HookEvent) -> str:
    return event.host_event or _HOST_NAME[event.name]


def _encode(output: dict[str, Any]) -> bytes:
    text = json.dumps(output, ensure_ascii=False, separators=(",", ":"))
    return text.encode("utf-8", "replace") + b"\n"


def render(event: HookEvent, answer: HookAnswer) -> HostOutput:
    """Put lorebook's answer in Claude's hook output channel.

    Context becomes ``hookSpecificOutput.additionalContext`` on the events whose context
    reaches the model (``CONTEXT_EVENTS``); on Stop, SessionEnd and PreCompact it is
    dropped, as Claude has no channel for it there. A ``deny`` or ``ask`` decision on a
    ``pre_tool`` event becomes ``permissionDecision`` with its reason; ``allow`` is never
    written, because Claude would then skip its own permission prompt. The exit code is
    always 0, so a hook never breaks the session.

    Args:
        event: The event being answered (its ``host_event`` is echoed back).
        answer: What lorebook decided.

    Returns:
        Compact JSON plus a newline on stdout, or empty stdout when there is nothing to say.
    """
    host_event = _host_event(event)
    specific: dict[str, Any] = {"hookEventName": host_event}
    if event.name == "pre_tool" and answer.decision in ("deny", "ask"):
        specific["permissionDecision"] = answer.decision
        specific["permissionDecisionReason"] = answer.reason or _DEFAULT_DENY_REASON
    if answer.context and host_event in CONTEXT_EVENTS:
        specific["additionalContext"] = answer.context
    if len(specific) == 1:
        return HostOutput(b"", 0)
    return HostOutput(_encode({"hookSpecificOutput": specific}), 0)
