"""The GitHub Copilot CLI harness: hooks file and folder trust, events, logs, headless runs."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from lorebook.harness import CheckItem, InstallReport
from lorebook.hostkit import headless
from lorebook.hostkit.harnesses import Translating, file_check, install_report, uninstall_report
from lorebook.hostkit.history import PastSession

from . import events, history, hooks_file, transcript, trust

HEADLESS_OPTIONS = ("-s", "--allow-all-tools", "--no-custom-instructions")
"""``copilot`` options for lorebook's own LLM work: the answer only, no repository
instructions (``--allow-all-tools`` is required without a terminal)."""


class CopilotHarness(Translating):
    """GitHub Copilot CLI 1.0, wired through the repository's ``.github/hooks/lorebook.json``.

    Install, uninstall and check touch only lorebook's own entries (see
    :mod:`lorebook_copilot.hooks_file`); ``check`` also reads Copilot's folder trust (see
    :mod:`lorebook_copilot.trust`). Events and answers are translated by
    :mod:`lorebook_copilot.events`, event logs by :mod:`lorebook_copilot.transcript`.
    """

    name = "copilot"
    events = events
    transcript = transcript

    def __init__(self, env: Mapping[str, str] | None = None) -> None:
        """Build the harness; ``env`` (default: the process environment) locates COPILOT_HOME."""
        self._env = env

    def install(self, repo: Path) -> InstallReport:
        """Merge lorebook's entries into ``.github/hooks/lorebook.json`` (idempotent).

        Raises:
            LorebookError: the file exists but is not a hooks file (nothing is written).
        """
        changed = hooks_file.FILE.install(repo)
        item = trust.trust_item(repo, self._env)
        notes = [item.fix] if item.state != "ok" and item.fix else []
        return install_report(hooks_file.HOOKS_PATH, changed, notes)

    def uninstall(self, repo: Path) -> InstallReport:
        """Remove exactly lorebook's entries; a file only they filled is deleted.

        Raises:
            LorebookError: the file is not a hooks file (nothing is written).
        """
        changed, deleted = hooks_file.FILE.uninstall(repo)
        return uninstall_report(repo, hooks_file.HOOKS_PATH, changed, deleted)

    def check(self, repo: Path) -> list[CheckItem]:
        """One item per hook event, then the folder trust Copilot needs to run them."""
        file = hooks_file.FILE
        items = file_check(lambda: file.load(repo), file.states, file.events, _what, hooks_file.FIX)
        return [*items, trust.trust_item(repo, self._env)]

    def transcript_info(self, path: Path) -> PastSession | None:
        """Describe a Copilot event log, or None (see :mod:`lorebook_copilot.history`)."""
        return history.transcript_info(path)

    def past_sessions(self, repo: Path) -> list[PastSession]:
        """This repository's sessions under ``COPILOT_HOME/session-state``."""
        return history.past_sessions(repo, self._env)

    def headless(self, prompt: str, model: str | None) -> tuple[list[str], bytes | None]:
        """Argv (and stdin bytes) for a non-interactive ``copilot`` run printing the answer.

        Long prompts (and ones starting with ``-`` or holding a NUL byte) go on stdin with
        no ``-p``: Copilot reads piped stdin as the prompt (verified with 1.0.102 against a
        mock model: a 70,000-character prompt arrived whole).
        """
        options = list(HEADLESS_OPTIONS)
        if model:
            options += ["--model", model]
        data = headless.prompt_on_stdin(prompt)
        if data is not None:
            return ["copilot", *options], data
        return ["copilot", "-p", prompt, *options], None

    def hook_commands(self, repo: Path) -> dict[str, str]:
        """The installed ``bash`` command for each Copilot event (empty when not installed)."""
        entries = hooks_file.FILE.our_entries(repo)
        return {event: entry["bash"] for event, entry in entries.items() if "bash" in entry}

    def host_env(self, repo: Path) -> dict[str, str]:
        """What Copilot sets for hook commands: the project and hooks folders."""
        return {
            "COPILOT_PROJECT_DIR": str(repo),
            "COPILOT_HOOK_DIR": str(repo / ".github" / "hooks"),
            "COPILOT_CLI": "1",
        }


def _what(event: str) -> str:
    return f"Copilot CLI hook {event} in {hooks_file.HOOKS_PATH}"
