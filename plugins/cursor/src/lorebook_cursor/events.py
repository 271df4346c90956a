"""Cursor hook payloads to lorebook events, and lorebook answers back to Cursor.

The fast-path module the launcher imports on every Cursor hook event
(``HarnessSpec.event_module``); it imports only ``os`` and the host kit's payload reader.
Built from Cursor's documentation (shared/HARNESSES.md section 5: no Cursor client installs
here, so nothing of this was run). Every payload carries ``conversation_id``,
``hook_event_name`` and ``workspace_roots``; ``sessionStart`` and ``sessionEnd`` add
``session_id``, ``beforeShellExecution`` ``command`` and ``cwd``, ``preToolUse``
``tool_name`` and ``tool_input``, ``stop`` and ``sessionEnd`` a ``transcript_path`` in the
versions that have one.

Answers (one JSON object on stdout): sessionStart's ``additional_context`` (given at once
from the catalog file, :func:`answer_at_once`: Cursor's IDE drops context that arrives
late); ``permission`` ``deny`` or ``ask`` with ``agent_message`` (what the agent reads) and
``user_message`` before a shell command or a tool. ``beforeSubmitPrompt`` cannot inject
context, so lorebook does not hook it; the always-applied rules file
``.cursor/rules/lorebook.mdc`` tells the agent the knowledge base exists.
"""

from __future__ import annotations

from lorebook.events import HookAnswer, HookEvent, HostOutput
from lorebook.hostkit.payload import Payload, encode_json, known_event

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: importing typing costs the hook path ms
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

    from lorebook.events import EventName

HARNESS = "cursor"

EVENTS: dict[str, EventName] = {
    "sessionStart": "session_start",
    "beforeShellExecution": "pre_tool",
    "preToolUse": "pre_tool",
    "stop": "stop",
    "sessionEnd": "session_end",
}
"""Cursor's hook events lorebook installs, to normalised names."""

SHELL_TOOL = "Shell"
"""The tool name a ``beforeShellExecution`` event carries (its input is ``{"command"}``)."""


def _cwd(payload: Payload) -> str:
    roots = payload.data.get("workspace_roots")
    if isinstance(roots, list) and roots and isinstance(roots[0], str) and roots[0]:
        return roots[0]
    return payload.required("cwd")


def parse_event(name: str, payload: Mapping[str, Any]) -> HookEvent:
    """Translate one Cursor hook payload into a normalised event.

    The session id is ``session_id`` where the event has one, else ``conversation_id``;
    the working directory is the first of ``workspace_roots`` (else ``cwd``).

    Raises:
        ValueError: the event name is unknown, the payload is not a JSON object, or a
            field the event needs is missing (the message names the event and field).
    """
    normalised = known_event(HARNESS, EVENTS, name)
    data = Payload(HARNESS, name, payload)
    session_id = data.optional("session_id") or data.required("conversation_id")
    tool_name: str | None = None
    tool_input: Mapping[str, Any] = {}
    if name == "beforeShellExecution":
        tool_name, tool_input = SHELL_TOOL, {"command": data.required("command")}
    elif name == "preToolUse":
        tool_name, tool_input = data.required("tool_name"), data.mapping("tool_input")
    return HookEvent(
        name=normalised,
        harness=HARNESS,
        session_id=session_id,
        cwd=_cwd(data),
        transcript_ref=data.optional("transcript_path"),
        tool_name=tool_name,
        tool_input=tool_input,
        host_event=name,
        raw=data.data,
    )


def answer_at_once(event: HookEvent, kb_root: str) -> HookAnswer | None:
    """The session-start answer, read from ``ENTRY.md`` with no index work; None otherwise.

    Read by :func:`lorebook.hook.run` before it answers an event: ``ENTRY.md`` is the
    catalog every lorebook writer keeps current (and a ``git pull`` brings), so it is the
    precomputed answer Cursor needs at once. A pull request can commit anything there, so it
    is read only as a regular file (not a link) of at most 64 KiB, and sanitised
    (:mod:`lorebook.inject.entry`, as every host's session start reads it).

    Raises:
        OSError, ValueError: ``ENTRY.md`` is a link, not a regular file, too large or not
            UTF-8 (the hook logs it and injects nothing); a missing one injects nothing.
    """
    if event.name != "session_start":
        return None
    from lorebook.inject.entry import entry_context, read_entry

    entry = read_entry(kb_root)
    if entry is None:
        return HookAnswer()
    text = entry_context(entry)
    return HookAnswer(context=text or None)


def render(event: HookEvent, answer: HookAnswer) -> HostOutput:
    """Put lorebook's answer in Cursor's channel: one JSON object on stdout, exit 0.

    sessionStart: ``additional_context``. Before a shell command or a tool: ``permission``
    (``deny`` or ``ask``) with the reason as ``agent_message`` and ``user_message``
    (``allow`` is never written). Nothing else has a context channel in Cursor.
    """
    output: dict[str, Any] = {}
    if event.name == "session_start" and answer.context:
        output["additional_context"] = answer.context
    if event.name == "pre_tool" and answer.decision in ("deny", "ask"):
        reason = answer.reason or "blocked by lorebook"
        output.update(permission=answer.decision, agent_message=reason, user_message=reason)
    return HostOutput(encode_json(output) if output else b"", 0)


RULES_DIR = ".cursor/rules"
ALWAYS_FILES = ("AGENTS.md", ".cursorrules")
MAX_RULE_FILES = 1000
"""At most this many rule files are read for their front matter."""


def always_applied(repo: str) -> list[str]:
    """The rule files under ``.cursor/rules`` whose front matter says ``alwaysApply: true``."""
    import os

    from lorebook.hostkit.loaded import existing, front_matter, read_text

    found: list[str] = []
    seen = 0
    for folder, dirs, files in os.walk(os.path.join(repo, *RULES_DIR.split("/"))):
        dirs.sort()
        for name in sorted(files):
            if not name.endswith(".mdc") or seen >= MAX_RULE_FILES:
                continue
            seen += 1
            rel = os.path.relpath(os.path.join(folder, name), repo).replace(os.sep, "/")
            text = read_text(repo, rel)
            flags = dict(front_matter(text)) if text else {}
            if flags.get("alwaysApply", "").lower() == "true":
                found.append(rel)
    return existing(repo, found)


def loaded_files(repo: str, cwd: str | None) -> frozenset[str]:
    """The repository files Cursor puts in every chat whole, by itself.

    Core serves no note derived from one of them to Cursor (:mod:`lorebook.inject.loaded`).
    Cursor applies a project rule (``.cursor/rules/**/*.mdc``) in every chat when its
    front matter says ``alwaysApply: true``; the root ``AGENTS.md`` and the legacy
    ``.cursorrules`` too (Cursor's documentation; no Cursor client runs here). A rule
    applied by its ``globs`` or chosen by the agent from its ``description`` is not always
    there, so notes derived from it are still served.
    """
    from lorebook.hostkit.loaded import existing

    return frozenset([*existing(repo, ALWAYS_FILES), *always_applied(repo)])
