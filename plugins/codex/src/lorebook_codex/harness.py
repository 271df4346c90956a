"""The Codex CLI harness: hook config and trust, events, rollouts and headless runs."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from lorebook.errors import LorebookError
from lorebook.harness import CheckItem, CheckState, InstallReport
from lorebook.hostkit import headless
from lorebook.hostkit.harnesses import Translating, install_report, uninstall_report
from lorebook.hostkit.history import PastSession
from lorebook.hostkit.memory import MemoryListing

from . import events, history, hooks_file, transcript, trust

ARGV_PROMPT_LIMIT = 64 * 1024
"""Prompts longer than this many UTF-8 bytes go to ``codex exec -`` on stdin, not in argv."""

HEADLESS_OPTIONS = ("--color", "never", "--skip-git-repo-check", "--ephemeral", "-s", "read-only")
"""``codex exec`` options for lorebook's own LLM work: plain text, no session file kept,
no writes."""


class CodexHarness(Translating):
    """OpenAI Codex CLI 0.171, wired through the project's ``.codex/hooks.json``.

    Install, uninstall and check touch only lorebook's own hook entries (see
    :mod:`lorebook_codex.hooks_file`); ``check`` also reads Codex's trust record (see
    :mod:`lorebook_codex.trust`). Events and answers are translated by
    :mod:`lorebook_codex.events`, rollouts by :mod:`lorebook_codex.transcript`.
    """

    name = "codex"
    events = events
    transcript = transcript

    def __init__(self, env: Mapping[str, str] | None = None) -> None:
        """Build the harness; ``env`` (default: the process environment) locates CODEX_HOME."""
        self._env = env

    def install(self, repo: Path) -> InstallReport:
        """Merge lorebook's hooks into ``<repo>/.codex/hooks.json``.

        Keeps every hook, matcher group and key the user has, in their order; a second run
        changes no byte; an older lorebook entry is replaced where it stood, never
        duplicated. The file is rewritten (2-space indent) only when its content changes.
        Codex runs the hooks only once a person has trusted them (see :meth:`check`).

        Raises:
            LorebookError: the hooks file exists but is not valid JSON (nothing is written).
        """
        changed = hooks_file.FILE.install(repo)
        note = _TRUST_NOTE + trust.APPROVE.format(repo=repo)
        return install_report(hooks_file.HOOKS_PATH, changed, [note] if changed else [])

    def uninstall(self, repo: Path) -> InstallReport:
        """Remove exactly lorebook's hook entries from ``<repo>/.codex/hooks.json``.

        Matcher groups, events and the ``hooks`` key that only our entries filled go with
        them. A file left holding ``{}`` is deleted, and ``.codex/`` too if it is then
        empty. The user's file comes back byte for byte, whatever its formatting
        (:func:`lorebook.hostkit.hookfile.keep_original`). Trust records in the user's Codex
        config are left alone (Codex ignores records of hooks that are gone).

        Raises:
            LorebookError: the hooks file is not valid JSON (nothing is written).
        """
        changed, deleted = hooks_file.FILE.uninstall(repo)
        return uninstall_report(repo, hooks_file.HOOKS_PATH, changed, deleted)

    def check(self, repo: Path) -> list[CheckItem]:
        """One item per hook event, then one for the project's trust.

        A hook is ``missing`` or ``changed`` when ``.codex/hooks.json`` does not hold
        lorebook's entry as installed; when it does, its state is its trust record in the
        user's Codex config: ``ok`` (trusted, hash matches), ``untrusted`` (no record, or
        turned off), ``changed`` (trusted before it changed, so Codex skips it) or
        ``unknown`` (the config cannot be read). The last item says whether Codex loads
        this repository's hooks at all (project trust, hooks feature).
        """
        try:
            data = hooks_file.FILE.load(repo / hooks_file.HOOKS_PATH)
        except (LorebookError, OSError) as exc:
            return [
                CheckItem(_what(event), "unknown", fix=f"{exc}; then {hooks_file.FIX}")
                for event in hooks_file.FILE.events
            ]
        config, problem = self._codex_config()
        running = self._running_hooks(repo, data)
        items = [
            self._hook_item(repo, event, state, config or problem, running)
            for event, state, _ in hooks_file.FILE.states(data)
        ]
        if config is None:
            items.append(CheckItem(trust.PROJECT_WHAT, "unknown", fix=problem))
        else:
            items.append(trust.project_item(repo, config))
        return items

    def _codex_config(self) -> tuple[trust.CodexConfig | None, str]:
        home = trust.codex_home(self._env)
        try:
            return trust.CodexConfig.load(home), ""
        except ValueError as exc:
            fix = (
                f"{exc}: lorebook cannot tell whether Codex trusts the hooks. Check that "
                "CODEX_HOME points where your Codex keeps config.toml, then "
                + trust.APPROVE.format(repo="the repository")
            )
            return None, fix

    @staticmethod
    def _running_hooks(repo: Path, data: dict[str, Any]) -> dict[str, Any] | str:
        """The hooks file Codex runs for ``repo``, or why it cannot be read.

        See :func:`lorebook_codex.trust.hooks_root`.
        """
        root = trust.hooks_root(repo)
        if root == repo:
            return data
        try:
            return hooks_file.FILE.load(root / hooks_file.HOOKS_PATH)
        except (LorebookError, OSError) as exc:
            return f"{exc}; Codex runs that file for this linked worktree"

    def _hook_item(
        self,
        repo: Path,
        event: str,
        state: CheckState,
        config: trust.CodexConfig | str,
        running: dict[str, Any] | str,
    ) -> CheckItem:
        if state != "ok":  # the file does not hold our entry as installed
            return CheckItem(_what(event), state, fix=hooks_file.FIX)
        if isinstance(config, str):
            return CheckItem(_what(event), "unknown", fix=config)
        if isinstance(running, str):
            return CheckItem(_what(event), "unknown", fix=running)
        positions = hooks_file.FILE.our_positions(dict(hooks_file.FILE.events_of(running))[event])
        if not positions:
            root = trust.hooks_root(repo)
            missing = (
                f"Codex runs {root / hooks_file.HOOKS_PATH} for this linked worktree, and it "
                f"holds no lorebook {event} hook: run `lorebook init --harnesses codex` in {root}"
            )
            return CheckItem(_what(event), "missing", fix=missing)
        (group_index, handler_index, group, entry) = positions[0]
        digest = trust.hook_hash(event, group, entry)
        state, fix = trust.hook_state(repo, config, event, (group_index, handler_index), digest)
        return CheckItem(_what(event), state, fix=fix)

    def trust_toml(self, repo: Path) -> str:
        """The config.toml tables that would trust lorebook's installed hooks on this machine.

        They are for the hooks file Codex runs here (a linked worktree's is the main
        checkout's). lorebook never writes them; see :func:`lorebook_codex.trust.trust_toml`.

        Raises:
            LorebookError: the hooks file is not valid JSON.
        """
        root = trust.hooks_root(repo)
        return trust.trust_toml(repo, hooks_file.FILE.load(root / hooks_file.HOOKS_PATH))

    def transcript_info(self, path: Path) -> PastSession | None:
        """Describe a Codex rollout, or None (see :mod:`lorebook_codex.history`)."""
        return history.transcript_info(path)

    def past_sessions(self, repo: Path) -> list[PastSession]:
        """This repository's rollouts under ``CODEX_HOME`` (see :mod:`lorebook_codex.history`)."""
        return history.past_sessions(repo, self._env)

    def memory_entries(self, repo: Path) -> MemoryListing:
        """This repository's Codex memories (see :mod:`lorebook_codex.memory`)."""
        from . import memory

        return memory.memory_entries(repo, self._env)

    def memory_store(self, repo: Path) -> Path:
        """Where Codex keeps its memories: ``$CODEX_HOME/memories``."""
        from . import memory

        return memory.memory_dir(self._env)

    def headless(self, prompt: str, model: str | None) -> tuple[list[str], bytes | None]:
        """Argv (and stdin bytes) for ``codex exec``, whose stdout is the final answer only.

        Prompts over :data:`ARGV_PROMPT_LIMIT` bytes, starting with ``-`` (which would read
        as an option) or holding a NUL byte go on stdin, with ``-`` as the prompt argument
        (verified with 0.171.0 against a mock model: a 70,000-character prompt arrived
        whole). Run it with stdin closed or empty otherwise: ``codex exec`` appends piped
        stdin to an argument prompt.
        """
        options = list(HEADLESS_OPTIONS)
        if model:
            options += ["-m", model]
        data = headless.prompt_on_stdin(prompt, ARGV_PROMPT_LIMIT)
        if data is not None:
            return ["codex", "exec", *options, "-"], data
        return ["codex", "exec", *options, prompt], None

    def hook_commands(self, repo: Path) -> dict[str, str]:
        """The installed lorebook command for each Codex event (empty when not installed)."""
        return hooks_file.FILE.hook_commands(repo)

    def host_env(self, repo: Path) -> dict[str, str]:
        """Nothing: Codex gives hooks no project variable.

        It sets ``CODEX_HOME``, which lorebook's hooks do not need.
        """
        return {}


_TRUST_NOTE = "Codex runs these hooks only once you trust them: "


def _what(event: str) -> str:
    return f"Codex hook {event} in {hooks_file.HOOKS_PATH}"
