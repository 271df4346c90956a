"""The __HOST_TITLE__ harness: its hooks file, transcripts and headless runs."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lorebook.events import Turn
from lorebook.harness import CheckItem, InstallReport
from lorebook.hostkit import headless, jsonl
from lorebook.hostkit.harnesses import Translating, file_check, install_report, uninstall_report
from lorebook.hostkit.hookfile import HookFile

from . import events

if TYPE_CHECKING:
    from lorebook.hostkit.jsonl import PendingCalls

HOOKS_PATH = ".__HOST__/hooks.json"
FIX = "run `lorebook init --harnesses __HOST__`"
_OURS = re.compile(r"\.lorebook/bin/hook\s+__HOST__(\s|$)")


def hook_command(event: str) -> str:
    """The committed command: the per-machine launcher when it exists, else a quiet exit 0."""
    return f"test -x .lorebook/bin/hook && exec .lorebook/bin/hook __HOST__ {event} || true"


FILE = HookFile(
    HOOKS_PATH,
    tuple((event, "*" if "Tool" in event else None, 30) for event in events.EVENTS),
    hook_command,
    lambda command: _OURS.search(command) is not None,
    FIX,
)


class Transcript:
    """JSON Lines of ``{"role": "user"|"assistant", "text": ...}`` (replace with your host's)."""

    transcript_end = staticmethod(jsonl.transcript_end)

    @staticmethod
    def read_transcript(
        ref: str,
        since: int | None = None,
        until: int | None = None,
        lines_before: int | None = None,
    ) -> Iterator[Turn]:
        """Yield one turn per record with a role and text (index: the line number).

        Capture passes ``lines_before`` (the lines before ``since``) when it resumes where
        it stopped, so the first line read is numbered from it instead of counting every
        line before ``since`` again at each capture; keep this argument if your reader
        numbers turns by line (see ``lorebook.hostkit.jsonl.read_turns``).
        """
        return jsonl.read_turns(ref, since, until, _turn, lines_before)


def _turn(record: dict[str, Any], index: int, _calls: PendingCalls) -> Turn | None:
    role, text = record.get("role"), record.get("text")
    if role in ("user", "assistant") and isinstance(text, str) and text.strip():
        return Turn(index, role, text.strip(), injected=record.get("injected") is True)
    return None


class Harness(Translating):
    """__HOST_TITLE__, wired through the project's ``.__HOST__/hooks.json``."""

    name = "__HOST__"
    events = events
    transcript = Transcript()

    def install(self, repo: Path) -> InstallReport:
        """Merge lorebook's hooks into the hooks file (idempotent, keeps the user's)."""
        return install_report(HOOKS_PATH, FILE.install(repo))

    def uninstall(self, repo: Path) -> InstallReport:
        """Remove exactly lorebook's entries."""
        changed, deleted = FILE.uninstall(repo)
        return uninstall_report(repo, HOOKS_PATH, changed, deleted)

    def check(self, repo: Path) -> list[CheckItem]:
        """One item per hook event (add your host's trust step here if it has one)."""
        return file_check(
            lambda: FILE.load(repo / HOOKS_PATH),
            lambda data: ((event, state) for event, state, _ in FILE.states(data)),
            FILE.events,
            lambda event: f"__HOST_TITLE__ hook {event} in {HOOKS_PATH}",
            FIX,
        )

    def headless(self, prompt: str, model: str | None) -> tuple[list[str], bytes | None]:
        """Argv (and stdin bytes) that run the host once, non-interactively."""
        options = ["--model", model] if model else []
        data = headless.prompt_on_stdin(prompt)
        if data is not None:
            return ["__HOST__", "-p", *options], data
        return ["__HOST__", "-p", prompt, *options], None

    def hook_commands(self, repo: Path) -> dict[str, str]:
        """The installed command per event, as the host runs it."""
        return FILE.hook_commands(repo)

    def host_env(self, repo: Path) -> dict[str, str]:
        """The variables your host sets for hook commands."""
        return {}

    # Optional, when your host keeps its own memory of a repository on disk: add
    # ``memory_entries(repo)`` and ``memory_store(repo)`` (lorebook.hostkit.memory.HostMemory)
    # and ``lorebook harvest --from __HOST__`` and ``lorebook doctor`` read it; see
    # lorebook_claude.memory for one. ``transcript_info`` and ``past_sessions``
    # (lorebook.hostkit.history.SessionHistory) do the same for ``lorebook import``.
