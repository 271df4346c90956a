"""Reading fields out of a host's hook payload, with errors that name the event and field.

Every harness's ``parse_event`` does the same checks on foreign JSON: the event name is
one it installs, the payload is an object, a field the event needs is a non-empty string,
an optional field is a string or absent, an argument field is an object. A
:class:`Payload` binds the harness name, the host event and the payload so each check is
one call, and every failure is a ``ValueError`` reading ``<harness> <event> payload: field
'x' is missing``.

This module is on the hook fast path (the event modules import it): it imports only
``collections.abc``, and not ``typing`` at run time.
"""

from __future__ import annotations

from collections.abc import Mapping

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: importing typing costs the hook path ms
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, TypeVar

    from lorebook.events import EventName, HookAnswer, HookEvent, HostOutput

    T = TypeVar("T")


def known_event(harness: str, events: Mapping[str, T], name: str) -> T:
    """The normalised name of a host event, or a ValueError listing the known ones.

    Args:
        harness: The harness name, for the message.
        events: Host event name -> normalised name (the events the plugin installs).
        name: The host event name the launcher was given.
    """
    try:
        return events[name]
    except KeyError:
        known = ", ".join(events)
        raise ValueError(f"{harness}: unknown hook event {name!r} (known: {known})") from None


class Payload:
    """One host payload, read field by field; every problem names the event and field.

    Raises:
        ValueError: on construction, when the payload is not a JSON object.
    """

    __slots__ = ("data", "event", "harness")

    def __init__(self, harness: str, event: str, data: object) -> None:
        self.harness = harness
        self.event = event
        if not isinstance(data, Mapping):
            raise self.error(f"not a JSON object ({type(data).__name__})")
        self.data: Mapping[str, Any] = data

    def error(self, problem: str) -> ValueError:
        """A ValueError reading ``<harness> <event> payload: <problem>``."""
        return ValueError(f"{self.harness} {self.event} payload: {problem}")

    def required(self, key: str, *, empty_ok: bool = False) -> str:
        """``data[key]`` as a string; a missing, non-string (or empty) value is an error."""
        value = self.data.get(key)
        if not isinstance(value, str):
            problem = "missing" if value is None else f"not a string ({type(value).__name__})"
            raise self.error(f"field {key!r} is {problem}")
        if not value and not empty_ok:
            raise self.error(f"field {key!r} is empty")
        return value

    def optional(self, key: str) -> str | None:
        """``data[key]`` when it is a non-empty string, else None."""
        value = self.data.get(key)
        return value if isinstance(value, str) and value else None

    def mapping(self, key: str) -> Mapping[str, Any]:
        """``data[key]`` as an object (``{}`` when absent); any other type is an error."""
        value = self.data.get(key)
        if value is None:
            return {}
        if not isinstance(value, Mapping):
            raise self.error(f"field {key!r} is not an object ({type(value).__name__})")
        return value


def encode_json(output: object) -> bytes:
    """Compact JSON of a hook's answer, UTF-8, with a trailing newline."""
    import json

    text = json.dumps(output, ensure_ascii=False, separators=(",", ":"))
    return text.encode("utf-8", "replace") + b"\n"


def deny_reason(decision: str | None, reason: str | None, ask_suffix: str) -> str:
    """The reason of a deny, for a host whose hooks can deny but cannot ask a person.

    An ``ask`` becomes a deny whose reason ends with ``ask_suffix`` (saying who must
    confirm); an empty reason becomes ``blocked by lorebook``.
    """
    text = (reason or "").strip()
    if decision == "ask":
        return f"{text.rstrip('.')}. {ask_suffix}" if text else ask_suffix
    return text or "blocked by lorebook"


class Fields:
    """The names a host gives the payload fields every event module reads.

    Attributes:
        session: The session id (required on every event).
        cwd: The working directory (required on every event).
        prompt: The prompt text (required on ``prompt`` events; may be empty).
        tool: The tool name (required on tool events).
        tool_input: The tool's arguments (an object, when present).
        transcript: Where the transcript is (optional; ``""``: the host never says).
        source: Why the session started (optional, ``session_start`` only).
    """

    __slots__ = ("cwd", "prompt", "session", "source", "tool", "tool_input", "transcript")

    def __init__(
        self,
        session: str,
        cwd: str,
        prompt: str = "prompt",
        tool: str = "tool_name",
        tool_input: str = "tool_input",
        transcript: str = "transcript_path",
        source: str = "source",
    ) -> None:
        self.session, self.cwd, self.prompt = session, cwd, prompt
        self.tool, self.tool_input, self.transcript, self.source = (
            tool,
            tool_input,
            transcript,
            source,
        )


def parse_with(
    harness: str,
    events: Mapping[str, EventName],
    name: str,
    data: object,
    fields: Fields,
    error_of: Callable[[str, Payload], str | None] | None = None,
    transcript_of: Callable[[str], str] | None = None,
    prompt_of: Callable[[str], str] | None = None,
) -> HookEvent:
    """Translate one payload into a normalised event, reading the host's field names.

    Args:
        harness: The harness name the event carries.
        events: Host event name -> normalised name, for every event the plugin installs.
        name: The host event, as the launcher was given it.
        data: The payload.
        fields: The host's names for the fields read.
        error_of: For ``post_tool`` events: the finished tool's error text, or None.
        transcript_of: The transcript reference of a session whose payload names none.
        prompt_of: Cleans the prompt text the host sent (quotes it adds, ...).

    Raises:
        ValueError: the event name is unknown, the payload is not a JSON object, or a
            field the event needs is missing (the message names the event and field).
    """
    from lorebook.events import HookEvent

    normalised = known_event(harness, events, name)
    payload = Payload(harness, name, data)
    session_id = payload.required(fields.session)
    cwd = payload.required(fields.cwd)
    is_tool = normalised in ("pre_tool", "post_tool")
    transcript = payload.optional(fields.transcript)
    if transcript is None and transcript_of is not None:
        transcript = transcript_of(session_id)
    prompt = payload.required(fields.prompt, empty_ok=True) if normalised == "prompt" else None
    if prompt is not None and prompt_of is not None:
        prompt = prompt_of(prompt)
    return HookEvent(
        name=normalised,
        harness=harness,
        session_id=session_id,
        cwd=cwd,
        transcript_ref=transcript,
        prompt=prompt,
        tool_name=payload.required(fields.tool) if is_tool else None,
        tool_input=payload.mapping(fields.tool_input) if is_tool else {},
        error_text=error_of(name, payload) if error_of and normalised == "post_tool" else None,
        source=payload.optional(fields.source) if normalised == "session_start" else None,
        host_event=name,
        raw=payload.data,
    )


def flat_answer(
    event: HookEvent,
    answer: HookAnswer,
    context_key: str,
    context_events: frozenset[str],
    host_name: Mapping[EventName, str],
    decision_keys: tuple[str, str],
    ask_suffix: str,
) -> HostOutput:
    """An answer as one flat JSON object, for a host whose hooks can deny but cannot ask.

    The context goes under ``context_key`` on the host events in ``context_events`` (named
    back through ``host_name`` when the event has no ``host_event``); before a tool, a deny
    or an ask becomes ``{decision_keys[0]: "deny", decision_keys[1]: <reason>}`` (see
    :func:`deny_reason`). Nothing to say prints nothing; the exit code is always 0.
    """
    from lorebook.events import HostOutput

    output: dict[str, Any] = {}
    if event.name == "pre_tool" and answer.decision in ("deny", "ask"):
        output[decision_keys[0]] = "deny"
        output[decision_keys[1]] = deny_reason(answer.decision, answer.reason, ask_suffix)
    if answer.context and (event.host_event or host_name[event.name]) in context_events:
        output[context_key] = answer.context
    return HostOutput(encode_json(output) if output else b"", 0)
