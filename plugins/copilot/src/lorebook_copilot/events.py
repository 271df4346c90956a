"""GitHub Copilot CLI hook payloads to lorebook events, and lorebook answers back to Copilot.

This is the fast-path module the hook launcher imports on every Copilot hook event
(``HarnessSpec.event_module``). It imports only ``os`` and the host kit's payload reader
(:mod:`lorebook.hostkit.payload`): no pluggy, pydantic or yaml, and not ``typing`` at run
time (DESIGN.md section 6).

lorebook registers the camelCase events (shared/HARNESSES.md section 4): their payloads
are camelCase (``sessionId``, ``toolName``, ``toolArgs``, ``toolResult``) and their
answer is one JSON object on stdout. Verified with Copilot CLI 1.0.102 against a mock
model: ``{"additionalContext": ...}`` reaches the model from sessionStart (its own user
message after the system prompt), userPromptSubmitted (a ``<system_reminder>`` appended to
the prompt), preToolUse (a user message after the tool's result) and postToolUse
(appended to the tool's result); plain stdout and the PascalCase events' Claude-style
envelope are ignored. ``{"permissionDecision": "deny", "permissionDecisionReason": R}``
on preToolUse stops the tool and the model reads ``Denied by preToolUse hook: R``. An
``ask`` is rendered as that deny, its reason saying a person must confirm: a headless
Copilot run has nobody to ask.

Copilot fires sessionStart on every prompt in interactive mode, so the session-start
answer is given once per session id and content (:data:`ANSWER_ONCE`).
"""

from __future__ import annotations

import os

from lorebook.hostkit.payload import Fields, flat_answer, parse_with

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: importing typing costs the hook path ms
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

    from lorebook.events import EventName, HookAnswer, HookEvent, HostOutput
    from lorebook.hostkit.payload import Payload

HARNESS = "copilot"

EVENTS: dict[str, EventName] = {
    "sessionStart": "session_start",
    "userPromptSubmitted": "prompt",
    "preToolUse": "pre_tool",
    "postToolUse": "post_tool",
    "agentStop": "stop",
    "sessionEnd": "session_end",
    "preCompact": "pre_compact",
}
"""Copilot's camelCase hook events (as configured in the hooks file) to normalised names."""

CONTEXT_EVENTS: frozenset[str] = frozenset(
    {"sessionStart", "userPromptSubmitted", "preToolUse", "postToolUse"}
)
"""Host events whose ``additionalContext`` Copilot 1.0.102 puts in the model's context."""

ANSWER_ONCE: frozenset[str] = frozenset({"session_start"})
"""Normalised events whose answer the hook gives once per session id and content.

Read by :func:`lorebook.hook.run`: Copilot re-fires sessionStart on every prompt of an
interactive session, with the same session id.
"""

ANSWER_AGAIN_ON_RESUME = True
"""Read by :func:`lorebook.hook.run`: ``copilot --continue`` (source ``resume``) replays the
history without the first session start's context, so the catalog is given again."""

ASK_SUFFIX = (
    "A person must confirm this before it runs (lorebook cannot ask through a Copilot "
    "hook, so it blocked the command): ask the user to approve it or to run it themselves."
)
"""Appended to the reason of an ``ask`` rendered as a deny."""

_HOST_NAME: dict[EventName, str] = {name: host for host, name in EVENTS.items()}
_FIELDS = Fields(
    session="sessionId",
    cwd="cwd",
    tool="toolName",
    tool_input="toolArgs",
    transcript="transcriptPath",
)


def copilot_home() -> str:
    """``$COPILOT_HOME``, else ``~/.copilot`` (Copilot passes the variable to its hooks)."""
    return os.environ.get("COPILOT_HOME") or os.path.join(os.path.expanduser("~"), ".copilot")


def events_path(session_id: str) -> str:
    """Where Copilot keeps a session's event log: ``<home>/session-state/<id>/events.jsonl``."""
    return os.path.join(copilot_home(), "session-state", session_id, "events.jsonl")


def _tool_error(_name: str, payload: Payload) -> str | None:
    """The error a postToolUse ``toolResult`` shows (``resultType`` other than success)."""
    result = payload.mapping("toolResult")
    kind = result.get("resultType")
    if not isinstance(kind, str) or kind == "success":
        return None
    text = result.get("textResultForLlm")
    return text.strip() if isinstance(text, str) and text.strip() else f"tool {kind}"


def parse_event(name: str, payload: Mapping[str, Any]) -> HookEvent:
    """Translate one camelCase Copilot hook payload into a normalised event.

    ``transcript_ref`` is the payload's ``transcriptPath`` (agentStop, preCompact), else
    the session's ``events.jsonl`` under ``COPILOT_HOME``.

    Raises:
        ValueError: the event name is unknown, the payload is not a JSON object, or a
            field the event needs is missing (the message names the event and field).
    """
    return parse_with(HARNESS, EVENTS, name, payload, _FIELDS, _tool_error, events_path)


def render(event: HookEvent, answer: HookAnswer) -> HostOutput:
    """Put lorebook's answer in Copilot's channel: one JSON object on stdout, exit 0.

    Context becomes ``additionalContext`` on :data:`CONTEXT_EVENTS` (dropped on agentStop,
    sessionEnd and preCompact). A ``deny`` or ``ask`` on preToolUse becomes
    ``permissionDecision: "deny"`` with its reason (an ask's says who must confirm);
    ``allow`` is never written. Nothing to say prints nothing.
    """
    return flat_answer(
        event,
        answer,
        "additionalContext",
        CONTEXT_EVENTS,
        _HOST_NAME,
        ("permissionDecision", "permissionDecisionReason"),
        ASK_SUFFIX,
    )


LOADED_ROOT_FILES = (".github/copilot-instructions.md",)
LOADED_FOLDER_FILES = ("AGENTS.md", "CLAUDE.md", "GEMINI.md")
"""What Copilot reads in each folder from the root down to its cwd."""
IMPORTING = ("AGENTS.md", "CLAUDE.md")
"""The files whose ``@path`` imports Copilot was seen to follow."""
MAX_IMPORT_DEPTH = 5


def loaded_files(repo: str, cwd: str | None) -> frozenset[str]:
    """The repository files Copilot CLI loads whole by itself at session start.

    Core serves no note derived from one of them to Copilot (:mod:`lorebook.inject.loaded`).
    Seen with Copilot CLI 1.0.102 against a mock model (tests/e2e/test_loaded_files.py):
    the root ``.github/copilot-instructions.md``; ``AGENTS.md``, ``CLAUDE.md`` and
    ``GEMINI.md`` in every folder from the root down to where it runs; every file an
    ``AGENTS.md`` or ``CLAUDE.md`` imports with ``@path`` (Claude Code's syntax, followed
    anywhere in the repository, a full stop right after the path aside); all whole, in
    the system prompt. Not loaded: ``.claude/CLAUDE.md`` and ``CLAUDE.local.md``.
    """
    from lorebook.hostkit.loaded import existing, folders, follow_imports, join

    here = folders(repo, cwd)
    files = existing(
        repo, [*LOADED_ROOT_FILES, *(join(f, n) for f in here for n in LOADED_FOLDER_FILES)]
    )
    importing = [rel for rel in files if rel.rpartition("/")[2] in IMPORTING]
    imported = follow_imports(repo, importing, "", MAX_IMPORT_DEPTH, strip_punctuation=True)
    return frozenset([*files, *imported])
