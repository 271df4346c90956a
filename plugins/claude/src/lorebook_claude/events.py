"""Claude Code hook payloads to lorebook events, and lorebook answers back to Claude.

This is the fast-path module the hook launcher imports on every Claude Code hook event
(``HarnessSpec.event_module``). It imports only ``collections.abc`` and the host kit's
Claude-shape translator (:mod:`lorebook.hostkit.hookspecific`): no pluggy, pydantic or
yaml, and not even ``typing`` at run time (DESIGN.md section 6).

Channels (shared/HARNESSES.md sections 1.3 and 9): Claude reads one JSON object on the
hook's stdout. ``hookSpecificOutput.additionalContext`` reaches the model for
SessionStart, UserPromptSubmit, PreToolUse and PostToolUse (and, per Claude's docs,
PostToolUseFailure); ``permissionDecision`` ``deny`` / ``ask`` on PreToolUse stops the
tool or asks the user. Stop, SessionEnd and PreCompact have no context channel.
"""

from __future__ import annotations

from collections.abc import Mapping

from lorebook.hostkit import hookspecific
from lorebook.hostkit.hookspecific import host_names

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: importing typing costs the hook path ms
if TYPE_CHECKING:
    from typing import Any

    from lorebook.events import EventName, HookAnswer, HookEvent, HostOutput
    from lorebook.hostkit.payload import Payload

HARNESS = "claude"

EVENTS: dict[str, EventName] = {**hookspecific.EVENTS, "PostToolUseFailure": "post_tool"}
"""Claude's hook event names (as configured in settings.json) to normalised names."""

CONTEXT_EVENTS: frozenset[str] = frozenset(
    {"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "PostToolUseFailure"}
)
"""Host events whose ``additionalContext`` Claude puts in the model's context."""

_HOST_NAME = host_names(EVENTS)
_EXIT_CODE_KEYS = ("exitCode", "exit_code", "returnCode", "return_code")
_DEFAULT_DENY_REASON = "blocked by lorebook"


def _failure_error(payload: Payload) -> str:
    """The error text of a PostToolUseFailure payload (never empty: the tool did fail)."""
    error = payload.data.get("error")
    if isinstance(error, str) and error.strip():
        return error
    if payload.data.get("is_interrupt") is True:
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


def _error_of(name: str, payload: Payload) -> str | None:
    if name == "PostToolUseFailure":
        return _failure_error(payload)
    return _response_error(payload.data.get("tool_response"))


def parse_event(name: str, payload: Mapping[str, Any]) -> HookEvent:
    """Translate one Claude Code hook payload into a normalised event.

    ``name`` is Claude's event name as configured, passed by the launcher; the fields read
    and the errors raised are :func:`lorebook.hostkit.hookspecific.parse_event`'s. A
    PostToolUseFailure's error text is its ``error`` field.
    """
    return hookspecific.parse_event(HARNESS, EVENTS, name, payload, _error_of)


def _decision(answer: HookAnswer) -> tuple[str, str] | None:
    if answer.decision in ("deny", "ask"):
        return answer.decision, answer.reason or _DEFAULT_DENY_REASON
    return None


def render(event: HookEvent, answer: HookAnswer) -> HostOutput:
    """Put lorebook's answer in Claude's hook output channel (``hookSpecificOutput``).

    Context goes to ``additionalContext`` on ``CONTEXT_EVENTS`` and is dropped on Stop,
    SessionEnd and PreCompact (Claude has no channel there). A ``deny`` or ``ask`` on a
    ``pre_tool`` event becomes ``permissionDecision`` with its reason; ``allow`` is never
    written, because Claude would then skip its own permission prompt. Exit code 0.
    """
    return hookspecific.render(event, answer, CONTEXT_EVENTS, _decision, _HOST_NAME)


LOADED_NAMES = ("CLAUDE.md", ".claude/CLAUDE.md", "CLAUDE.local.md")
"""What Claude Code reads in each folder from the project root down to its cwd."""
MAX_IMPORT_DEPTH = 5
"""Imports are followed this many hops from a ``CLAUDE.md`` (Claude Code's documented cap)."""


def loaded_files(repo: str, cwd: str | None) -> frozenset[str]:
    """The repository files Claude Code loads whole by itself at session start.

    Core serves no note derived from one of them to Claude (:mod:`lorebook.inject.loaded`).
    Claude Code 2.x reads ``CLAUDE.md``, ``.claude/CLAUDE.md`` and ``CLAUDE.local.md`` in
    the project root and in every folder from there down to where it runs, and every file
    those import with ``@path`` (relative to the importing file, or absolute; not inside
    code; up to :data:`MAX_IMPORT_DEPTH` hops), into the first user message whole
    (shared/HARNESSES.md 1.7). An import of a file outside the folder Claude runs in is an
    "external include" that waits for the user's approval, and a headless run does not
    load it (seen with 2.1.197: run in ``sub/``, the root ``CLAUDE.md`` was sent but not
    what it imports from ``docs/``, while ``sub/local.md`` was); a full stop right after
    the path is read as part of it. Checked against the real client by
    tests/e2e/test_loaded_files.py.
    """
    from lorebook.hostkit.loaded import existing, folders, follow_imports, join

    up = folders(repo, cwd)
    roots = existing(repo, [join(f, name) for f in up for name in LOADED_NAMES])
    return frozenset(follow_imports(repo, roots, up[-1], MAX_IMPORT_DEPTH))
