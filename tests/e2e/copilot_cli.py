"""Running the real GitHub Copilot CLI headless, offline, against our mock Chat Completions API.

The client is the pinned npm package installed by ``.ci/run`` into ``.clients/``. Copilot runs
in its bring-your-own-model mode (``COPILOT_PROVIDER_BASE_URL`` and friends, shared/HARNESSES.md
section 4.1) with ``COPILOT_OFFLINE=true``: no GitHub account, telemetry or update traffic.
Every test gets its own HOME with ``COPILOT_HOME`` inside it; the native client unpacks its
JavaScript into one cache folder that all tests of a run share (``XDG_CACHE_HOME``), so it
is unpacked once. Inherited ``COPILOT_*``/``GITHUB_*`` variables are dropped.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Mapping
from pathlib import Path

import pytest

from tests.e2e.clients import describe, find_client, isolated_env, run_process

# Keep in step with COPILOT_VERSION in .ci/run.
COPILOT_VERSION = "1.0.102"
COPILOT_MODEL = "gpt-5.4"  # a model id Copilot knows, so BYOK needs no model metadata
COPILOT_INSTALL_HINT = (
    "Copilot CLI is not installed: run .ci/run or "
    f"npm install --prefix .clients --no-save @github/copilot@{COPILOT_VERSION}"
)
COMMON_ARGS = ("--no-auto-update", "--disable-client-telemetry", "--allow-all-tools")
_DROPPED_PREFIXES = ("COPILOT_", "GITHUB_", "GH_")
_DROPPED_NAMES = frozenset({"LOREBOOK_INTERNAL"})


def find_copilot() -> Path | None:
    """The copilot executable: $LOREBOOK_COPILOT_BIN, else ``.clients/``, else PATH."""
    return find_client("copilot", "LOREBOOK_COPILOT_BIN")


def copilot_env(
    home: Path, cache: Path, base_url: str, extra: Mapping[str, str] | None = None
) -> dict[str, str]:
    """One run's environment: isolated HOME and COPILOT_HOME, the mock as the model, offline."""
    env = isolated_env(home, _DROPPED_PREFIXES, _DROPPED_NAMES)
    env.update(
        XDG_CACHE_HOME=str(cache),
        COPILOT_HOME=str(home / ".copilot"),
        COPILOT_PROVIDER_BASE_URL=f"{base_url}/v1",
        COPILOT_PROVIDER_API_KEY="mock-not-a-secret",
        COPILOT_MODEL=COPILOT_MODEL,
        COPILOT_OFFLINE="true",
        COPILOT_AUTO_UPDATE="false",
        NO_COLOR="1",
    )
    env.update(extra or {})
    return env


def trust_folder(home: Path, folder: Path) -> None:
    """Record ``folder`` as trusted in Copilot's config, as its trust dialog does."""
    config = home / ".copilot" / "config.json"
    config.parent.mkdir(parents=True, exist_ok=True)
    data = {"trustedFolders": [os.path.realpath(folder)]}
    config.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")


def run_copilot(
    copilot: Path,
    repo: Path,
    env: Mapping[str, str],
    prompt: str,
    *extra: str,
    timeout: float = 180,
) -> subprocess.CompletedProcess[str]:
    """``copilot -p <prompt>`` in ``repo``; a non-zero exit fails the test, showing the output."""
    cmd = [str(copilot), "-p", prompt, *COMMON_ARGS, "--output-format", "json", *extra]
    proc = run_process(cmd, repo, env, timeout, name="copilot")
    if proc.returncode != 0:
        pytest.fail(describe(proc), pytrace=False)
    return proc


def check_version(copilot: Path, env: Mapping[str, str]) -> None:
    """Fail unless ``copilot --version`` names the pinned version."""
    proc = run_process([str(copilot), "--version"], Path.cwd(), env, 120, name="copilot")
    if proc.returncode != 0 or f"Copilot CLI {COPILOT_VERSION}." not in proc.stdout:
        pytest.fail(
            f"{copilot} is not Copilot CLI {COPILOT_VERSION}; reinstall it with .ci/run\n"
            + describe(proc),
            pytrace=False,
        )
