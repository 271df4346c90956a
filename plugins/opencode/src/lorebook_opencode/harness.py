"""The OpenCode harness: its JS plugin, events, sessions from OpenCode's store, headless runs."""

from __future__ import annotations

import shlex
from pathlib import Path

from lorebook.harness import CheckItem, InstallReport
from lorebook.hostkit import headless
from lorebook.hostkit.harnesses import Translating, install_report

from . import events, plugin_js, transcript

HEADLESS_OPTIONS = ("--format", "default")
"""``opencode run`` options for lorebook's own LLM work (the answer as plain text)."""

FIX = "run `lorebook init --harnesses opencode`"


class OpenCodeHarness(Translating):
    """OpenCode 1.18, wired through a JS plugin in the project's ``.opencode/plugins/``.

    Install, uninstall and check touch only lorebook's plugin file (see
    :mod:`lorebook_opencode.plugin_js`); events and answers are translated by
    :mod:`lorebook_opencode.events`, sessions read by :mod:`lorebook_opencode.transcript`.

    OpenCode itself, once ``.opencode/`` exists, writes ``.opencode/package.json``,
    ``.opencode/.gitignore`` and installs its plugin package into ``.opencode/node_modules``
    at startup (shared/HARNESSES.md section 3.1). Those files are OpenCode's, not lorebook's:
    uninstall leaves them (the ``.gitignore`` OpenCode writes keeps them out of commits).
    """

    name = "opencode"
    events = events
    transcript = transcript

    def install(self, repo: Path) -> InstallReport:
        """Write ``.opencode/plugins/lorebook.js`` (idempotent; a same-named user file is kept)."""
        written, note = plugin_js.FILE.install(repo)
        return install_report(plugin_js.PATH, written, [note] if note else [])

    def uninstall(self, repo: Path) -> InstallReport:
        """Remove lorebook's plugin file, and the folders it leaves empty."""
        if plugin_js.FILE.uninstall(repo):
            return InstallReport(changed=(plugin_js.PATH,))
        return InstallReport()

    def check(self, repo: Path) -> list[CheckItem]:
        """One item: the plugin file is ``ok``, ``changed`` or ``missing``."""
        state = plugin_js.FILE.state(repo)
        what = f"OpenCode plugin {plugin_js.PATH}"
        return [CheckItem(what, state, fix=None if state == "ok" else FIX)]

    def headless(self, prompt: str, model: str | None) -> tuple[list[str], bytes | None]:
        """Argv (and stdin bytes) for ``opencode run``.

        Long prompts (and ones starting with ``-`` or holding a NUL byte) go on stdin:
        ``opencode run`` with no message reads it from piped stdin.
        """
        options = list(HEADLESS_OPTIONS)
        if model:
            options += ["-m", model]
        data = headless.prompt_on_stdin(prompt)
        if data is not None:
            return ["opencode", "run", *options], data
        return ["opencode", "run", *options, prompt], None

    def hook_commands(self, repo: Path) -> dict[str, str]:
        """For each hook the installed plugin hands on: the launcher run it makes.

        The plugin runs ``.lorebook/bin/hook opencode <hook>`` without a shell, with the
        repository as working directory, and only when the launcher exists. Empty when
        the plugin is not installed as this version writes it.
        """
        if plugin_js.FILE.state(repo) != "ok":
            return {}
        launcher = shlex.quote(str(repo / ".lorebook" / "bin" / "hook"))
        return {
            hook: f"test -x {launcher} && exec {launcher} opencode {hook} || true"
            for hook in plugin_js.HOOKS
        }

    def host_env(self, repo: Path) -> dict[str, str]:
        """Nothing: the plugin passes OpenCode's own environment through."""
        return {}
