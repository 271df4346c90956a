"""The harness contract: what a host plugin implements (it translates, and does nothing else)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Protocol, runtime_checkable

from lorebook.events import HookAnswer, HookEvent, HostOutput, Turn

CheckState = Literal["ok", "missing", "changed", "untrusted", "unknown"]


@dataclass(frozen=True, slots=True)
class CheckItem:
    """One thing a harness checked in a repository, and what to do when it is not ok."""

    what: str
    state: CheckState
    fix: str | None = None


@dataclass(frozen=True, slots=True)
class InstallReport:
    """What ``install`` or ``uninstall`` changed (repository-relative paths)."""

    changed: tuple[str, ...] = ()
    unchanged: tuple[str, ...] = ()
    notes: tuple[str, ...] = field(default=())


@runtime_checkable
class Harness(Protocol):
    """A coding-assistant host, seen through its hooks, transcripts and headless mode."""

    name: str

    def install(self, repo: Path) -> InstallReport:
        """Write the host's hook config and skills; idempotent; keep what the user wrote."""
        ...

    def uninstall(self, repo: Path) -> InstallReport:
        """Remove exactly what ``install`` added."""
        ...

    def check(self, repo: Path) -> list[CheckItem]:
        """Verify the host config (and trust, where the host has a trust step)."""
        ...

    def parse_event(self, name: str, payload: Mapping[str, Any]) -> HookEvent:
        """Translate one host payload; raise ``ValueError`` naming a missing field."""
        ...

    def read_transcript(
        self, ref: str, since: int | None = None, until: int | None = None
    ) -> Iterator[Turn]:
        """Yield normalised turns between two byte offsets of the transcript.

        ``since`` is where an earlier read stopped (None: the start); ``until`` is where to
        stop (None: the last complete line). Turn indexes are stable across reads.
        """
        ...

    def transcript_end(self, ref: str) -> int:
        """Return the offset just past the transcript's last complete record.

        Capture reads up to this offset and remembers it, so a record appended while it
        reads is read once, next time.
        """
        ...

    def render(self, event: HookEvent, answer: HookAnswer) -> HostOutput:
        """Put the answer in the host's channel (stdout bytes and exit code)."""
        ...

    def headless(self, prompt: str, model: str | None) -> tuple[list[str], bytes | None]:
        """Return argv (and stdin bytes, for long prompts) that run the host headless."""
        ...

    def hook_commands(self, repo: Path) -> dict[str, str]:
        """Return the installed command for each host event, exactly as the host runs it.

        Empty when nothing is installed. The fake host of the test kit replays recorded
        payloads through these commands.
        """
        ...

    def host_env(self, repo: Path) -> dict[str, str]:
        """Return the environment variables the host sets for its hook commands."""
        ...
