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
    from typing import Any, TypeVar

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
