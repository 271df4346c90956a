"""What each harness declares its host loads by itself (``loaded_files``) is what the real
client put in the model's request: a file is declared exactly when its text reached the model.

Each candidate instruction file holds a unique marker; the client runs once in a repository
holding all of them, and the request the mock model received is searched for every marker.
A file declared but not sent would cost the model the notes derived from it; a file sent but
not declared costs only a repeat.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lorebook_claude import events as claude_events
from lorebook_codex import events as codex_events
from lorebook_copilot import events as copilot_events
from lorebook_opencode import events as opencode_events
from tests.e2e.codex_cli import CodexRunner, describe
from tests.e2e.conftest import ClaudeRunner
from tests.e2e.copilot_cli import copilot_env, run_copilot, trust_folder
from tests.e2e.mock_anthropic import MockAnthropic, all_text
from tests.e2e.mock_chat import MockChat, all_text as chat_text
from tests.e2e.mock_responses import MockResponses, all_text as codex_text
from tests.e2e.opencode_cli import opencode_env, run_opencode, write_config

pytestmark = pytest.mark.e2e

CANDIDATES = (
    "CLAUDE.md",
    ".claude/CLAUDE.md",
    "CLAUDE.local.md",
    "docs/imported.md",
    "docs/imported-twice.md",
    "docs/in-code.md",
    "docs/not-imported.md",
    "AGENTS.md",
    "AGENTS.override.md",
    "sub/AGENTS.md",
    "sub/CLAUDE.md",
    "sub/local.md",
    "other/AGENTS.md",
    ".github/copilot-instructions.md",
    "GEMINI.md",
    "rules/extra.md",
    "docs/agents-imported.md",
    "docs/punct.md",
)


def marker(rel: str) -> str:
    return "LOADED_MARKER_" + "".join(c if c.isalnum() else "_" for c in rel).upper()


def write_candidates(repo: Path, *, override: bool) -> None:
    """Every candidate, holding its marker; CLAUDE.md imports two files, one in code."""
    for rel in CANDIDATES:
        if rel == "AGENTS.override.md" and not override:
            continue
        path = repo / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        text = f"# {rel}\n\n{marker(rel)}\n"
        if rel == "CLAUDE.md":
            text += "\nSee @docs/imported.md for more. And `@docs/in-code.md` is code.\n"
            text += "Then @docs/punct.md.\n"  # Claude Code reads `docs/punct.md.`: no file
        if rel == "docs/imported.md":
            text += "\nAnd @imported-twice.md too.\n"
        if rel == "AGENTS.md":
            text += "\nSee @docs/agents-imported.md.\n"
        if rel == "sub/CLAUDE.md":
            text += "\nSee @local.md and @../docs/not-imported.md.\n"
        path.write_text(text, encoding="utf-8")


def sent(text: str) -> set[str]:
    return {rel for rel in CANDIDATES if marker(rel) in text}


def test_claude_code_loads_exactly_what_the_claude_plugin_declares(
    e2e_repo: Path, mock_anthropic: MockAnthropic, run_claude: ClaudeRunner
) -> None:
    write_candidates(e2e_repo, override=False)
    proc = run_claude(e2e_repo, "say hi")
    (request,) = mock_anthropic.main_requests()
    declared = claude_events.loaded_files(str(e2e_repo), str(e2e_repo))
    assert sent(all_text(request)) == declared & set(CANDIDATES), describe(proc)
    assert {"CLAUDE.md", "docs/imported.md", "docs/imported-twice.md"} <= declared


def test_claude_code_in_a_subfolder_loads_that_folders_claude_md(
    e2e_repo: Path, mock_anthropic: MockAnthropic, run_claude: ClaudeRunner
) -> None:
    """Run in ``sub/``: an import of a file outside ``sub/`` is not loaded (it waits for the
    user's approval), one inside is."""
    write_candidates(e2e_repo, override=False)
    proc = run_claude(e2e_repo / "sub", "say hi")
    (request,) = mock_anthropic.main_requests()
    declared = claude_events.loaded_files(str(e2e_repo), str(e2e_repo / "sub"))
    assert {"sub/CLAUDE.md", "sub/local.md"} <= declared
    assert "docs/imported.md" not in declared
    assert sent(all_text(request)) == declared & set(CANDIDATES), describe(proc)


@pytest.mark.parametrize("override", [False, True], ids=["agents", "override"])
def test_codex_loads_exactly_what_the_codex_plugin_declares(
    e2e_repo: Path,
    mock_responses: MockResponses,
    run_codex: CodexRunner,
    override: bool,
) -> None:
    write_candidates(e2e_repo, override=override)
    proc = run_codex(e2e_repo / "sub", "say hi")
    requests = mock_responses.main_requests()
    assert requests, describe(proc)
    declared = codex_events.loaded_files(str(e2e_repo), str(e2e_repo / "sub"))
    assert "CLAUDE.md" not in declared
    assert sent(codex_text(requests[0])) == declared & set(CANDIDATES), describe(proc)


@pytest.mark.parametrize("where", ["", "sub"], ids=["root", "subfolder"])
def test_copilot_loads_exactly_what_the_copilot_plugin_declares(
    e2e_repo: Path,
    copilot_bin: Path,
    copilot_home: Path,
    client_cache: Path,
    mock_chat: MockChat,
    where: str,
) -> None:
    write_candidates(e2e_repo, override=False)
    cwd = e2e_repo / where
    trust_folder(copilot_home, e2e_repo)
    env = copilot_env(copilot_home, client_cache, mock_chat.url)
    proc = run_copilot(copilot_bin, cwd, env, "say hi")
    assert mock_chat.requests, describe(proc)
    declared = copilot_events.loaded_files(str(e2e_repo), str(cwd))
    assert sent(chat_text(mock_chat.requests[0])) == declared & set(CANDIDATES), describe(proc)


@pytest.mark.parametrize("agents", [True, False], ids=["agents", "no-agents"])
def test_opencode_loads_exactly_what_the_opencode_plugin_declares(
    e2e_repo: Path, opencode_bin: Path, opencode_home: Path, mock_chat: MockChat, agents: bool
) -> None:
    write_candidates(e2e_repo, override=False)
    if not agents:
        for rel in ("AGENTS.md", "sub/AGENTS.md", "other/AGENTS.md"):
            (e2e_repo / rel).unlink()
    config = write_config(e2e_repo, mock_chat.url)
    data = json.loads(config.read_text(encoding="utf-8"))
    config.write_text(json.dumps({**data, "instructions": ["rules/*.md"]}), encoding="utf-8")
    proc = run_opencode(opencode_bin, e2e_repo, opencode_env(opencode_home), "say hi")
    requests = [r for r in mock_chat.requests if "title generator" not in chat_text(r)]
    assert requests, describe(proc)
    declared = opencode_events.loaded_files(str(e2e_repo), str(e2e_repo))
    assert "rules/extra.md" in declared
    assert sent(chat_text(requests[0])) == declared & set(CANDIDATES), describe(proc)


def link_instructions(repo: Path, link: str, target: str) -> None:
    """``link`` made a symbolic link to ``target``, each candidate otherwise as usual."""
    write_candidates(repo, override=False)
    (repo / link).unlink()
    (repo / link).symlink_to(target)


def test_claude_code_reads_a_claude_md_linked_to_agents_md(
    e2e_repo: Path, mock_anthropic: MockAnthropic, run_claude: ClaudeRunner
) -> None:
    """CLAUDE.md -> AGENTS.md, a common layout: Claude Code is sent AGENTS.md's text, so
    the notes bootstrap took from AGENTS.md are not served to it again."""
    link_instructions(e2e_repo, "CLAUDE.md", "AGENTS.md")
    proc = run_claude(e2e_repo, "say hi")
    (request,) = mock_anthropic.main_requests()
    declared = claude_events.loaded_files(str(e2e_repo), str(e2e_repo))
    assert "AGENTS.md" in declared
    assert sent(all_text(request)) == declared & set(CANDIDATES), describe(proc)


def test_codex_reads_an_agents_md_linked_to_claude_md(
    e2e_repo: Path, mock_responses: MockResponses, run_codex: CodexRunner
) -> None:
    link_instructions(e2e_repo, "AGENTS.md", "CLAUDE.md")
    proc = run_codex(e2e_repo, "say hi")
    requests = mock_responses.main_requests()
    assert requests, describe(proc)
    declared = codex_events.loaded_files(str(e2e_repo), str(e2e_repo))
    assert "CLAUDE.md" in declared
    assert sent(codex_text(requests[0])) == declared & set(CANDIDATES), describe(proc)
