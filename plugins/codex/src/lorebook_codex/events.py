"""Codex CLI hook payloads to lorebook events, and lorebook answers back to Codex.

This is the fast-path module the hook launcher imports on every Codex hook event
(``HarnessSpec.event_module``). It imports only ``collections.abc`` and the host kit's
Claude-shape translator (:mod:`lorebook.hostkit.hookspecific`): no pluggy, pydantic or
yaml, and not even ``typing`` at run time (DESIGN.md section 6).

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

from collections.abc import Mapping

from lorebook.hostkit import hookspecific
from lorebook.hostkit.hookspecific import host_names

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: importing typing costs the hook path ms
if TYPE_CHECKING:
    from typing import Any

    from lorebook.events import EventName, HookAnswer, HookEvent, HostOutput
    from lorebook.hostkit.payload import Payload

HARNESS = "codex"

EVENTS: dict[str, EventName] = dict(hookspecific.EVENTS)
"""Codex's hook event names (as configured in hooks.json) to normalised names."""

CONTEXT_EVENTS: frozenset[str] = frozenset(
    {"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse"}
)
"""Host events whose ``additionalContext`` Codex puts in the model's context."""

ANSWER_ONCE: frozenset[str] = frozenset({"session_start"})
"""Read by :func:`lorebook.hook.run`: ``codex exec resume`` re-runs SessionStart and keeps the
first run's context in the history it sends, so the same catalog is not given twice (a
changed one is)."""

ASK_SUFFIX = (
    "A person must confirm this before it runs (Codex hooks cannot ask, so lorebook "
    "blocked it): ask the user to approve it or to run it themselves"
)
"""Appended to the reason of an ``ask`` that is rendered as a ``deny``.

No final period: Codex shows the model ``Command blocked by PreToolUse hook: <reason>.
Command: <command>``, adding its own.
"""

_HOST_NAME = host_names(EVENTS)
_EXIT_CODE_KEYS = ("exit_code", "exitCode", "returnCode", "return_code")
_EXIT_LINE = "Process exited with code "
_OUTPUT_LINE = "\nOutput:\n"
_DEFAULT_DENY_REASON = "blocked by lorebook"


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


def _error_of(name: str, payload: Payload) -> str | None:
    return _response_error(payload.data.get("tool_response"))


def parse_event(name: str, payload: Mapping[str, Any]) -> HookEvent:
    """Translate one Codex CLI hook payload into a normalised event.

    ``name`` is Codex's event name as configured, passed by the launcher; the fields read
    and the errors raised are :func:`lorebook.hostkit.hookspecific.parse_event`'s. Codex
    names its shell tool ``Bash`` with ``tool_input.command`` here (the model itself sees
    ``exec_command``).
    """
    return hookspecific.parse_event(HARNESS, EVENTS, name, payload, _error_of)


def _deny_reason(answer: HookAnswer) -> str:
    """A non-empty reason (Codex refuses a deny without one); an ask says who must confirm.

    A final period is dropped, as Codex adds one after the reason.
    """
    reason = (answer.reason or "").strip().rstrip(".").rstrip()
    if answer.decision == "ask":
        return f"{reason}. {ASK_SUFFIX}" if reason else ASK_SUFFIX
    return reason or _DEFAULT_DENY_REASON


def _decision(answer: HookAnswer) -> tuple[str, str] | None:
    if answer.decision in ("deny", "ask"):
        return "deny", _deny_reason(answer)
    return None


def render(event: HookEvent, answer: HookAnswer) -> HostOutput:
    """Put lorebook's answer in Codex's hook output channel (``hookSpecificOutput``).

    Context goes to ``additionalContext`` on ``CONTEXT_EVENTS`` and is dropped on Stop,
    SessionEnd and PreCompact (their output schemas have no such field). A ``deny`` on a
    ``pre_tool`` event becomes ``permissionDecision: "deny"`` with its reason; an ``ask``
    the same ``deny`` with :data:`ASK_SUFFIX` added, as Codex 0.171 does not support
    ``ask``. ``allow`` is never written. Exit code 0.
    """
    return hookspecific.render(event, answer, CONTEXT_EVENTS, _decision, _HOST_NAME)


LOADED_NAMES = ("AGENTS.override.md", "AGENTS.md")
"""What Codex reads in a folder: the first of these that exists."""
PROJECT_DOC_MAX_BYTES = 32 * 1024
"""Codex's default ``project_doc_max_bytes``: what it reads of the files together."""


def loaded_files(repo: str, cwd: str | None) -> frozenset[str]:
    """The repository files Codex loads whole by itself at session start.

    Core serves no note derived from one of them to Codex (:mod:`lorebook.inject.loaded`).
    In each folder from the project root down to its cwd Codex reads
    ``AGENTS.override.md``, or else ``AGENTS.md``, and sends them in that order as one user
    message, up to :data:`PROJECT_DOC_MAX_BYTES` in all (shared/HARNESSES.md 2.7): a file
    the cap cuts is not loaded in full, nor is any after it. Never ``CLAUDE.md``. Checked
    against the real client by tests/e2e/test_loaded_files.py.
    """
    from lorebook.hostkit.loaded import folders, join, regular, within_bytes

    chosen = []
    for folder in folders(repo, cwd):
        for name in LOADED_NAMES:
            rel = regular(repo, join(folder, name))
            if rel is not None:
                chosen.append(rel)
                break
    return frozenset(within_bytes(repo, list(dict.fromkeys(chosen)), PROJECT_DOC_MAX_BYTES))
