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


CONFIG_FILES = ("opencode.json", "opencode.jsonc")
_CLAUDE_OFF = ("OPENCODE_DISABLE_CLAUDE_CODE", "OPENCODE_DISABLE_CLAUDE_CODE_PROMPT")
MAX_INSTRUCTION_FILES = 200
"""At most this many files are taken from the instructions' globs."""


def _claude_off() -> bool:
    return any(os.environ.get(name, "").lower() in ("1", "true") for name in _CLAUDE_OFF)


def instructions(repo: str) -> list[str]:
    """The repository files the project's ``opencode.json`` ``instructions`` name."""
    import glob
    import json

    from lorebook.hostkit.loaded import is_file, read_text

    found: list[str] = []
    for name in CONFIG_FILES:
        text = read_text(repo, name)
        try:
            data = json.loads(text) if text else None
        except ValueError:
            continue  # a .jsonc with comments: not read here (the notes are served)
        entries = data.get("instructions") if isinstance(data, dict) else None
        for entry in entries if isinstance(entries, list) else ():
            if not isinstance(entry, str) or "://" in entry or entry.startswith(("~", "/")):
                continue
            if any(c in entry for c in "*?["):
                matches = glob.glob(entry, root_dir=repo, recursive=True)
                found += sorted(m.replace(os.sep, "/") for m in matches)[:MAX_INSTRUCTION_FILES]
            else:
                found.append(os.path.normpath(entry).replace(os.sep, "/"))
    return [rel for rel in dict.fromkeys(found) if not rel.startswith("..") and is_file(repo, rel)]


def loaded_files(repo: str, cwd: str | None) -> frozenset[str]:
    """The repository files OpenCode loads whole by itself at session start.

    Core serves no note derived from one of them to OpenCode (:mod:`lorebook.inject.loaded`).
    OpenCode looks for ``AGENTS.md`` from where it runs up to the project root and reads
    every one it finds; only when there is none, ``CLAUDE.md`` the same way (unless
    ``OPENCODE_DISABLE_CLAUDE_CODE`` or ``OPENCODE_DISABLE_CLAUDE_CODE_PROMPT`` is set).
    Every file ``"instructions"`` in the project's ``opencode.json`` names (a path or a
    glob) goes in too; all whole, into the system prompt (shared/HARNESSES.md 3.7). It does
    not follow ``@path`` imports. Checked against the real client by
    tests/e2e/test_loaded_files.py.
    """
    from lorebook.hostkit.loaded import existing, folders, join

    up = list(reversed(folders(repo, cwd)))
    rules: list[str] = []
    for name in ("AGENTS.md", "CLAUDE.md"):
        if name == "CLAUDE.md" and _claude_off():
            continue
        rules = existing(repo, [join(folder, name) for folder in up])
        if rules:
            break
    return frozenset([*rules, *instructions(repo)])
