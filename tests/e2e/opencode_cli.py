"""Running the real OpenCode headless against our mock Chat Completions API.

The client is the pinned npm package installed by ``.ci/run`` into ``.clients/``. Every test
gets its own HOME (so OpenCode's database, ``$XDG_DATA_HOME/opencode/opencode.db``, is the
test's), an ``opencode.json`` in the repository naming the mock as an OpenAI-compatible
provider (shared/HARNESSES.md section 3.5), and the variables that keep OpenCode from fetching
model lists, updates or its default plugins. Inherited ``OPENCODE_*`` variables are dropped.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Mapping
from pathlib import Path

import pytest

from tests.e2e.clients import describe, find_client, isolated_env, run_process

# Keep in step with OPENCODE_VERSION in .ci/run.
OPENCODE_VERSION = "1.18.33"
OPENCODE_MODEL = "mock/mock-model"
OPENCODE_INSTALL_HINT = (
    "OpenCode is not installed: run .ci/run or "
    f"npm install --prefix .clients --no-save opencode-ai@{OPENCODE_VERSION}"
)
QUIET_ENV = {
    "OPENCODE_DISABLE_MODELS_FETCH": "1",
    "OPENCODE_DISABLE_AUTOUPDATE": "1",
    "OPENCODE_DISABLE_DEFAULT_PLUGINS": "1",
    "OPENCODE_DISABLE_LSP_DOWNLOAD": "1",
    "OPENCODE_DISABLE_SHARE": "1",
    "NO_COLOR": "1",
}
_DROPPED_PREFIXES = ("OPENCODE_",)
_DROPPED_NAMES = frozenset({"LOREBOOK_INTERNAL"})


def find_opencode() -> Path | None:
    """The opencode executable: $LOREBOOK_OPENCODE_BIN, else ``.clients/``, else PATH."""
    return find_client("opencode", "LOREBOOK_OPENCODE_BIN")


def opencode_env(home: Path, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """One run's environment: isolated HOME (and OpenCode's data inside it), quiet flags."""
    env = isolated_env(home, _DROPPED_PREFIXES, _DROPPED_NAMES)
    env.update(QUIET_ENV)
    env.update(extra or {})
    return env


def write_config(repo: Path, base_url: str) -> Path:
    """The repository's ``opencode.json``: the mock as the only provider, tools allowed."""
    provider = {
        "npm": "@ai-sdk/openai-compatible",
        "name": "Mock",
        "options": {"baseURL": f"{base_url}/v1", "apiKey": "mock-not-a-secret"},
        "models": {"mock-model": {"name": "Mock Model", "tool_call": True,
                                  "limit": {"context": 200000, "output": 8192}}},
    }  # fmt: skip
    config = {
        "provider": {"mock": provider},
        "model": OPENCODE_MODEL,
        "small_model": OPENCODE_MODEL,
        "autoupdate": False,
        "share": "disabled",
        "permission": {"bash": "allow", "edit": "allow"},
    }
    path = repo / "opencode.json"
    path.write_text(json.dumps(config, indent=2) + "\n", encoding="utf-8")
    return path


def run_opencode(
    opencode: Path, repo: Path, env: Mapping[str, str], prompt: str, *extra: str,
    timeout: float = 180,
) -> subprocess.CompletedProcess[str]:  # fmt: skip
    """``opencode run --format json``; a non-zero exit fails the test, showing the output."""
    cmd = [str(opencode), "run", "--format", "json", "-m", OPENCODE_MODEL, *extra, prompt]
    # OpenCode takes the session's folder from $PWD, not from the working directory.
    proc = run_process(cmd, repo, {**env, "PWD": str(repo)}, timeout, name="opencode")
    if proc.returncode != 0:
        pytest.fail(describe(proc), pytrace=False)
    return proc


def check_version(opencode: Path, env: Mapping[str, str]) -> None:
    """Fail unless ``opencode --version`` prints the pinned version."""
    proc = run_process([str(opencode), "--version"], Path.cwd(), env, 120, name="opencode")
    if proc.returncode != 0 or proc.stdout.strip() != OPENCODE_VERSION:
        pytest.fail(
            f"{opencode} is not OpenCode {OPENCODE_VERSION}; reinstall it with .ci/run\n"
            + describe(proc),
            pytrace=False,
        )
