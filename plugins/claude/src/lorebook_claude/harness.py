"""The Claude Code harness: hook config, events, transcripts and headless runs."""

from __future__ import annotations

from pathlib import Path

from lorebook.harness import CheckItem, InstallReport
from lorebook.hostkit import headless
from lorebook.hostkit.harnesses import Translating, file_check, install_report, uninstall_report
from lorebook.hostkit.history import PastSession
from lorebook.hostkit.memory import MemoryListing

from . import events, history, settings, transcript

ARGV_PROMPT_LIMIT = 64 * 1024
"""Prompts longer than this many UTF-8 bytes go to ``claude -p`` on stdin, not in argv."""


class ClaudeHarness(Translating):
    """Claude Code 2.x, wired through the project's ``.claude/settings.json``.

    Install, uninstall and check touch only lorebook's own hook entries (see
    :mod:`lorebook_claude.settings`); events and answers are translated by
    :mod:`lorebook_claude.events`, transcripts by :mod:`lorebook_claude.transcript`.
    """

    name = "claude"
    events = events
    transcript = transcript

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
        return install_report(settings.SETTINGS_PATH, settings.FILE.install(repo))

    def uninstall(self, repo: Path) -> InstallReport:
        """Remove exactly lorebook's hook entries from ``<repo>/.claude/settings.json``.

        Matcher groups, events and the ``hooks`` key that only our entries filled go with
        them. A file left holding ``{}`` is deleted, and ``.claude/`` too if it is then
        empty. The user's file comes back byte for byte, whatever its formatting
        (:func:`lorebook.hostkit.hookfile.keep_original`).

        Raises:
            LorebookError: the settings file is not valid JSON (nothing is written).
        """
        changed, deleted = settings.FILE.uninstall(repo)
        return uninstall_report(repo, settings.SETTINGS_PATH, changed, deleted)

    def check(self, repo: Path) -> list[CheckItem]:
        """One item per hook event: ``ok``, ``missing`` or ``changed`` (or ``unknown``)."""
        file = settings.FILE
        return file_check(
            lambda: file.load(repo / settings.SETTINGS_PATH),
            lambda data: ((event, state) for event, state, _ in file.states(data)),
            file.events,
            _what,
            settings.FIX,
        )

    def transcript_info(self, path: Path) -> PastSession | None:
        """Describe a Claude Code transcript, or None (see :mod:`lorebook_claude.history`)."""
        return history.transcript_info(path)

    def past_sessions(self, repo: Path) -> list[PastSession]:
        """This repository's sessions in Claude Code's ``projects/`` folder."""
        return history.past_sessions(repo)

    def memory_entries(self, repo: Path) -> MemoryListing:
        """This repository's auto memories (see :mod:`lorebook_claude.memory`)."""
        from . import memory

        return memory.memory_entries(repo)

    def memory_store(self, repo: Path) -> Path:
        """The folder Claude Code keeps this repository's auto memory in."""
        from . import memory

        return memory.memory_dir(repo)

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
