"""Fixtures that run the real Claude Code client headless against our mock Messages API.

The client is the pinned npm package installed by ``.ci/run`` into ``.clients/``. Every run gets
a temporary HOME (so the real ``~/.claude`` is never read or written), the mock as its model
endpoint and the quiet-mode environment variables; inherited ``ANTHROPIC_*``/``CLAUDE*``
variables are dropped.

The Codex CLI fixtures (``codex_bin``, ``mock_responses``, ``codex_home``, ``run_codex``) do the
same for the pinned OpenAI Codex CLI against our mock Responses API; see ``codex_cli``. The
Copilot CLI and OpenCode fixtures (``copilot_bin``, ``opencode_bin``, ``mock_chat``, ...) run
those clients against a streaming mock Chat Completions API; see ``copilot_cli`` and
``opencode_cli``.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, NoReturn, Protocol

import pytest

from tests.conftest import git
from tests.e2e.clients import (
    describe as describe,  # re-exported: the Claude tests import it from here
    find_client,
    isolated_env,
    latest_mode,
    run_process,
)
from tests.e2e.codex_cli import (
    CODEX_INSTALL_HINT,
    CODEX_VERSION,
    CodexRunner,
    codex_command,
    codex_env,
    find_codex,
    trust_project,
    write_codex_config,
)
from tests.e2e.copilot_cli import COPILOT_INSTALL_HINT, check_version, copilot_env, find_copilot
from tests.e2e.mock_anthropic import MockAnthropic
from tests.e2e.mock_chat import MockChat
from tests.e2e.mock_responses import MockResponses
from tests.e2e.opencode_cli import (
    OPENCODE_INSTALL_HINT,
    check_version as check_opencode_version,
    find_opencode,
    opencode_env,
)

# Keep in step with CLAUDE_CODE_VERSION in .ci/run.
CLAUDE_CODE_VERSION = "2.1.197"
CLAUDE_MODEL = "claude-sonnet-4-5"
HELLO_TEXT = "hello from the e2e file"
INSTALL_HINT = (
    "Claude Code is not installed: run .ci/run or "
    f"npm install --prefix .clients --no-save @anthropic-ai/claude-code@{CLAUDE_CODE_VERSION}"
)

QUIET_ENV = {
    "DISABLE_TELEMETRY": "1",
    "DISABLE_ERROR_REPORTING": "1",
    "DISABLE_AUTOUPDATER": "1",
    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    "DISABLE_NON_ESSENTIAL_MODEL_CALLS": "1",
    "DISABLE_BUG_COMMAND": "1",
    "NO_COLOR": "1",
}
# CLAUDECODE=1 is set inside a Claude Code session; LOREBOOK_INTERNAL marks lorebook's own runs.
_DROPPED_PREFIXES = ("ANTHROPIC_", "CLAUDE_")
_DROPPED_NAMES = frozenset({"CLAUDECODE", "LOREBOOK_INTERNAL"})


class ClaudeRunner(Protocol):
    """The ``run_claude`` fixture's signature."""

    def __call__(
        self,
        repo: Path,
        prompt: str,
        *extra_args: str,
        session_id: str | None = None,
        resume: str | None = None,
        env: Mapping[str, str] | None = None,
        timeout: float = 120,
        check: bool = True,
    ) -> subprocess.CompletedProcess[str]: ...


def _unavailable(message: str) -> NoReturn:
    """Skip locally; fail in CI, where a skipped e2e test would hide a broken install."""
    if os.environ.get("CI") == "true":
        pytest.fail(message, pytrace=False)
    pytest.skip(message)


def find_claude() -> Path | None:
    """The claude executable: $LOREBOOK_CLAUDE_BIN, else ``.clients/``, else PATH."""
    return find_client("claude", "LOREBOOK_CLAUDE_BIN")


def claude_env(home: Path, base_url: str, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment for one client run: isolated HOME, mock endpoint, quiet flags."""
    env = isolated_env(home, _DROPPED_PREFIXES, _DROPPED_NAMES)
    env.update(
        ANTHROPIC_BASE_URL=base_url,
        ANTHROPIC_API_KEY="sk-ant-e2e-mock-not-a-secret",
        **QUIET_ENV,
    )
    env.update(extra or {})
    return env


def stream_json_events(stdout: str) -> list[dict[str, Any]]:
    """Parse ``--output-format stream-json`` output: one JSON object per non-empty line."""
    return [json.loads(line) for line in stdout.splitlines() if line.strip()]


def result_event(proc: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    """The final ``{"type": "result", ...}`` event of a stream-json run."""
    results = [e for e in stream_json_events(proc.stdout) if e.get("type") == "result"]
    assert results, f"no result event in the client's output\n{describe(proc)}"
    return results[-1]


@pytest.fixture(scope="session")
def claude_bin(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The pinned Claude Code executable (skips locally, fails in CI when it is missing)."""
    path = find_claude()
    if path is None or not path.exists():
        where = f" (LOREBOOK_CLAUDE_BIN={path})" if path else ""
        _unavailable(INSTALL_HINT + where)
    home = tmp_path_factory.mktemp("claude-version-home")
    env = claude_env(home, "http://127.0.0.1:9")
    proc = run_process([str(path), "--version"], Path.cwd(), env, 60, name="claude")
    version = proc.stdout.split()[0] if proc.stdout.split() else ""
    if proc.returncode != 0 or (version != CLAUDE_CODE_VERSION and not latest_mode()):
        pytest.fail(
            f"{path} is not Claude Code {CLAUDE_CODE_VERSION}; reinstall it with .ci/run\n"
            + describe(proc),
            pytrace=False,
        )
    return path


@pytest.fixture
def mock_anthropic() -> Iterator[MockAnthropic]:
    """A running mock Messages API with the default script; stopped after the test."""
    with MockAnthropic() as mock:
        yield mock


@pytest.fixture
def claude_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The HOME every client run of one test shares (so ``--resume`` finds the session)."""
    return tmp_path_factory.mktemp("claude-home")


@pytest.fixture
def run_claude(claude_bin: Path, mock_anthropic: MockAnthropic, claude_home: Path) -> ClaudeRunner:
    """Run ``claude -p`` headless in a repo against ``mock_anthropic``.

    The runner takes the repo, the prompt and extra CLI arguments (e.g. ``"--allowedTools",
    "Bash(cat:*)"``), plus ``session_id``/``resume``, extra ``env`` entries (applied last), a
    ``timeout`` in seconds, and ``check`` (fail the test, showing the output, on a non-zero
    exit). It returns the CompletedProcess in text mode.
    """

    def run(
        repo: Path,
        prompt: str,
        *extra_args: str,
        session_id: str | None = None,
        resume: str | None = None,
        env: Mapping[str, str] | None = None,
        timeout: float = 120,
        check: bool = True,
    ) -> subprocess.CompletedProcess[str]:
        cmd = [str(claude_bin), "-p", prompt, "--model", CLAUDE_MODEL]
        cmd += ["--output-format", "stream-json", "--verbose"]
        if session_id is not None:
            cmd += ["--session-id", session_id]
        if resume is not None:
            cmd += ["--resume", resume]
        cmd += extra_args
        proc = run_process(
            cmd, repo, claude_env(claude_home, mock_anthropic.url, env), timeout, name="claude"
        )
        if check and proc.returncode != 0:
            pytest.fail(describe(proc), pytrace=False)
        return proc

    return run


@pytest.fixture
def e2e_repo(tmp_path: Path) -> Path:
    """A git repo with one commit holding ``hello.txt`` (``hello from the e2e file``)."""
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    git(repo, "config", "user.name", "lorebook e2e")
    git(repo, "config", "user.email", "e2e@example.invalid")
    git(repo, "config", "commit.gpgsign", "false")
    (repo / "hello.txt").write_text(HELLO_TEXT + "\n", encoding="utf-8")
    git(repo, "add", "hello.txt")
    git(repo, "commit", "-q", "-m", "hello")
    return repo


# ---------------------------------------------------------------- OpenAI Codex CLI


@pytest.fixture(scope="session")
def codex_bin(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The pinned Codex CLI executable (skips locally, fails in CI when it is missing)."""
    path = find_codex()
    if path is None or not path.exists():
        where = f" (LOREBOOK_CODEX_BIN={path})" if path else ""
        _unavailable(CODEX_INSTALL_HINT + where)
    codex_home = tmp_path_factory.mktemp("codex-version") / ".codex"
    codex_home.mkdir()
    proc = run_process([str(path), "--version"], Path.cwd(), codex_env(codex_home), 60)
    words = proc.stdout.split()  # "codex-cli 0.171.0"
    version = words[-1] if words else ""
    if proc.returncode != 0 or (version != CODEX_VERSION and not latest_mode()):
        pytest.fail(
            f"{path} is not Codex CLI {CODEX_VERSION}; reinstall it with .ci/run\n"
            + describe(proc),
            pytrace=False,
        )
    return path


@pytest.fixture
def mock_responses() -> Iterator[MockResponses]:
    """A running mock Responses API with the default script; stopped after the test."""
    with MockResponses() as mock:
        yield mock


@pytest.fixture
def codex_home(
    tmp_path_factory: pytest.TempPathFactory, mock_responses: MockResponses, e2e_repo: Path
) -> Path:
    """The CODEX_HOME every client run of one test shares (so ``resume --last`` works).

    It is ``<temp home>/.codex`` (the temp home is the runs' HOME) and holds a ``config.toml``
    naming ``mock_responses`` as the model provider (``wire_api = "responses"``, key from
    ``MOCK_API_KEY``, model ``mock-model``, analytics off, no retries) and trusting
    ``e2e_repo``; ``run_codex`` trusts any other repo it is given.
    """
    codex_home = tmp_path_factory.mktemp("codex-user") / ".codex"
    write_codex_config(codex_home, mock_responses.url, e2e_repo)
    return codex_home


@pytest.fixture
def run_codex(codex_bin: Path, codex_home: Path) -> CodexRunner:
    """Run ``codex exec --json`` headless in a repo against ``mock_responses``.

    The runner takes the repo, the prompt and extra ``codex exec`` arguments (before
    ``resume``), plus ``resume_last`` (``resume --last``: continue the latest session), extra
    ``env`` entries (applied last), a ``timeout`` in seconds, and ``check`` (fail the test,
    showing the output, on a non-zero exit). Hook trust is bypassed
    (``--dangerously-bypass-hook-trust``) and the sandbox is ``danger-full-access`` unless the
    extra arguments name one. It returns the CompletedProcess in text mode.
    """

    def run(
        repo: Path,
        prompt: str,
        *extra_args: str,
        resume_last: bool = False,
        env: Mapping[str, str] | None = None,
        timeout: float = 120,
        check: bool = True,
    ) -> subprocess.CompletedProcess[str]:
        trust_project(codex_home, repo)
        cmd = codex_command(codex_bin, prompt, extra_args, resume_last=resume_last)
        proc = run_process(cmd, repo, codex_env(codex_home, env), timeout)
        if check and proc.returncode != 0:
            pytest.fail(describe(proc), pytrace=False)
        return proc

    return run


# ---------------------------------------------------------------- Chat Completions clients


@pytest.fixture
def mock_chat() -> Iterator[MockChat]:
    """A running streaming Chat Completions mock (OpenCode, Copilot CLI); stopped after."""
    with MockChat() as mock:
        yield mock


@pytest.fixture(scope="session")
def client_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One XDG cache folder for every client run of the session (Copilot unpacks into it)."""
    return tmp_path_factory.mktemp("client-cache")


@pytest.fixture(scope="session")
def copilot_bin(client_cache: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The pinned Copilot CLI executable (skips locally, fails in CI when it is missing)."""
    path = find_copilot()
    if path is None or not path.exists():
        where = f" (LOREBOOK_COPILOT_BIN={path})" if path else ""
        _unavailable(COPILOT_INSTALL_HINT + where)
    home = tmp_path_factory.mktemp("copilot-version-home")
    env = copilot_env(home, client_cache, "http://127.0.0.1:9")
    if latest_mode():  # any version; the first run also unpacks the client into the cache
        run_process([str(path), "--version"], Path.cwd(), env, 120, name="copilot")
    else:
        check_version(path, env)
    return path


@pytest.fixture
def copilot_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The HOME (holding ``.copilot``) every Copilot run of one test shares."""
    return tmp_path_factory.mktemp("copilot-home")


@pytest.fixture(scope="session")
def opencode_bin(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The pinned OpenCode executable (skips locally, fails in CI when it is missing)."""
    path = find_opencode()
    if path is None or not path.exists():
        where = f" (LOREBOOK_OPENCODE_BIN={path})" if path else ""
        _unavailable(OPENCODE_INSTALL_HINT + where)
    env = opencode_env(tmp_path_factory.mktemp("opencode-version"))
    if latest_mode():  # any version, run once as the pinned check runs it
        run_process([str(path), "--version"], Path.cwd(), env, 120, name="opencode")
    else:
        check_opencode_version(path, env)
    return path


@pytest.fixture
def opencode_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The HOME (holding OpenCode's data) every OpenCode run of one test shares."""
    return tmp_path_factory.mktemp("opencode-home")
