r"""Codex's trust record for a repository's hooks: how Codex 0.171 keys and hashes it.

Codex runs a project's ``.codex/hooks.json`` only when two records in the user's
``$CODEX_HOME/config.toml`` (``CODEX_HOME`` defaults to ``~/.codex``) allow it, and says
nothing when they do not (shared/HARNESSES.md section 2.1):

* the project is trusted: ``[projects."<repo>"]`` with ``trust_level = "trusted"``;
* each hook is trusted: ``[hooks.state."<key>"]`` with ``trusted_hash = "sha256:…"``.
  ``<key>`` is ``<absolute path of hooks.json>:<event label>:<group index>:<handler
  index>`` (the label is the snake_case event name, the indexes count from 0 in the
  file), and the hash must equal the hook's current hash, or Codex skips the hook as
  "modified". ``enabled = false`` in the same table turns a hook off.

The hash (``command_hook_hash`` in ``codex-rs/hooks/src/engine/discovery.rs`` and
``version_for_toml`` in ``codex-rs/config/src/fingerprint.rs``): the object
``{"event_name": <label>, "matcher": <matcher>, "hooks": [<handler>]}``, where the handler
is ``{"type": "command", "command": …, "timeout": <seconds>, "async": <bool>}`` plus
``statusMessage`` when set, the timeout normalised as Codex runs it (600 when absent, at
least 1; SessionEnd clamped to 1..3, 1 when absent), and the matcher left out when absent
or when the event ignores matchers (UserPromptSubmit, Stop); serialised as JSON with
object keys sorted and no whitespace, UTF-8; ``sha256:`` plus the hex digest. Checked
against the real Codex 0.171.0: the ``currentHash`` its app server lists for each hook,
and the records its TUI wrote on "Trust all and continue" (tests/plugins/codex/fixtures).

lorebook never writes the user's config.toml; :func:`trust_toml` returns the lines a
person may add after reviewing the hooks (the same ones Codex's ``/hooks`` would write).
"""

from __future__ import annotations

import hashlib
import json
import os
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from lorebook.harness import CheckItem, CheckState

from . import hooks_file

EVENT_LABELS: dict[str, str] = {
    "SessionStart": "session_start",
    "UserPromptSubmit": "user_prompt_submit",
    "PreToolUse": "pre_tool_use",
    "PermissionRequest": "permission_request",
    "PostToolUse": "post_tool_use",
    "PreCompact": "pre_compact",
    "PostCompact": "post_compact",
    "Stop": "stop",
    "SessionEnd": "session_end",
    "SubagentStart": "subagent_start",
    "SubagentStop": "subagent_stop",
}
"""Codex's hook event names to the labels in trust keys and hashes."""

_NO_MATCHER = frozenset({"UserPromptSubmit", "Stop"})
_CLAMPED = frozenset({"SessionEnd"})
PROJECT_WHAT = "Codex loads this repository's hooks (project trust)"
"""What the project item of ``check`` is about."""

APPROVE = (
    'run `codex` in {repo} and answer the "Hooks need review" prompt with '
    '"Trust all and continue" (or review them in /hooks)'
)


def codex_home(env: Mapping[str, str] | None = None) -> Path:
    """The folder holding Codex's config.toml: ``$CODEX_HOME``, else ``~/.codex``."""
    env = os.environ if env is None else env
    value = env.get("CODEX_HOME")
    return Path(value).expanduser() if value else Path.home() / ".codex"


def _timeout(event: str, raw: Any) -> int:
    value = raw if isinstance(raw, int) and not isinstance(raw, bool) else None
    if event in _CLAMPED:
        return min(max(1 if value is None else value, 1), 3)
    return max(600 if value is None else value, 1)


def hook_hash(event: str, group: Mapping[str, Any], entry: Mapping[str, Any]) -> str:
    """The hash Codex 0.171 computes for one command hook (``currentHash``).

    Args:
        event: Codex's event name (``PreToolUse``).
        group: The matcher group holding the entry.
        entry: The command handler (``{"type": "command", "command": …, …}``).
    """
    handler: dict[str, Any] = {
        "type": "command",
        "command": entry.get("command"),
        "timeout": _timeout(event, entry.get("timeout")),
        "async": entry.get("async") is True,
    }
    if isinstance(entry.get("statusMessage"), str):
        handler["statusMessage"] = entry["statusMessage"]
    identity: dict[str, Any] = {"event_name": EVENT_LABELS[event], "hooks": [handler]}
    matcher = group.get("matcher")
    if isinstance(matcher, str) and event not in _NO_MATCHER:
        identity["matcher"] = matcher
    text = json.dumps(identity, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def hook_key(hooks_path: str, event: str, group_index: int, handler_index: int) -> str:
    """The key of a hook's ``[hooks.state."<key>"]`` table in config.toml."""
    return f"{hooks_path}:{EVENT_LABELS[event]}:{group_index}:{handler_index}"


def hooks_root(repo: Path) -> Path:
    """The checkout whose ``.codex/hooks.json`` Codex runs for sessions in ``repo``.

    ``repo`` itself, except in a linked git worktree: Codex 0.171 reads the main checkout's
    hooks.json there (its app server lists them with that source path).
    """
    main = _main_checkout(repo)
    return main if main is not None else repo


def hooks_paths(repo: Path) -> list[str]:
    """The hooks.json path as Codex may name it in a trust key.

    Resolved first (Codex starts from the resolved working directory), then as given
    when that differs.
    """
    root = hooks_root(repo)
    given = os.path.abspath(root / hooks_file.HOOKS_PATH)
    resolved = os.path.join(os.path.realpath(root), hooks_file.HOOKS_PATH)
    return [resolved] if resolved == given else [resolved, given]


def our_hooks(repo: Path, data: dict[str, Any]) -> list[tuple[str, str, str]]:
    """(event, key, hash) of each lorebook hook in the hooks file Codex runs for ``repo``.

    ``data`` is that file (see :func:`hooks_root`); keys use its resolved path.
    """
    path = hooks_paths(repo)[0]
    found = []
    for event, groups in hooks_file.FILE.events_of(data):
        for group_index, handler_index, group, entry in hooks_file.FILE.our_positions(groups):
            key = hook_key(path, event, group_index, handler_index)
            found.append((event, key, hook_hash(event, group, entry)))
    return found


def toml_string(text: str) -> str:
    """A TOML basic string (JSON escapes are TOML escapes; DEL must be escaped too)."""
    return json.dumps(text, ensure_ascii=False).replace("\x7f", "\\u007f")


def trust_toml(repo: Path, data: dict[str, Any]) -> str:
    """The config.toml tables that trust lorebook's hooks as the hooks file holds them.

    They are what Codex's ``/hooks`` writes on approval. lorebook never adds them itself;
    a person may, after reading the hooks. The project must be trusted as well.
    """
    blocks = [
        f"[hooks.state.{toml_string(key)}]\ntrusted_hash = {toml_string(digest)}\n"
        for _, key, digest in our_hooks(repo, data)
    ]
    return "\n".join(blocks)


class CodexConfig:
    """The parts of the user's Codex config.toml that decide whether hooks run."""

    def __init__(self, path: Path, data: dict[str, Any]) -> None:
        self.path = path
        self.data = data

    @classmethod
    def load(cls, home: Path) -> CodexConfig:
        """Read ``<home>/config.toml``.

        Raises:
            ValueError: the file is missing, unreadable, not TOML, or its ``hooks.state``
                or ``projects`` tables have a shape Codex would not write (the message
                says what to check).
        """
        path = home / "config.toml"
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise ValueError(f"there is no Codex config at {path}") from None
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
            raise ValueError(f"cannot read {path}: {exc}") from None
        config = cls(path, data)
        config.hook_states()
        config.projects()
        return config

    def _table(self, *keys: str) -> dict[str, Any]:
        value: Any = self.data
        for key in keys:
            value = value.get(key, {}) if isinstance(value, dict) else None
        if not isinstance(value, dict):
            dotted = ".".join(keys)
            raise ValueError(f"{self.path}: [{dotted}] is not a table, so lorebook cannot read it")
        return value

    def hook_states(self) -> dict[str, Any]:
        """``[hooks.state]`` by key (Codex trims the keys)."""
        return {key.strip(): value for key, value in self._table("hooks", "state").items()}

    def projects(self) -> dict[str, Any]:
        """``[projects]`` by path."""
        return self._table("projects")

    def hooks_disabled(self) -> bool:
        """Whether ``[features] hooks = false`` (or its old name ``codex_hooks``) is set."""
        features = self.data.get("features")
        if not isinstance(features, dict):
            return False
        return features.get("hooks") is False or features.get("codex_hooks") is False


def _main_checkout(repo: Path) -> Path | None:
    """The main checkout of a linked git worktree (None for any other folder)."""
    dot_git = repo / ".git"
    try:
        text = dot_git.read_text(encoding="utf-8").strip()
    except OSError:
        return None
    if not text.startswith("gitdir:"):
        return None
    git_dir = (repo / text.removeprefix("gitdir:").strip()).resolve()
    try:
        common = (git_dir / (git_dir / "commondir").read_text(encoding="utf-8").strip()).resolve()
    except OSError:
        return None
    return common.parent


def project_item(repo: Path, config: CodexConfig) -> CheckItem:
    """Whether Codex loads this repository's hooks at all (project trust, hooks feature)."""
    what = PROJECT_WHAT
    if config.hooks_disabled():
        fix = "hooks are turned off in Codex: remove `hooks = false` from [features] in "
        fix += str(config.path)
        return CheckItem(what, "untrusted", fix=fix)
    candidates = [os.path.realpath(repo), os.path.abspath(repo)]
    main = _main_checkout(repo)
    if main is not None:
        candidates.append(str(main))
    projects = config.projects()
    for candidate in dict.fromkeys(candidates):
        record = projects.get(candidate)
        level = record.get("trust_level") if isinstance(record, dict) else None
        if level == "trusted":
            return CheckItem(what, "ok")
        if level == "untrusted":
            fix = (
                f"Codex marks {candidate} untrusted and loads none of its hooks: set "
                f'trust_level = "trusted" under [projects.{toml_string(candidate)}] in '
                f"{config.path}"
            )
            return CheckItem(what, "untrusted", fix=fix)
    key = toml_string(candidates[0])
    fix = (
        f"Codex loads project hooks only in trusted folders: run `codex` in {repo} and trust "
        f'the folder when asked, or add [projects.{key}] with trust_level = "trusted" to '
        f"{config.path}"
    )
    return CheckItem(what, "untrusted", fix=fix)


def hook_state(
    repo: Path, config: CodexConfig, event: str, position: tuple[int, int], digest: str
) -> tuple[CheckState, str | None]:
    """(state, fix) of one lorebook hook's trust record: ok, untrusted, changed or unknown."""
    states = config.hook_states()
    keys = [hook_key(path, event, *position) for path in hooks_paths(repo)]
    records = [(key, states[key]) for key in keys if key in states]
    if any(_trusted(record, digest) for _, record in records):
        return "ok", None
    approve = APPROVE.format(repo=repo)
    lines = (
        f"a [hooks.state.{toml_string(keys[0])}] table with trusted_hash = {toml_string(digest)}"
    )
    for key, record in records:
        if not isinstance(record, dict):
            return "unknown", f"{config.path}: [hooks.state.{toml_string(key)}] is not a table"
        if record.get("enabled") is False:
            return "untrusted", (
                f"you turned this hook off in Codex (enabled = false under "
                f"[hooks.state.{toml_string(key)}] in {config.path}): turn it on in /hooks"
            )
        if isinstance(record.get("trusted_hash"), str):
            return "changed", (
                f"the hook changed since you trusted it, so Codex skips it: {approve}; "
                f"or put {lines} in {config.path}"
            )
    return "untrusted", (
        f"Codex skips hooks nobody trusted: {approve}; or add {lines} to {config.path}"
    )


def _trusted(record: Any, digest: str) -> bool:
    return (
        isinstance(record, dict)
        and record.get("enabled") is not False
        and record.get("trusted_hash") == digest
    )
