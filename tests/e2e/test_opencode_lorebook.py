"""lorebook wired into the real OpenCode, proven from what the model received.

Each test runs `lorebook init --harnesses opencode` in a fresh git repository holding an
`opencode.json` that names our mock Chat Completions API, adds notes with the real CLI, runs
`opencode run` and asserts on the requests the mock recorded. OpenCode has no command hooks:
what reaches the model went through the JS plugin lorebook installed in `.opencode/plugins/`.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.clients import describe
from tests.e2e.conftest import HELLO_TEXT
from tests.e2e.mock_chat import MockChat, all_text, tool_results
from tests.e2e.opencode_cli import opencode_env, run_opencode, write_config
from tests.e2e.staged import staged_log

pytestmark = pytest.mark.e2e

USER_PLUGIN = "export const Mine = async () => ({})\n"
USER_AGENTS_MD = "# Team notes\n\nBe brief.\n"


class OpenCode:
    """One test's OpenCode: its HOME, the mock, and lorebook run with the same environment."""

    def __init__(self, binary: Path, home: Path, mock: MockChat, repo: Path) -> None:
        self.binary, self.mock, self.repo = binary, mock, repo
        self.env = opencode_env(home)

    def lorebook(self, *args: str) -> str:
        proc = subprocess.run([sys.executable, "-m", "lorebook", *args], cwd=self.repo,
                              env=self.env, capture_output=True, text=True, check=False)  # fmt: skip
        assert proc.returncode == 0, f"lorebook {' '.join(args)}: {proc.stdout}\n{proc.stderr}"
        return proc.stdout

    def note(self, *args: str) -> None:
        self.lorebook("note", "add", *args)
        self.lorebook("index", "rebuild")

    def run(self, prompt: str) -> subprocess.CompletedProcess[str]:
        return run_opencode(self.binary, self.repo, self.env, prompt)

    def main_requests(self) -> list[dict[str, Any]]:
        """The agent's requests (not OpenCode's title-generation requests)."""
        return [r for r in self.mock.requests if "title generator" not in all_text(r)]


def write_user_files(repo: Path) -> Path:
    plugin = repo / ".opencode" / "plugins" / "mine.js"
    plugin.parent.mkdir(parents=True)
    plugin.write_text(USER_PLUGIN, encoding="utf-8")
    (repo / "AGENTS.md").write_text(USER_AGENTS_MD, encoding="utf-8")
    return plugin


@pytest.fixture
def opencode(
    opencode_bin: Path, opencode_home: Path, mock_chat: MockChat, e2e_repo: Path
) -> OpenCode:
    """The user's own plugin and AGENTS.md, the mock as OpenCode's model, lorebook wired."""
    write_user_files(e2e_repo)
    write_config(e2e_repo, mock_chat.url)
    client = OpenCode(opencode_bin, opencode_home, mock_chat, e2e_repo)
    client.lorebook("init", "--harnesses", "opencode")
    return client


def wait_for(found: Callable[[], list[Path]], seconds: float = 60) -> list[Path]:
    """What ``found`` returns once it is not empty (a detached capture finishes after the run)."""
    deadline = time.monotonic() + seconds
    while not (result := found()) and time.monotonic() < deadline:
        time.sleep(0.2)
    return result


def no_hook_errors(repo: Path) -> None:
    log = repo / ".lorebook/_logs/hook-errors.log"
    assert not log.exists(), log.read_text()


def _system(request: dict[str, Any]) -> list[str]:
    return [m["content"] for m in request["messages"] if m["role"] == "system"]


def test_the_catalog_and_the_prompt_matched_note_reach_the_model(opencode: OpenCode) -> None:
    opencode.note("--title", "Run tests with uv run pytest", "--description", "Running the test suite",
                  "--kind", "convention", "--body", "NOTE_BODY_UV: never bare pytest here.")  # fmt: skip
    opencode.note("--title", "Invoices export to CSV", "--description", "The invoice export",
                  "--kind", "feature", "--body", "NOTE_BODY_INVOICES")  # fmt: skip
    proc = opencode.run("how do I run the pytest suite in this repo?")
    (request,) = opencode.main_requests()
    system = _system(request)
    # experimental.chat.system.transform: the catalog as a system message of its own
    assert any(s.startswith("# Project knowledge base") for s in system), describe(proc)
    assert any("lorebook status: 2 notes" in s for s in system)
    assert "Project knowledge base (lorebook)" in system[0]  # the AGENTS.md pointer block
    assert "Be brief." in system[0]
    # chat.message: a synthetic text part of the user's message
    user = request["messages"][-1]
    assert user["role"] == "user"
    texts = [part["text"] for part in user["content"]]
    assert texts[0] == '"how do I run the pytest suite in this repo?"'
    assert any("NOTE_BODY_UV: never bare pytest here." in t for t in texts[1:]), describe(proc)
    assert "NOTE_BODY_INVOICES" not in all_text(request)
    # the title-generation request does not get the catalog
    (title,) = [r for r in opencode.mock.requests if r not in opencode.main_requests()]
    assert not any(s.startswith("# Project knowledge base") for s in _system(title))
    no_hook_errors(opencode.repo)


def test_a_pre_tool_anchored_note_reaches_the_model_beside_the_result(opencode: OpenCode) -> None:
    opencode.note("--title", "Reading files with cat", "--description", "Printing files",
                  "--kind", "gotcha", "--anchor-command", r"^cat\b", "--enforce", "warn",
                  "--body", "PRETOOL_NOTE_BODY: prefer a pager.")  # fmt: skip
    proc = opencode.run("PROBE_TOOL go ahead")  # the mock answers with `cat hello.txt`
    first, second = opencode.main_requests()
    assert "PRETOOL_NOTE_BODY" not in all_text(first)
    (result,) = tool_results(second)
    assert result.startswith(HELLO_TEXT), describe(proc)  # warn does not block
    assert "PRETOOL_NOTE_BODY: prefer a pager." in result
    no_hook_errors(opencode.repo)


def test_a_deny_note_stops_the_tool(opencode: OpenCode) -> None:
    opencode.note("--title", "Never print hello.txt", "--description", "The greeting file",
                  "--kind", "prohibition", "--anchor-command", r"hello\.txt", "--enforce", "deny",
                  "--body", "It is generated; read the template instead.")  # fmt: skip
    proc = opencode.run("PROBE_TOOL go ahead")
    _, second = opencode.main_requests()
    (result,) = tool_results(second)
    assert "Never print hello.txt" in result, describe(proc)
    assert HELLO_TEXT not in result
    no_hook_errors(opencode.repo)


def test_the_session_is_staged_for_extraction(opencode: OpenCode) -> None:
    teaching = "no, we always use `uv run pytest` here, never bare pytest"
    proc = opencode.run(teaching)
    # `opencode run` exits without waiting for plugins: the plugin starts the capture detached
    logs = wait_for(lambda: sorted((opencode.repo / ".lorebook/_sessions").glob("opencode-*.json")))
    assert len(logs) == 1, describe(proc)
    log = staged_log(logs[0])
    assert [t["text"] for t in log["turns"] if t["role"] == "user"] == [teaching]  # unquoted
    assert any(t["role"] == "assistant" and t["text"] == "ok" for t in log["turns"])
    opencode.lorebook("extract", "--json")
    proposals = json.loads(logs[0].read_text())["proposals"]
    assert any(teaching in p["quote"] for p in proposals), proposals
    no_hook_errors(opencode.repo)


def test_init_twice_changes_no_byte_and_uninstall_leaves_the_users_files(
    opencode_home: Path, mock_chat: MockChat, e2e_repo: Path
) -> None:
    plugin = write_user_files(e2e_repo)
    client = OpenCode(Path("opencode"), opencode_home, mock_chat, e2e_repo)
    client.lorebook("init", "--harnesses", "opencode")
    ours = e2e_repo / ".opencode/plugins/lorebook.js"
    assert ours.read_text().startswith("// lorebook:managed-plugin")

    def files() -> dict[Path, bytes]:
        skip = (".git", ".cache")
        return {p: p.read_bytes() for p in e2e_repo.rglob("*")
                if p.is_file() and not set(p.parts) & set(skip)}  # fmt: skip

    first = files()
    client.lorebook("init", "--harnesses", "opencode")
    assert files() == first
    client.lorebook("uninstall", "--harnesses", "opencode")
    assert not ours.exists()
    assert plugin.read_text() == USER_PLUGIN
    assert (e2e_repo / "AGENTS.md").read_text() == USER_AGENTS_MD
