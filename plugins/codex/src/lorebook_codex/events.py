"""Codex CLI hook payloads to lorebook events, and lorebook answers back to Codex.

This is the fast-path module the hook launcher imports on every Codex hook event
(``HarnessSpec.event_module``). It imports only ``json``, ``collections.abc`` and
``lorebook.events``: no pluggy, pydantic or yaml, and not even ``typing`` at run time
(DESIGN.md section 6).

Channels (shared/HARNESSES.md sections 2.3 and 9, and the output schemas bundled in
Codex 0.171.0): Codex reads one JSON object on the hook's stdout.
``hookSpecificOutput.additionalContext`` reaches the model, as a ``developer`` message, for
SessionStart, UserPromptSubmit, PreToolUse and PostToolUse. ``permissionDecision: "deny"``
with a non-empty ``permissionDecisionReason`` on PreToolUse blocks the tool, and the model
gets ``Command blocked by PreToolUse hook: <reason>`` as the tool's result. Codex 0.171
rejects ``permissionDecision: "ask"`` at run time ("PreToolUse hook returned unsupported
permissionDecision:ask", although its schema lists the value), so an ``ask`` is rendered as
a ``deny`` whose reason tells the model that a person must confirm the command. Stop,
SessionEnd and PreCompact have no context channel.

Codex has no PostToolUseFailure event: a failed tool arrives as PostToolUse. Its
``tool_response`` for the shell tool is the command's output text only (no exit code:
recorded with a failing ``cat``), so a failure is reported only when the response shows one
for certain: a non-zero exit code field in an object, or Codex's own exec output block
(``Process exited with code N`` followed by ``Output:``) with ``N`` not 0.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from lorebook.events import HookAnswer, HookEvent, HostOutput

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: importing typing costs the hook path ms
if TYPE_CHECKING:
    from typing import Any

    from lorebook.events import EventName

HARNESS = "codex"

EVENTS: dict[str, EventName] = {
    "SessionStart": "session_start",
    "UserPromptSubmit": "prompt",
    "PreToolUse": "pre_tool",
    "PostToolUse": "post_tool",
    "Stop": "stop",
    "SessionEnd": "session_end",
    "PreCompact": "pre_compact",
}
"""Codex's hook event names (as configured in hooks.json) to normalised names."""

CONTEXT_EVENTS: frozenset[str] = frozenset(
    {"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse"}
)
"""Host events whose ``additionalContext`` Codex puts in the model's context."""

ASK_SUFFIX = (
    "A person must confirm this before it runs (Codex hooks cannot ask, so lorebook "
    "blocked it): ask the user to approve it or to run it themselves"
)
"""Appended to the reason of an ``ask`` that is rendered as a ``deny``.

No final period: Codex shows the model ``Command blocked by PreToolUse hook: <reason>.
Command: <command>``, adding its own.
"""

_TOOL_EVENTS = frozenset({"PreToolUse", "PostToolUse"})
_HOST_NAME: dict[EventName, str] = {name: host for host, name in EVENTS.items()}
_EXIT_CODE_KEYS = ("exit_code", "exitCode", "returnCode", "return_code")
_EXIT_LINE = "Process exited with code "
_OUTPUT_LINE = "\nOutput:\n"
_DEFAULT_DENY_REASON = "blocked by lorebook"


def _fail(name: str, problem: str) -> ValueError:
    return ValueError(f"codex {name} payload: {problem}")


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


def _exec_block_error(text: str) -> str | None:
    """The error shown by Codex's exec output block, or None when it shows none.

    The block has a line ``Process exited with code N`` and, after it, a line ``Output:``
    followed by the output; only a block with both lines counts, so a command that merely
    prints the phrase is not a failure.
    """
    at = text.find(_EXIT_LINE)
    body_at = text.find(_OUTPUT_LINE)
    if at < 0 or body_at < at or (at > 0 and text[at - 1] != "\n"):
        return None
    code = text[at + len(_EXIT_LINE) : text.find("\n", at)].strip()
    if not code.lstrip("-").isdigit() or int(code) == 0:
        return None
    output = text[body_at + len(_OUTPUT_LINE) :].strip()
    return output or f"exit code {code}"


def _response_error(response: Any) -> str | None:
    """The error a PostToolUse ``tool_response`` shows for certain, or None."""
    if isinstance(response, str):
        return _exec_block_error(response)
    if not isinstance(response, Mapping):
        return None
    for key in _EXIT_CODE_KEYS:
        code = response.get(key)
        if isinstance(code, int) and not isinstance(code, bool) and code != 0:
            for text_key in ("stderr", "output", "stdout"):
                text = response.get(text_key)
                if isinstance(text, str) and text.strip():
                    return text.strip()
            return f"exit code {code}"
    return None


def _tool_fields(
    name: str, payload: Mapping[str, Any]
) -> tuple[str | None, Mapping[str, Any], str | None]:
    """Tool name, tool input and error text of a tool event (Nones for other events)."""
    if name not in _TOOL_EVENTS:
        return None, {}, None
    tool_name = _required_str(name, payload, "tool_name", empty_ok=False)
    tool_input = _tool_input(name, payload)
    if name == "PostToolUse":
        return tool_name, tool_input, _response_error(payload.get("tool_response"))
    return tool_name, tool_input, None


def parse_event(name: str, payload: Mapping[str, Any]) -> HookEvent:
    """Translate one Codex CLI hook payload into a normalised event.

    Args:
        name: Codex's event name as configured (``UserPromptSubmit``), passed by the
            launcher on its command line.
        payload: The JSON object Codex wrote to the hook's stdin.

    Returns:
        The normalised event; ``raw`` is the payload itself. Codex names its shell tool
        ``Bash`` with ``tool_input.command`` here (the model itself sees ``exec_command``).

    Raises:
        ValueError: the event name is unknown, the payload is not a JSON object, or a
            field the event needs is missing (the message names the event and field).
    """
    normalised = EVENTS.get(name)
    if normalised is None:
        known = ", ".join(EVENTS)
        raise ValueError(f"codex: unknown hook event {name!r} (known: {known})")
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


def _deny_reason(answer: HookAnswer) -> str:
    """A non-empty reason (Codex refuses a deny without one); an ask says who must confirm.

    A final period is dropped, as Codex adds one after the reason.
    """
    reason = (answer.reason or "").strip().rstrip(".").rstrip()
    if answer.decision == "ask":
        return f"{reason}. {ASK_SUFFIX}" if reason else ASK_SUFFIX
    return reason or _DEFAULT_DENY_REASON


def render(event: HookEvent, answer: HookAnswer) -> HostOutput:
    """Put lorebook's answer in Codex's hook output channel.

    Context becomes ``hookSpecificOutput.additionalContext`` on the events whose context
    reaches the model (``CONTEXT_EVENTS``); on Stop, SessionEnd and PreCompact it is
    dropped (their output schemas have no such field). A ``deny`` on a ``pre_tool`` event
    becomes ``permissionDecision: "deny"`` with its reason; an ``ask`` becomes the same
    ``deny`` with :data:`ASK_SUFFIX` added to the reason, because Codex 0.171 does not
    support ``ask``. ``allow`` is never written. The exit code is always 0, so a hook never
    breaks the session.

    Args:
        event: The event being answered (its ``host_event`` is echoed back).
        answer: What lorebook decided.

    Returns:
        Compact JSON plus a newline on stdout, or empty stdout when there is nothing to say.
    """
    host_event = _host_event(event)
    specific: dict[str, Any] = {"hookEventName": host_event}
    if event.name == "pre_tool" and answer.decision in ("deny", "ask"):
        specific["permissionDecision"] = "deny"
        specific["permissionDecisionReason"] = _deny_reason(answer)
    if answer.context and host_event in CONTEXT_EVENTS:
        specific["additionalContext"] = answer.context
    if len(specific) == 1:
        return HostOutput(b"", 0)
    return HostOutput(_encode({"hookSpecificOutput": specific}), 0)
