"""The Cursor harness: hooks file and rules pointer, events, transcripts, headless runs."""

from __future__ import annotations

from pathlib import Path

from lorebook.harness import CheckItem, InstallReport
from lorebook.hostkit import headless
from lorebook.hostkit.harnesses import (
    Translating,
    file_check,
    install_report,
    merged,
    uninstall_report,
)

from . import events, transcript, wiring


class CursorHarness(Translating):
    """Cursor (agent and IDE hooks), from its documentation: no client installs here.

    Install writes lorebook's entries into ``.cursor/hooks.json`` and the always-applied
    rules file ``.cursor/rules/lorebook.mdc`` (see :mod:`lorebook_cursor.wiring`).
    """

    name = "cursor"
    events = events
    transcript = transcript

    def install(self, repo: Path) -> InstallReport:
        """Merge the hook entries and write the rules pointer (idempotent).

        Raises:
            LorebookError: ``.cursor/hooks.json`` is not a hooks file (nothing is written).
        """
        hooks = install_report(wiring.HOOKS_PATH, wiring.HOOKS.install(repo))
        written, note = wiring.RULES.install(repo)
        rules = install_report(wiring.RULES_PATH, written, [note] if note else [])
        return merged(hooks, rules)

    def uninstall(self, repo: Path) -> InstallReport:
        """Remove exactly lorebook's entries and its rules file."""
        changed, deleted = wiring.HOOKS.uninstall(repo)
        hooks = uninstall_report(repo, wiring.HOOKS_PATH, changed, deleted)
        rules = (
            InstallReport(changed=(wiring.RULES_PATH,))
            if wiring.RULES.uninstall(repo)
            else InstallReport()
        )
        return merged(hooks, rules)

    def check(self, repo: Path) -> list[CheckItem]:
        """One item per hook event, then the rules pointer."""
        file = wiring.HOOKS
        items = file_check(lambda: file.load(repo), file.states, file.events, _what, wiring.FIX)
        state = wiring.RULES.state(repo)
        rules = CheckItem(f"Cursor rules pointer {wiring.RULES_PATH}", state,
                          fix=None if state == "ok" else wiring.FIX)  # fmt: skip
        return [*items, rules]

    def headless(self, prompt: str, model: str | None) -> tuple[list[str], bytes | None]:
        """Argv (and stdin bytes) for ``cursor-agent -p`` with text output (documented, not run).

        Long prompts go on stdin, with no prompt argument.
        """
        options = ["--output-format", "text"]
        if model:
            options += ["--model", model]
        data = headless.prompt_on_stdin(prompt)
        if data is not None:
            return ["cursor-agent", "-p", *options], data
        return ["cursor-agent", "-p", prompt, *options], None

    def hook_commands(self, repo: Path) -> dict[str, str]:
        """The installed command for each Cursor event (empty when not installed)."""
        return {event: e["command"] for event, e in wiring.HOOKS.our_entries(repo).items()}

    def host_env(self, repo: Path) -> dict[str, str]:
        """Nothing documented: Cursor runs hooks from the project root."""
        return {}


def _what(event: str) -> str:
    return f"Cursor hook {event} in {wiring.HOOKS_PATH}"
