"""Running the real OpenAI Codex CLI headless against our mock Responses API.

The client is the pinned npm package installed by ``.ci/run`` into ``.clients/``. Every run gets
its own HOME, with ``CODEX_HOME`` inside it (``<home>/.codex``, Codex's default layout) holding a
``config.toml`` that makes the mock the model provider and trusts the test repository; inherited
``OPENAI_*``/``CODEX_*`` variables are dropped. The fixtures in ``conftest.py`` put these
together.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Protocol

from tests.e2e.clients import describe, find_client, isolated_env, run_process

__all__ = [
    "CODEX_API_KEY_ENV",
    "CODEX_INSTALL_HINT",
    "CODEX_MODEL",
    "CODEX_VERSION",
    "DEFAULT_SANDBOX",
    "CodexRunner",
    "codex_command",
    "codex_env",
    "completed_items",
    "describe",
    "final_message",
    "find_codex",
    "home_of",
    "json_events",
    "run_process",
    "thread_id",
    "trust_project",
    "write_codex_config",
]

# Keep in step with CODEX_VERSION in .ci/run.
CODEX_VERSION = "0.171.0"
CODEX_MODEL = "mock-model"
CODEX_API_KEY_ENV = "MOCK_API_KEY"
CODEX_INSTALL_HINT = (
    "Codex CLI is not installed: run .ci/run or "
    f"npm install --prefix .clients --no-save @openai/codex@{CODEX_VERSION}"
)
# The sandbox every run gets unless its extra arguments name one: the mock's scripted command
# runs as it would for a user, with no seccomp/landlock layer that a container may lack.
DEFAULT_SANDBOX = "danger-full-access"
_SANDBOX_FLAGS = frozenset({"-s", "--sandbox", "--full-auto", "--yolo"})
_SANDBOX_FLAGS_WITH_VALUE = ("--sandbox=",)

_DROPPED_PREFIXES = ("OPENAI_", "CODEX_")
# LOREBOOK_INTERNAL marks lorebook's own runs of a client.
_DROPPED_NAMES = frozenset({"LOREBOOK_INTERNAL"})


class CodexRunner(Protocol):
    """The ``run_codex`` fixture's signature."""

    def __call__(
        self,
        repo: Path,
        prompt: str,
        *extra_args: str,
        resume_last: bool = False,
        env: Mapping[str, str] | None = None,
        timeout: float = 120,
        check: bool = True,
    ) -> subprocess.CompletedProcess[str]: ...


def find_codex() -> Path | None:
    """The codex executable: $LOREBOOK_CODEX_BIN, else ``.clients/``, else PATH."""
    return find_client("codex", "LOREBOOK_CODEX_BIN")


def home_of(codex_home: Path) -> Path:
    """The HOME that goes with a CODEX_HOME made by :func:`write_codex_config`."""
    return codex_home.parent


def codex_env(codex_home: Path, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment for one client run (or one lorebook run beside it).

    HOME and the XDG folders are the temporary home around ``codex_home``, ``CODEX_HOME`` is
    set, the provider's key is a dummy, the loopback address bypasses any proxy, and the
    inherited ``OPENAI_*``, ``CODEX_*`` and ``LOREBOOK_INTERNAL`` variables are gone.
    """
    env = isolated_env(home_of(codex_home), _DROPPED_PREFIXES, _DROPPED_NAMES)
    env.update(CODEX_HOME=str(codex_home), NO_COLOR="1")
    env[CODEX_API_KEY_ENV] = "sk-e2e-mock-not-a-secret"
    env.update(extra or {})
    return env


def _toml_string(value: str) -> str:
    """A TOML basic string (JSON's escapes are valid TOML ones)."""
    return json.dumps(value, ensure_ascii=False)


def _project_table(repo: Path) -> str:
    return f"[projects.{_toml_string(str(repo.resolve()))}]"


def write_codex_config(codex_home: Path, base_url: str, *trusted: Path) -> Path:
    """Write ``codex_home/config.toml``: the mock as the only provider, ``trusted`` projects.

    ``base_url`` is the mock's root URL (``/v1`` is added). Retries are off, so a broken
    answer fails the run at once instead of after Codex's back-off. Returns the file.
    """
    codex_home.mkdir(parents=True, exist_ok=True)
    lines = [
        f"model = {_toml_string(CODEX_MODEL)}",
        'model_provider = "mock"',
        "check_for_update_on_startup = false",
        "",
        "[model_providers.mock]",
        'name = "lorebook e2e mock"',
        f"base_url = {_toml_string(base_url.rstrip('/') + '/v1')}",
        'wire_api = "responses"',
        f"env_key = {_toml_string(CODEX_API_KEY_ENV)}",
        "request_max_retries = 0",
        "stream_max_retries = 0",
        "stream_idle_timeout_ms = 60000",
        "",
        "[analytics]",
        "enabled = false",
    ]
    config = codex_home / "config.toml"
    config.write_text("\n".join(lines) + "\n", encoding="utf-8")
    for repo in trusted:
        trust_project(codex_home, repo)
    return config


def trust_project(codex_home: Path, repo: Path) -> None:
    """Mark ``repo`` trusted in ``codex_home/config.toml`` (so its ``.codex/`` layer loads)."""
    config = codex_home / "config.toml"
    text = config.read_text(encoding="utf-8") if config.exists() else ""
    table = _project_table(repo)
    if table in text.splitlines():
        return
    if text:
        text = text.rstrip("\n") + "\n\n"
    config.write_text(f'{text}{table}\ntrust_level = "trusted"\n', encoding="utf-8")


def codex_command(
    codex: Path, prompt: str, extra_args: tuple[str, ...], *, resume_last: bool
) -> list[str]:
    """``codex exec --json --dangerously-bypass-hook-trust [-s …] EXTRA [resume --last] PROMPT``."""
    cmd = [str(codex), "exec", "--json", "--dangerously-bypass-hook-trust"]
    names_sandbox = any(
        a in _SANDBOX_FLAGS or a.startswith(_SANDBOX_FLAGS_WITH_VALUE) for a in extra_args
    )
    if not names_sandbox:
        cmd += ["-s", DEFAULT_SANDBOX]
    cmd += extra_args
    if resume_last:
        cmd += ["resume", "--last"]
    cmd.append(prompt)
    return cmd


# ---------------------------------------------------------------- the --json event stream


def json_events(stdout: str) -> list[dict[str, Any]]:
    """Parse ``codex exec --json`` output: one JSON object per non-empty line."""
    return [json.loads(line) for line in stdout.splitlines() if line.strip()]


def completed_items(proc: subprocess.CompletedProcess[str], kind: str) -> list[dict[str, Any]]:
    """The ``item`` of every ``item.completed`` event whose item ``type`` is ``kind``.

    Kinds seen: ``agent_message`` (``text``), ``command_execution`` (``command``,
    ``aggregated_output``, ``exit_code``), ``error`` (``message``; warnings land here too).
    """
    return [
        event["item"]
        for event in json_events(proc.stdout)
        if event.get("type") == "item.completed"
        and isinstance(event.get("item"), dict)
        and event["item"].get("type") == kind
    ]


def final_message(proc: subprocess.CompletedProcess[str]) -> str:
    """The text of the run's last ``agent_message`` (what ``-o`` would write)."""
    messages = completed_items(proc, "agent_message")
    assert messages, f"no agent_message in the client's output\n{describe(proc)}"
    return str(messages[-1].get("text"))


def thread_id(proc: subprocess.CompletedProcess[str]) -> str:
    """The session (thread) id from the run's ``thread.started`` event."""
    started = [e for e in json_events(proc.stdout) if e.get("type") == "thread.started"]
    assert started, f"no thread.started event in the client's output\n{describe(proc)}"
    return str(started[0]["thread_id"])
