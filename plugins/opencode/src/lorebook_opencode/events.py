"""OpenCode plugin events to lorebook events, and lorebook answers back to the plugin.

OpenCode has no command hooks: lorebook installs a small JS plugin
(:mod:`lorebook_opencode.plugin_js`) that runs the launcher, ``.lorebook/bin/hook opencode
<hook>``, for each OpenCode hook it listens to, with a JSON payload it builds on stdin,
and applies the answer. This is the fast-path module the launcher imports
(``HarnessSpec.event_module``); it imports only ``os`` and the host kit's payload reader.

The payloads (built by the JS plugin from what OpenCode 1.18.33 hands its hooks,
shared/HARNESSES.md section 3.2) all carry ``sessionID`` and ``directory``:

* ``session.created``: session start (also sent before the first ``chat.message`` a
  plugin instance sees in a session, as ``opencode run -c`` creates no session).
* ``chat.message``: ``prompt`` (the text parts of the user's message, synthetic parts
  left out). ``opencode run "say hi"`` stores the prompt with literal double quotes; one
  enclosing pair is stripped.
* ``tool.execute.before``: ``tool``, ``callID``, ``args``.
* ``tool.execute.after``: the same plus ``output`` (what the model will read) and
  ``exit`` (the shell's exit code, when the tool reports one).
* ``session.idle`` (stop) and ``experimental.session.compacting`` (pre-compact).

The answer is one JSON object on stdout, the plugin shim's protocol: ``context`` (the
plugin puts session context in the system prompt through
``experimental.chat.system.transform``, prompt context in a synthetic text part of the
user's message, tool context after the tool's output) and, before a tool, ``decision``
(``deny``: the plugin throws, so the tool does not run and the model reads the reason)
with its ``reason``. OpenCode cannot ask a person from a plugin, so an ``ask`` is a deny
whose reason says who must confirm.

``transcript_ref`` is ``<OpenCode's database>#<sessionID>``: the session's messages are
read from OpenCode's own SQLite store (``OPENCODE_DB``, else
``$XDG_DATA_HOME/opencode/opencode.db``), by :mod:`lorebook_opencode.transcript`.
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

HARNESS = "opencode"

EVENTS: dict[str, EventName] = {
    "session.created": "session_start",
    "chat.message": "prompt",
    "tool.execute.before": "pre_tool",
    "tool.execute.after": "post_tool",
    "session.idle": "stop",
    "experimental.session.compacting": "pre_compact",
}
"""The OpenCode hooks (and bus events) the JS plugin hands on, to normalised names."""

CONTEXT_EVENTS: frozenset[str] = frozenset(
    {"session.created", "chat.message", "tool.execute.before", "tool.execute.after"}
)
"""Hooks whose answer's context the JS plugin puts in front of the model."""

ASK_SUFFIX = (
    "A person must confirm this before it runs (an OpenCode plugin cannot ask, so lorebook "
    "blocked it): ask the user to approve it or to run it themselves."
)
"""Appended to the reason of an ``ask`` rendered as a deny."""

_FIELDS = Fields(
    session="sessionID", cwd="directory", tool="tool", tool_input="args", transcript=""
)
_HOST_NAME: dict[EventName, str] = {name: host for host, name in EVENTS.items()}


def database() -> str:
    """OpenCode's SQLite store: ``OPENCODE_DB``, else ``<XDG data>/opencode/opencode.db``."""
    configured = os.environ.get("OPENCODE_DB")
    if configured:
        return configured
    data = os.environ.get("XDG_DATA_HOME") or os.path.join(
        os.path.expanduser("~"), ".local", "share"
    )
    return os.path.join(data, "opencode", "opencode.db")


def unquote(text: str) -> str:
    """The prompt without the one pair of double quotes ``opencode run`` wraps it in."""
    if len(text) >= 2 and text[0] == text[-1] == '"' and '"' not in text[1:-1]:
        return text[1:-1]
    return text


def _error(_name: str, payload: Payload) -> str | None:
    exit_code = payload.data.get("exit")
    if isinstance(exit_code, int) and not isinstance(exit_code, bool) and exit_code != 0:
        output = payload.optional("output")
        return output.strip() if output and output.strip() else f"exit code {exit_code}"
    return None


def parse_event(name: str, payload: Mapping[str, Any]) -> HookEvent:
    """Translate one payload of the JS plugin into a normalised event.

    Raises:
        ValueError: the hook name is unknown, the payload is not a JSON object, or a
            field the event needs is missing (the message names the event and field).
    """
    return parse_with(HARNESS, EVENTS, name, payload, _FIELDS, _error, _transcript, unquote)


def _transcript(session_id: str) -> str:
    return f"{database()}#{session_id}"


def render(event: HookEvent, answer: HookAnswer) -> HostOutput:
    """Put lorebook's answer in the JS plugin's protocol: one JSON object on stdout, exit 0.

    ``context`` on :data:`CONTEXT_EVENTS` (dropped at stop and pre-compact, where the
    plugin has no use for it); before a tool, ``decision: "deny"`` with its ``reason`` for
    a deny or an ask. Nothing to say prints nothing.
    """
    return flat_answer(
        event, answer, "context", CONTEXT_EVENTS, _HOST_NAME, ("decision", "reason"), ASK_SUFFIX
    )


def loaded_files(repo: str, cwd: str | None) -> frozenset[str]:
    """The repository files OpenCode loads whole by itself (:mod:`lorebook_opencode.loaded`).

    Core serves no note derived from one of them to this host (:mod:`lorebook.inject.loaded`).
    """
    from lorebook_opencode.loaded import loaded_files as host_files

    return host_files(repo, cwd)
