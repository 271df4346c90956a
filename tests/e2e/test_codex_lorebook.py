"""lorebook wired into the real Codex CLI, proven from what the model received.

Each test runs `lorebook init --harnesses codex` in a fresh git repository that already has the
user's own `.codex/hooks.json` and AGENTS.md, adds notes with the real CLI, then runs
`codex exec` against our mock Responses API and asserts on the requests the mock recorded.
lorebook runs with the same HOME and CODEX_HOME as the client, so nothing it might write for
Codex lands in the real ~/.codex. Hook trust is bypassed on every client run; recording trust
is covered by the plugin's unit tests.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.codex_cli import CodexRunner, codex_env, describe
from tests.e2e.conftest import HELLO_TEXT
from tests.e2e.mock_responses import (
    MockResponses,
    all_text,
    developer_texts,
    exec_output,
    function_call_outputs,
)

pytestmark = pytest.mark.e2e

USER_HOOK = f"{sys.executable} -c \"print('USER_OWN_HOOK_RAN')\""
USER_HOOKS = {
    "hooks": {
        "UserPromptSubmit": [{"hooks": [{"type": "command", "command": USER_HOOK, "timeout": 30}]}]
    }
}
USER_HOOKS_TEXT = json.dumps(USER_HOOKS, indent=2) + "\n"
USER_AGENTS_MD = "# Team notes\n\nBe brief.\n"


def lorebook(repo: Path, codex_home: Path, *args: str) -> str:
    proc = subprocess.run(
        [sys.executable, "-m", "lorebook", *args],
        cwd=repo,
        env=codex_env(codex_home),
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, f"lorebook {' '.join(args)}: {proc.stdout}\n{proc.stderr}"
    return proc.stdout


def write_user_files(repo: Path) -> Path:
    """The user's own Codex hooks and AGENTS.md, as a team would commit them."""
    hooks = repo / ".codex" / "hooks.json"
    hooks.parent.mkdir()
    hooks.write_text(USER_HOOKS_TEXT, encoding="utf-8")
    (repo / "AGENTS.md").write_text(USER_AGENTS_MD, encoding="utf-8")
    return hooks


@pytest.fixture
def wired(e2e_repo: Path, codex_home: Path) -> Path:
    """The user's own Codex hooks and AGENTS.md, then lorebook wired in for Codex."""
    write_user_files(e2e_repo)
    lorebook(e2e_repo, codex_home, "init", "--harnesses", "codex")
    return e2e_repo


def add_note(repo: Path, codex_home: Path, *args: str) -> None:
    lorebook(repo, codex_home, "note", "add", *args)
    lorebook(repo, codex_home, "index", "rebuild")


def around_prompt(request: dict[str, Any]) -> tuple[list[str], list[str]]:
    """The developer messages' texts right before and right after the last user message."""
    items = request["input"]
    last_user = max(i for i, item in enumerate(items) if item.get("role") == "user")

    def texts(run: Iterable[dict[str, Any]]) -> list[str]:
        found = []
        for item in run:
            if item.get("role") != "developer":
                break
            found.append(developer_texts({"input": [item]})[0])
        return found

    return texts(reversed(items[:last_user])), texts(items[last_user + 1 :])


def no_hook_errors(repo: Path) -> None:
    log = repo / ".lorebook/_logs/hook-errors.log"
    assert not log.exists(), log.read_text()


def test_session_start_and_prompt_notes_reach_the_model_and_user_hooks_survive(
    wired: Path, codex_home: Path, mock_responses: MockResponses, run_codex: CodexRunner
) -> None:
    add_note(wired, codex_home, "--title", "Run tests with uv run pytest",
             "--description", "Running the test suite", "--kind", "convention",
             "--body", "NOTE_BODY_UV: never bare pytest here.")  # fmt: skip
    add_note(wired, codex_home, "--title", "Invoices export to CSV",
             "--description", "The invoice export", "--kind", "feature",
             "--body", "NOTE_BODY_INVOICES")  # fmt: skip
    proc = run_codex(wired, "how do I run the pytest suite in this repo?")
    requests = mock_responses.main_requests()
    assert requests, describe(proc)
    first = all_text(requests[0])
    assert "# Project knowledge base" in first, describe(proc)  # ENTRY.md, at session start
    assert "- [convention/](nodes/convention/index.md): 1 note." in first
    assert "lorebook status: 2 notes" in first
    assert "NOTE_BODY_UV: never bare pytest here." in first  # the prompt-matched note
    assert "NOTE_BODY_INVOICES" not in first  # the unrelated note is not served
    assert "USER_OWN_HOOK_RAN" in first  # the user's own hook still runs beside ours
    assert "Project knowledge base (lorebook)" in first  # the pointer block in AGENTS.md
    assert "Be brief." in first  # ... beside the user's own AGENTS.md text
    # Codex's channel for hook context: developer messages, the session's before the prompt
    # and the prompt's after it.
    before, after = around_prompt(requests[0])
    assert any(t.startswith("# Project knowledge base") for t in before)
    assert any("NOTE_BODY_UV" in t for t in after)
    assert "USER_OWN_HOOK_RAN" in "\n".join(after)
    no_hook_errors(wired)


def test_a_resumed_session_is_not_given_the_same_catalog_twice(
    wired: Path, codex_home: Path, mock_responses: MockResponses, run_codex: CodexRunner
) -> None:
    """`codex exec resume --last` keeps the first session start's context in its history and
    appends the new one: the same catalog again would be said twice."""
    run_codex(wired, "say hi")
    proc = run_codex(wired, "say hi again", resume_last=True)
    resumed = mock_responses.main_requests()[-1]
    catalogs = [t for t in developer_texts(resumed) if t.startswith("# Project knowledge base")]
    assert len(catalogs) == 1, describe(proc)
    no_hook_errors(wired)


def test_an_unrelated_prompt_gets_no_note(
    wired: Path, codex_home: Path, mock_responses: MockResponses, run_codex: CodexRunner
) -> None:
    add_note(wired, codex_home, "--title", "Run tests with uv run pytest",
             "--description", "Running the test suite", "--kind", "convention",
             "--body", "NOTE_BODY_UV")  # fmt: skip
    proc = run_codex(wired, "say hi")
    requests = mock_responses.main_requests()
    assert requests, describe(proc)
    text = "\n".join(all_text(r) for r in requests)
    assert "# Project knowledge base" in text, describe(proc)
    assert "NOTE_BODY_UV" not in text
    no_hook_errors(wired)


def test_a_pre_tool_anchored_note_reaches_the_model(
    wired: Path, codex_home: Path, mock_responses: MockResponses, run_codex: CodexRunner
) -> None:
    add_note(wired, codex_home, "--title", "Reading files with cat",
             "--description", "Printing files", "--kind", "gotcha",
             "--anchor-command", r"^cat\b", "--enforce", "warn",
             "--body", "PRETOOL_NOTE_BODY: prefer a pager.")  # fmt: skip
    proc = run_codex(wired, "PROBE_TOOL go ahead")
    requests = mock_responses.main_requests()
    assert len(requests) == 2, describe(proc)
    assert "PRETOOL_NOTE_BODY" not in all_text(requests[0])
    after_tool = all_text(requests[1])
    assert "PRETOOL_NOTE_BODY: prefer a pager." in after_tool, describe(proc)
    assert any("PRETOOL_NOTE_BODY" in t for t in developer_texts(requests[1]))
    outputs = function_call_outputs(requests[1], last_only=True)
    assert [exec_output(o) for o in outputs] == [HELLO_TEXT]  # warn does not block
    no_hook_errors(wired)


def test_a_deny_note_stops_the_tool(
    wired: Path, codex_home: Path, mock_responses: MockResponses, run_codex: CodexRunner
) -> None:
    add_note(wired, codex_home, "--title", "Never print hello.txt",
             "--description", "The greeting file", "--kind", "prohibition",
             "--anchor-command", r"hello\.txt", "--enforce", "deny",
             "--body", "It is generated; read the template instead.")  # fmt: skip
    proc = run_codex(wired, "PROBE_TOOL please print hello.txt")
    requests = mock_responses.main_requests()
    assert len(requests) == 2, describe(proc)
    outputs = function_call_outputs(requests[1], last_only=True)
    assert len(outputs) == 1, describe(proc)
    assert "Never print hello.txt" in outputs[0]
    assert "read the template instead" in outputs[0]
    assert HELLO_TEXT not in outputs[0]
    no_hook_errors(wired)


def test_uninstall_restores_the_users_hooks_exactly(e2e_repo: Path, codex_home: Path) -> None:
    hooks = write_user_files(e2e_repo)
    lorebook(e2e_repo, codex_home, "init", "--harnesses", "codex")
    wired_hooks = json.loads(hooks.read_text())
    commands = [
        h["command"] for group in wired_hooks["hooks"]["UserPromptSubmit"] for h in group["hooks"]
    ]
    assert any(".lorebook/bin/hook" in c and "codex UserPromptSubmit" in c for c in commands)
    assert USER_HOOK in commands
    assert "PreToolUse" in wired_hooks["hooks"]
    assert "SessionStart" in wired_hooks["hooks"]

    lorebook(e2e_repo, codex_home, "uninstall", "--harnesses", "codex")

    assert hooks.read_text() == USER_HOOKS_TEXT
    assert (e2e_repo / "AGENTS.md").read_text() == USER_AGENTS_MD
    assert not (e2e_repo / ".lorebook/bin/hook").exists()


INDEX_CACHE = ".lorebook/.cache/index.sqlite"


def snapshot(*roots: Path) -> dict[str, bytes]:
    """Every file under the roots (``.git`` excepted), by path, with its bytes.

    The note index (a per-machine SQLite cache, git-ignored) is taken by content: ``init``
    reopens it for writing, which bumps SQLite's file change counter without changing a row.
    """
    files: dict[str, bytes] = {}
    for root in roots:
        for path in sorted(root.rglob("*")):
            if not path.is_file() or ".git" in path.relative_to(root).parts:
                continue
            if path.relative_to(root).as_posix() == INDEX_CACHE:
                with contextlib.closing(sqlite3.connect(path)) as db:
                    files[str(path)] = "\n".join(db.iterdump()).encode()
            else:
                files[str(path)] = path.read_bytes()
    return files


def test_init_for_claude_and_codex_twice_changes_no_byte(e2e_repo: Path, codex_home: Path) -> None:
    write_user_files(e2e_repo)
    (e2e_repo / "CLAUDE.md").write_text(USER_AGENTS_MD, encoding="utf-8")
    lorebook(e2e_repo, codex_home, "init", "--harnesses", "claude,codex")
    first = snapshot(e2e_repo, codex_home)
    for wired_file in (".claude/settings.json", ".codex/hooks.json", "AGENTS.md", "CLAUDE.md"):
        assert b"lorebook" in first[str(e2e_repo / wired_file)], wired_file
    assert str(e2e_repo / INDEX_CACHE) in first

    lorebook(e2e_repo, codex_home, "init", "--harnesses", "claude,codex")

    second = snapshot(e2e_repo, codex_home)
    assert second.keys() == first.keys()
    assert [p for p in first if first[p] != second[p]] == []
