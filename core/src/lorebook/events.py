"""Light, frozen types for the hook fast path: the normalised event, turns, answers.

These are plain dataclasses on purpose. The hook process runs once per host event and
pydantic alone costs tens of milliseconds to import (DESIGN.md section 6), so nothing here
imports pydantic, pluggy or yaml.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Literal

EventName = Literal[
    "session_start", "prompt", "pre_tool", "post_tool", "stop", "session_end", "pre_compact"
]
"""The normalised lifecycle points every harness maps its own events to."""

EVENT_NAMES: tuple[EventName, ...] = (
    "session_start",
    "prompt",
    "pre_tool",
    "post_tool",
    "stop",
    "session_end",
    "pre_compact",
)

CAPTURE_EVENTS: frozenset[EventName] = frozenset({"stop", "session_end", "pre_compact"})
"""Events that stage the session for extraction (the slow path, larger budget)."""

Role = Literal["user", "assistant", "tool", "summary"]
Decision = Literal["allow", "ask", "deny"]

_EMPTY: Mapping[str, Any] = MappingProxyType({})


def _empty() -> Mapping[str, Any]:
    return _EMPTY


@dataclass(frozen=True, slots=True)
class HookEvent:
    """One host event, normalised.

    Attributes:
        name: The lifecycle point.
        harness: The harness plugin that parsed it (``claude``, ``codex``, ...).
        session_id: The host's session id.
        cwd: The working directory the host reported.
        transcript_ref: Where the host keeps the transcript (a path, or an id), if known.
        prompt: The user's prompt text (``prompt`` events).
        tool_name: The tool about to run or that ran (tool events).
        tool_input: The tool's arguments (tool events).
        error_text: The failed tool's error text (``post_tool`` on failure).
        source: Why the session started (``startup``, ``resume``, ``compact``, ``clear``).
        host_event: The host's own name for the event (``UserPromptSubmit``), which some
            hosts need echoed back in the answer.
        raw: The payload as the host sent it.
    """

    name: EventName
    harness: str
    session_id: str
    cwd: str
    transcript_ref: str | None = None
    prompt: str | None = None
    tool_name: str | None = None
    tool_input: Mapping[str, Any] = field(default_factory=_empty)
    error_text: str | None = None
    source: str | None = None
    host_event: str = ""
    raw: Mapping[str, Any] = field(default_factory=_empty)


@dataclass(frozen=True, slots=True)
class ToolCall:
    """A tool call the assistant made, as a transcript records it."""

    name: str
    input: Mapping[str, Any] = field(default_factory=_empty)
    result_excerpt: str | None = None
    is_error: bool = False


@dataclass(frozen=True, slots=True)
class Turn:
    """One normalised transcript turn.

    Attributes:
        index: Position in the transcript (stable across re-reads).
        role: ``user`` (a human), ``assistant``, ``tool`` or ``summary`` (compaction).
        text: The turn's text.
        tool_calls: Tool calls made in this turn, with short result excerpts.
        timestamp: ISO 8601 time, when the transcript records one.
        injected: True for text a hook injected (never captured as if a human wrote it).
    """

    index: int
    role: Role
    text: str
    tool_calls: tuple[ToolCall, ...] = ()
    timestamp: str | None = None
    injected: bool = False


@dataclass(frozen=True, slots=True)
class HookAnswer:
    """What lorebook answers to an event, before a harness renders it for its host.

    Attributes:
        context: Text to put in the model's context, or None for nothing.
        decision: ``ask`` or ``deny`` for a tool about to run; None lets it run.
        reason: Why, shown to the model (deny) or the user (ask).
    """

    context: str | None = None
    decision: Decision | None = None
    reason: str | None = None


@dataclass(frozen=True, slots=True)
class HostOutput:
    """What the hook process writes back to its host."""

    stdout: bytes = b""
    exit_code: int = 0


@dataclass(frozen=True, slots=True)
class RecallQuery:
    """A request for notes relevant to something at hand.

    Attributes:
        text: Free text (a prompt, an error) to rank notes against.
        files: Paths the event touches, matched against file anchors.
        tool: The tool name, matched against tool anchors.
        command: The shell command, matched against command anchors.
        limit: At most this many hits.
    """

    text: str = ""
    files: tuple[str, ...] = ()
    tool: str | None = None
    command: str | None = None
    limit: int = 5


@dataclass(frozen=True, slots=True)
class Hit:
    """One recalled note with its score and where it came from."""

    note_id: str
    score: float
    store: str
    title: str = ""
    reason: str = ""
