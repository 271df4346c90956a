"""lorebook wired into the real GitHub Copilot CLI, proven from what the model received.

Each test runs `lorebook init --harnesses copilot` in a fresh git repository that already has
the user's own `.github/hooks/` file and AGENTS.md, adds notes with the real CLI, then runs
`copilot -p` offline against our mock Chat Completions API and asserts on the requests the mock
recorded. The folder is trusted the way Copilot's own trust dialog records it
(`trustedFolders` in `$COPILOT_HOME/config.json`), except in the test that shows what an
untrusted folder does.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.clients import describe
from tests.e2e.conftest import HELLO_TEXT
from tests.e2e.copilot_cli import copilot_env, run_copilot, trust_folder
from tests.e2e.mock_chat import MockChat, all_text, tool_results
from tests.e2e.staged import wait_staged, wait_turns

pytestmark = pytest.mark.e2e

USER_HOOKS = {
    "version": 1,
    "hooks": {"userPromptSubmitted": [{"type": "command", "bash": "echo ran >> user-hook-ran.txt"}]},
}  # fmt: skip
USER_HOOKS_TEXT = json.dumps(USER_HOOKS, indent=2) + "\n"
USER_AGENTS_MD = "# Team notes\n\nBe brief.\n"


class Copilot:
    """One test's Copilot: its HOME, the mock, and lorebook run with the same environment."""

    def __init__(self, binary: Path, home: Path, cache: Path, mock: MockChat, repo: Path) -> None:
        self.binary, self.home, self.mock, self.repo = binary, home, mock, repo
        self.env = copilot_env(home, cache, mock.url)

    def lorebook(self, *args: str) -> str:
        proc = subprocess.run([sys.executable, "-m", "lorebook", *args], cwd=self.repo,
                              env=self.env, capture_output=True, text=True, check=False)  # fmt: skip
        assert proc.returncode == 0, f"lorebook {' '.join(args)}: {proc.stdout}\n{proc.stderr}"
        return proc.stdout

    def note(self, *args: str) -> None:
        self.lorebook("note", "add", *args)
        self.lorebook("index", "rebuild")

    def run(self, prompt: str, *extra: str) -> subprocess.CompletedProcess[str]:
        return run_copilot(self.binary, self.repo, self.env, prompt, *extra)


def write_user_files(repo: Path) -> Path:
    hooks = repo / ".github" / "hooks" / "team.json"
    hooks.parent.mkdir(parents=True)
    hooks.write_text(USER_HOOKS_TEXT, encoding="utf-8")
    (repo / "AGENTS.md").write_text(USER_AGENTS_MD, encoding="utf-8")
    return hooks


@pytest.fixture
def copilot(
    copilot_bin: Path, copilot_home: Path, client_cache: Path, mock_chat: MockChat, e2e_repo: Path
) -> Copilot:
    """The user's own hooks and AGENTS.md, lorebook wired for Copilot, the folder trusted."""
    write_user_files(e2e_repo)
    client = Copilot(copilot_bin, copilot_home, client_cache, mock_chat, e2e_repo)
    client.lorebook("init", "--harnesses", "copilot")
    trust_folder(copilot_home, e2e_repo)
    return client


def no_hook_errors(repo: Path) -> None:
    log = repo / ".lorebook/_logs/hook-errors.log"
    assert not log.exists(), log.read_text()


def test_the_catalog_and_the_prompt_matched_note_reach_the_model(copilot: Copilot) -> None:
    copilot.note("--title", "Run tests with uv run pytest", "--description", "Running the test suite",
                 "--kind", "convention", "--body", "NOTE_BODY_UV: never bare pytest here.")  # fmt: skip
    copilot.note("--title", "Invoices export to CSV", "--description", "The invoice export",
                 "--kind", "feature", "--body", "NOTE_BODY_INVOICES")  # fmt: skip
    proc = copilot.run("how do I run the pytest suite in this repo?")
    (request,) = copilot.mock.requests
    messages = request["messages"]
    # sessionStart's additionalContext: its own user message right after the system prompt
    assert messages[1]["role"] == "user", describe(proc)
    assert messages[1]["content"].startswith("# Project knowledge base"), describe(proc)
    assert "lorebook status: 2 notes" in messages[1]["content"]
    # userPromptSubmitted's additionalContext: a <system_reminder> appended to the prompt
    prompt = messages[-1]["content"]
    assert "how do I run the pytest suite" in prompt
    assert "NOTE_BODY_UV: never bare pytest here." in prompt.split("<system_reminder>", 1)[1]
    assert "NOTE_BODY_INVOICES" not in all_text(request)  # the unrelated note is not served
    assert (copilot.repo / "user-hook-ran.txt").read_text() == "ran\n"  # the user's own hook too
    assert "Project knowledge base (lorebook)" in messages[0]["content"]  # AGENTS.md pointer
    assert "Be brief." in messages[0]["content"]
    no_hook_errors(copilot.repo)


def test_a_resumed_session_gets_the_catalog_again(copilot: Copilot) -> None:
    """`copilot --continue` replays the history without the first session start's context:
    the catalog must come again (it was suppressed as already given, and the model lost it)."""
    copilot.run("say hi")
    copilot.run("and again", "--continue")
    first, resumed = copilot.mock.requests

    def catalogs(request: dict[str, Any]) -> int:
        return sum(
            m["role"] == "user" and str(m["content"]).startswith("# Project knowledge base")
            for m in request["messages"]
        )

    assert catalogs(first) == 1
    assert catalogs(resumed) == 1, [str(m["content"])[:80] for m in resumed["messages"]]
    no_hook_errors(copilot.repo)


def test_a_pre_tool_anchored_note_reaches_the_model_beside_the_result(copilot: Copilot) -> None:
    copilot.note("--title", "Reading files with cat", "--description", "Printing files",
                 "--kind", "gotcha", "--anchor-command", r"^cat\b", "--enforce", "warn",
                 "--body", "PRETOOL_NOTE_BODY: prefer a pager.")  # fmt: skip
    proc = copilot.run("PROBE_TOOL go ahead")  # the mock answers with `cat hello.txt`
    requests = copilot.mock.requests
    assert len(requests) == 2, describe(proc)
    assert "PRETOOL_NOTE_BODY" not in all_text(requests[0])  # not served for the prompt
    (result,) = tool_results(requests[1])
    assert result.startswith(HELLO_TEXT)  # warn does not block
    after = requests[1]["messages"][-1]
    assert after["role"] == "user"
    assert "PRETOOL_NOTE_BODY: prefer a pager." in after["content"], describe(proc)
    no_hook_errors(copilot.repo)


def test_a_deny_note_stops_the_tool(copilot: Copilot) -> None:
    copilot.note("--title", "Never print hello.txt", "--description", "The greeting file",
                 "--kind", "prohibition", "--anchor-command", r"hello\.txt", "--enforce", "deny",
                 "--body", "It is generated; read the template instead.")  # fmt: skip
    proc = copilot.run("PROBE_TOOL please print hello.txt")
    requests = copilot.mock.requests
    assert len(requests) == 2, describe(proc)
    (result,) = tool_results(requests[1])
    assert result.startswith("Denied by preToolUse hook:"), result
    assert "Never print hello.txt" in result
    assert HELLO_TEXT not in result
    no_hook_errors(copilot.repo)


def test_the_session_is_staged_for_extraction(copilot: Copilot) -> None:
    teaching = "no, we always use `uv run pytest` here, never bare pytest"
    proc = copilot.run(teaching)
    logs = wait_staged(copilot.repo / ".lorebook/_sessions", "copilot-*.json")
    assert len(logs) == 1, describe(proc)
    log = wait_turns(logs[0], "user")
    users = [t["text"] for t in log["turns"] if t["role"] == "user"]
    assert users == [teaching]
    assert any(t["role"] == "assistant" and t["text"] == "ok" for t in log["turns"])
    assert not any(
        "Project knowledge base" in t["text"] for t in log["turns"] if not t.get("injected")
    )
    copilot.lorebook("extract", "--json")
    proposals = json.loads(logs[0].read_text())["proposals"]
    assert any(teaching in p["quote"] for p in proposals), proposals
    no_hook_errors(copilot.repo)


def test_an_untrusted_folder_runs_no_hook_and_doctor_says_what_to_do(
    copilot_bin: Path, copilot_home: Path, client_cache: Path, mock_chat: MockChat, e2e_repo: Path
) -> None:
    copilot = Copilot(copilot_bin, copilot_home, client_cache, mock_chat, e2e_repo)
    init = json.loads(copilot.lorebook("init", "--harnesses", "copilot", "--json"))
    assert any("--trust-folder" in note for note in init["notes"])
    copilot.run("say hi")
    assert "lorebook status:" not in all_text(copilot.mock.requests[0])  # skipped, silently
    doctor = subprocess.run([sys.executable, "-m", "lorebook", "doctor"], cwd=e2e_repo, env=copilot.env,
                            capture_output=True, text=True, check=False)  # fmt: skip
    assert "Copilot CLI folder trust" in doctor.stdout + doctor.stderr
    assert "trustedFolders" in doctor.stdout + doctor.stderr
    trust_folder(copilot_home, e2e_repo)
    copilot.mock.clear()
    copilot.run("say hi")
    assert "lorebook status:" in all_text(copilot.mock.requests[0])


def test_init_twice_changes_no_byte_and_uninstall_restores_the_users_files(
    copilot_home: Path, client_cache: Path, mock_chat: MockChat, e2e_repo: Path
) -> None:
    hooks = write_user_files(e2e_repo)
    copilot = Copilot(Path("copilot"), copilot_home, client_cache, mock_chat, e2e_repo)
    copilot.lorebook("init", "--harnesses", "copilot")
    ours = e2e_repo / ".github/hooks/lorebook.json"
    first = {
        p: p.read_bytes()
        for p in e2e_repo.rglob("*")
        if p.is_file() and ".git" not in p.parts and ".cache" not in p.parts
    }
    copilot.lorebook("init", "--harnesses", "copilot")
    second = {
        p: p.read_bytes()
        for p in e2e_repo.rglob("*")
        if p.is_file() and ".git" not in p.parts and ".cache" not in p.parts
    }
    assert first == second
    entry = json.loads(ours.read_text())["hooks"]["preToolUse"][0]
    assert "copilot preToolUse" in entry["bash"]
    assert "copilot preToolUse" in entry["powershell"]
    copilot.lorebook("uninstall", "--harnesses", "copilot")
    assert not ours.exists()
    assert hooks.read_text() == USER_HOOKS_TEXT
    assert (e2e_repo / "AGENTS.md").read_text() == USER_AGENTS_MD
