"""The Claude Code harness: hook config, events, transcripts and headless runs."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from lorebook.errors import LorebookError
from lorebook.events import HookAnswer, HookEvent, HostOutput, Turn
from lorebook.harness import CheckItem, InstallReport
from lorebook.hostkit import headless
from lorebook.hostkit.history import PastSession

from . import events, history, settings, transcript

ARGV_PROMPT_LIMIT = 64 * 1024
"""Prompts longer than this many UTF-8 bytes go to ``claude -p`` on stdin, not in argv."""


class ClaudeHarness:
    """Claude Code 2.x, wired through the project's ``.claude/settings.json``.

    Install, uninstall and check touch only lorebook's own hook entries (see
    :mod:`lorebook_claude.settings`); events and answers are translated by
    :mod:`lorebook_claude.events`, transcripts by :mod:`lorebook_claude.transcript`.
    """

    name = "claude"

    def install(self, repo: Path) -> InstallReport:
        """Merge lorebook's hooks into ``<repo>/.claude/settings.json``.

        Keeps every hook, matcher group and setting the user has, in their order; a second
        run changes no byte; an older lorebook entry is replaced, never duplicated. The
        file is rewritten (2-space indent) only when its content changes (see
        :meth:`lorebook.hostkit.hookfile.HookFile.install`).

        Raises:
            LorebookError: the settings file exists but is not valid JSON (nothing is
                written).
        """
        if settings.FILE.install(repo):
            return InstallReport(changed=(settings.SETTINGS_PATH,))
        return InstallReport(unchanged=(settings.SETTINGS_PATH,))

    def uninstall(self, repo: Path) -> InstallReport:
        """Remove exactly lorebook's hook entries from ``<repo>/.claude/settings.json``.

        Matcher groups, events and the ``hooks`` key that only our entries filled go with
        them. A file left holding ``{}`` is deleted, and ``.claude/`` too if it is then
        empty. A user's file written with 2-space indent and a trailing newline comes back
        byte for byte; any other formatting comes back as equal JSON.

        Raises:
            LorebookError: the settings file is not valid JSON (nothing is written).
        """
        changed, deleted = settings.FILE.uninstall(repo)
        if deleted:
            return InstallReport(changed=(settings.SETTINGS_PATH,), notes=("removed empty file",))
        if changed:
            return InstallReport(changed=(settings.SETTINGS_PATH,))
        exists = (repo / settings.SETTINGS_PATH).exists()
        return InstallReport(unchanged=(settings.SETTINGS_PATH,) if exists else ())

    def check(self, repo: Path) -> list[CheckItem]:
        """One item per hook event: ``ok``, ``missing`` or ``changed`` (or ``unknown``)."""
        try:
            data = settings.FILE.load(repo / settings.SETTINGS_PATH)
        except (LorebookError, OSError) as exc:
            return [
                CheckItem(_what(event), "unknown", fix=f"{exc}; then {settings.FIX}")
                for event in settings.FILE.events
            ]
        return [
            CheckItem(_what(event), state, fix=None if state == "ok" else settings.FIX)
            for event, state, _ in settings.FILE.states(data)
        ]

    def parse_event(self, name: str, payload: Mapping[str, Any]) -> HookEvent:
        """Translate one Claude hook payload (see :func:`lorebook_claude.events.parse_event`)."""
        return events.parse_event(name, payload)

    def render(self, event: HookEvent, answer: HookAnswer) -> HostOutput:
        """Put the answer in Claude's channel (see :func:`lorebook_claude.events.render`)."""
        return events.render(event, answer)

    def read_transcript(
        self, ref: str, since: int | None = None, until: int | None = None
    ) -> Iterator[Turn]:
        """Yield turns between two byte offsets; see :mod:`lorebook_claude.transcript`."""
        return transcript.read_transcript(ref, since, until)

    def transcript_end(self, ref: str) -> int:
        """The byte offset just past the transcript's last complete line."""
        return transcript.transcript_end(ref)

    def transcript_info(self, path: Path) -> PastSession | None:
        """Describe a Claude Code transcript, or None (see :mod:`lorebook_claude.history`)."""
        return history.transcript_info(path)

    def past_sessions(self, repo: Path) -> list[PastSession]:
        """This repository's sessions in Claude Code's ``projects/`` folder."""
        return history.past_sessions(repo)

    def headless(self, prompt: str, model: str | None) -> tuple[list[str], bytes | None]:
        """Argv (and stdin bytes) for ``claude -p`` with plain text output.

        Prompts over :data:`ARGV_PROMPT_LIMIT` bytes, starting with ``-`` (which would read
        as an option) or holding a NUL byte go on stdin: ``claude -p`` without a prompt
        argument reads the prompt from stdin (verified with 2.1.197 against a mock model,
        a 200,000-character prompt arrived whole).
        """
        options = ["--output-format", "text"]
        if model:
            options += ["--model", model]
        data = headless.prompt_on_stdin(prompt, ARGV_PROMPT_LIMIT)
        if data is not None:
            return ["claude", "-p", *options], data
        return ["claude", "-p", prompt, *options], None

    def hook_commands(self, repo: Path) -> dict[str, str]:
        """The installed lorebook command for each Claude event (empty when not installed)."""
        return settings.FILE.hook_commands(repo)

    def host_env(self, repo: Path) -> dict[str, str]:
        """The variable Claude sets for hook commands: ``CLAUDE_PROJECT_DIR``."""
        return {"CLAUDE_PROJECT_DIR": str(repo)}


def _what(event: str) -> str:
    return f"Claude Code hook {event} in {settings.SETTINGS_PATH}"
