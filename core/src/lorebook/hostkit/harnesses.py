"""The harness methods that only hand over, and the reports every host's install gives.

A harness plugin keeps its host's differences in a few modules (an event module with
``parse_event`` and ``render``, a transcript module with ``read_transcript`` and
``transcript_end``, the file it installs). :class:`Translating` is the part of the
:class:`~lorebook.harness.Harness` protocol that only calls those modules, so a plugin's
harness class names its modules and writes only install, check and headless. The
``*_report`` functions turn what a file step did into the
:class:`~lorebook.harness.InstallReport` and :class:`~lorebook.harness.CheckItem` core
prints.

Not for the hook path: this module imports ``lorebook.harness`` (``dataclasses``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from lorebook.errors import LorebookError
from lorebook.harness import CheckItem, CheckState, InstallReport

if TYPE_CHECKING:
    from lorebook.events import HookAnswer, HookEvent, HostOutput, Turn
    from lorebook.harness import Harness


class EventTranslator(Protocol):
    """A plugin's fast-path event module (``HarnessSpec.event_module``)."""

    def parse_event(self, name: str, payload: Mapping[str, Any]) -> HookEvent:
        """Translate one host payload into a normalised event."""
        ...

    def render(self, event: HookEvent, answer: HookAnswer) -> HostOutput:
        """Put an answer in the host's channel."""
        ...


class TranscriptReader(Protocol):
    """A plugin's transcript module."""

    def read_transcript(
        self, ref: str, since: int | None = None, until: int | None = None
    ) -> Iterator[Turn]:
        """Yield normalised turns between two offsets."""
        ...

    def transcript_end(self, ref: str) -> int:
        """The offset just past the last complete record."""
        ...


class Translating:
    """Harness methods that hand each call to the plugin's event and transcript modules.

    Subclasses set ``events`` and ``transcript`` to those modules.
    """

    events: EventTranslator
    transcript: TranscriptReader

    def parse_event(self, name: str, payload: Mapping[str, Any]) -> HookEvent:
        """Translate one host payload (the event module's ``parse_event``)."""
        return self.events.parse_event(name, payload)

    def render(self, event: HookEvent, answer: HookAnswer) -> HostOutput:
        """Put the answer in the host's channel (the event module's ``render``)."""
        return self.events.render(event, answer)

    def read_transcript(
        self,
        ref: str,
        since: int | None = None,
        until: int | None = None,
        lines_before: int | None = None,
    ) -> Iterator[Turn]:
        """Yield turns between two offsets (the transcript module's reader).

        ``lines_before`` is handed on when the module's reader takes it.
        """
        from lorebook.hostkit.jsonl import call_reader

        return call_reader(self.transcript.read_transcript, ref, since, until, lines_before)

    def transcript_end(self, ref: str) -> int:
        """The offset just past the transcript's last complete record."""
        return self.transcript.transcript_end(ref)


def install_report(rel: str, changed: bool, notes: Iterable[str] = ()) -> InstallReport:
    """What installing one repository file did: changed or unchanged, with its notes."""
    if changed:
        return InstallReport(changed=(rel,), notes=tuple(notes))
    return InstallReport(unchanged=(rel,), notes=tuple(notes))


def uninstall_report(repo: Path, rel: str, changed: bool, deleted: bool) -> InstallReport:
    """What removing lorebook's part of one repository file did.

    A file that only lorebook filled was deleted (noted); a file that still exists and
    held nothing of ours is unchanged; a file that does not exist is not mentioned.
    """
    if deleted:
        return InstallReport(changed=(rel,), notes=("removed empty file",))
    if changed:
        return InstallReport(changed=(rel,))
    return InstallReport(unchanged=(rel,) if (repo / rel).exists() else ())


def merged(*reports: InstallReport) -> InstallReport:
    """One report for several files, in order."""
    return InstallReport(
        changed=tuple(rel for r in reports for rel in r.changed),
        unchanged=tuple(rel for r in reports for rel in r.unchanged),
        notes=tuple(note for r in reports for note in r.notes),
    )


def file_check(
    load: Callable[[], dict[str, Any]],
    states: Callable[[dict[str, Any]], Iterable[tuple[str, CheckState]]],
    events: Iterable[str],
    what: Callable[[str], str],
    fix: str,
) -> list[CheckItem]:
    """One check item per hook event of a hooks file.

    Args:
        load: Reads the file (raising :class:`~lorebook.errors.LorebookError` or
            ``OSError`` when it cannot be read as a hooks file).
        states: (event, state) of every event lorebook installs, from the file's data.
        events: Every event lorebook installs (for the items when the file is unreadable).
        what: The item's description for an event.
        fix: What to run when an event is not ``ok``.

    Returns:
        ``ok``, ``missing`` or ``changed`` per event; ``unknown`` for each when the file
        cannot be read, with the reason in the fix.
    """
    try:
        data = load()
    except (LorebookError, OSError) as exc:
        return [CheckItem(what(event), "unknown", fix=f"{exc}; then {fix}") for event in events]
    return [
        CheckItem(what(event), state, fix=None if state == "ok" else fix)
        for event, state in states(data)
    ]


def lazy_factory(target: str) -> Callable[[], Harness]:
    """A ``HarnessSpec.factory`` that imports ``module:Class`` only when it is called.

    A plugin's registration module stays cheap to load (``lorebook plugins`` loads every
    one); the harness class and what it imports are imported on first use.
    """
    module_name, _, class_name = target.partition(":")

    def build() -> Harness:
        import importlib

        harness: Harness = getattr(importlib.import_module(module_name), class_name)()
        return harness

    build.__qualname__ = build.__name__ = f"build_{class_name}"
    return build
