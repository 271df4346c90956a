"""``uninstall`` gives back exactly what ``init`` found, and both say what they did
(everyday-use issue round 2, item 8)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from lorebook.mcp_config import sdk_installed
from tests.conftest import CliRunner

needs_sdk = pytest.mark.skipif(not sdk_installed(), reason="the mcp extra is not installed")

CURSOR_MCP = """{
  "mcpServers": {
    "mine": {
      "command": "npx",
      "args": ["mcp", "start"]
    }
  }
}
"""


@pytest.mark.parametrize("text", ["# Team\n\nBe brief.", "# Team\n\nBe brief.\n", "# T\n\n\n"])
def test_uninstall_gives_back_claude_md_byte_for_byte(
    kb_repo: Path, cli: CliRunner, text: str
) -> None:
    (kb_repo / "CLAUDE.md").write_text(text, encoding="utf-8")
    assert cli("init", "--harnesses", "claude", cwd=kb_repo).exit_code == 0
    assert "lorebook:begin" in (kb_repo / "CLAUDE.md").read_text(encoding="utf-8")
    assert cli("uninstall", cwd=kb_repo).exit_code == 0
    assert (kb_repo / "CLAUDE.md").read_bytes() == text.encode()


def test_instructions_kept_in_dot_claude_get_the_block_and_no_new_root_file(
    kb_repo: Path, cli: CliRunner
) -> None:
    # Claude Code reads .claude/CLAUDE.md as well as CLAUDE.md: a project that keeps its
    # instructions there got a new root CLAUDE.md from init.
    mine = kb_repo / ".claude/CLAUDE.md"
    mine.parent.mkdir()
    mine.write_text("# Team\n\nBe brief.\n", encoding="utf-8")
    assert cli("init", "--harnesses", "claude", cwd=kb_repo).exit_code == 0
    assert not (kb_repo / "CLAUDE.md").exists()
    assert "lorebook:begin" in mine.read_text(encoding="utf-8")
    doctor = cli("doctor", "--json", cwd=kb_repo).json()
    assert not [c for c in doctor["checks"] if "pointer" in c["name"]]
    assert "nothing changed" in cli("init", cwd=kb_repo).stdout
    assert cli("uninstall", cwd=kb_repo).exit_code == 0
    assert mine.read_text(encoding="utf-8") == "# Team\n\nBe brief.\n"
    assert not (kb_repo / "CLAUDE.md").exists()


def test_a_claude_md_that_imports_agents_md_gets_no_second_block(
    kb_repo: Path, cli: CliRunner
) -> None:
    # Claude Code reads CLAUDE.md and what it imports: with Codex wired too, it read the
    # pointer block twice every session (469 characters each, said `lorebook stats`).
    (kb_repo / "AGENTS.md").write_text("# Agents\n\nBe brief.\n", encoding="utf-8")
    (kb_repo / "CLAUDE.md").write_text("@AGENTS.md\n", encoding="utf-8")
    assert cli("init", "--harnesses", "claude,codex", cwd=kb_repo).exit_code == 0
    assert (kb_repo / "CLAUDE.md").read_text(encoding="utf-8") == "@AGENTS.md\n"
    assert "lorebook:begin" in (kb_repo / "AGENTS.md").read_text(encoding="utf-8")
    doctor = cli("doctor", "--json", cwd=kb_repo).json()
    assert not [c for c in doctor["checks"] if "pointer" in c["name"]]
    assert "nothing changed" in cli("init", cwd=kb_repo).stdout
    assert cli("uninstall", cwd=kb_repo).exit_code == 0
    assert (kb_repo / "AGENTS.md").read_text(encoding="utf-8") == "# Agents\n\nBe brief.\n"


SETTINGS = """{
    "permissions": {
        "deny": ["Read(./.entire/metadata/**)"]
    },
    "model": "opus"
}
"""


@pytest.mark.parametrize("harness", ["claude", "codex", "copilot", "cursor"])
def test_uninstall_gives_back_a_hooks_file_in_its_own_format(
    kb_repo: Path, cli: CliRunner, harness: str
) -> None:
    # 4-space indent and a one-line array: lorebook writes 2 spaces, an item a line
    files = {
        "claude": ".claude/settings.json", "codex": ".codex/hooks.json",
        "copilot": ".github/hooks/lorebook.json", "cursor": ".cursor/hooks.json",
    }  # fmt: skip
    settings = kb_repo / files[harness]
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(SETTINGS, encoding="utf-8")
    assert cli("init", "--harnesses", harness, cwd=kb_repo).exit_code == 0
    assert settings.read_text(encoding="utf-8") != SETTINGS  # our hooks are in it
    assert cli("uninstall", cwd=kb_repo).exit_code == 0
    assert settings.read_text(encoding="utf-8") == SETTINGS


@needs_sdk
def test_init_and_uninstall_say_created_and_removed(kb_repo: Path, cli: CliRunner) -> None:
    (kb_repo / "CLAUDE.md").write_text("# Team\n", encoding="utf-8")
    init = cli("init", "--harnesses", "claude", cwd=kb_repo)
    assert init.exit_code == 0, init.stderr
    lines = init.stdout.splitlines()
    assert "  created .mcp.json" in lines
    assert "  created .claude/settings.json" in lines
    assert "  changed CLAUDE.md" in lines
    assert (kb_repo / ".lorebook/bin/mcp").is_file()
    as_json = cli("init", "--harnesses", "cursor", "--json", cwd=kb_repo).json()
    assert ".cursor/mcp.json" in as_json["created"]
    gone = cli("uninstall", cwd=kb_repo)
    assert gone.exit_code == 0, gone.stderr
    lines = gone.stdout.splitlines()
    assert "  removed .mcp.json" in lines
    assert "  removed .claude/settings.json" in lines
    assert "  removed .lorebook/bin/mcp" in lines
    assert "  changed CLAUDE.md" in lines
    assert not any(line.startswith("  changed .mcp") for line in lines)
    assert not (kb_repo / ".lorebook/bin").exists()  # the MCP launcher went with the rest


@needs_sdk
def test_init_keeps_the_users_formatting_of_cursor_mcp_json(kb_repo: Path, cli: CliRunner) -> None:
    mcp = kb_repo / ".cursor/mcp.json"
    mcp.parent.mkdir()
    mcp.write_text(CURSOR_MCP, encoding="utf-8")
    assert cli("init", "--harnesses", "cursor", cwd=kb_repo).exit_code == 0
    text = mcp.read_text(encoding="utf-8")
    assert '      "args": ["mcp", "start"]\n' in text  # one line, as the user wrote it
    assert text.startswith(CURSOR_MCP[: CURSOR_MCP.index("    }\n") + 6].rstrip("\n"))
    servers = json.loads(text)["mcpServers"]
    assert servers["lorebook"] == {"type": "stdio", "command": ".lorebook/bin/mcp", "args": []}
    assert cli("init", "--harnesses", "cursor", "--json", cwd=kb_repo).json()["changed"] == []
    assert cli("uninstall", cwd=kb_repo).exit_code == 0
    assert mcp.read_text(encoding="utf-8") == CURSOR_MCP


@needs_sdk
def test_init_says_when_git_ignores_a_file_it_wrote(kb_repo: Path, cli: CliRunner) -> None:
    (kb_repo / ".gitignore").write_text(".mcp.json\n", encoding="utf-8")
    init = cli("init", "--harnesses", "claude", cwd=kb_repo)
    assert init.exit_code == 0, init.stderr
    assert (
        "  git ignores .mcp.json (this repository's .gitignore), so a commit leaves it out: "
        "`git add -f .mcp.json` to share it"
    ) in init.stdout.splitlines()
    subprocess.run(["git", "add", "-f", ".mcp.json"], cwd=kb_repo, check=True)
    assert cli("uninstall", cwd=kb_repo).exit_code == 0
    again = cli("init", "--harnesses", "claude", cwd=kb_repo)
    assert "  created .mcp.json" in again.stdout.splitlines()
    assert "git ignores" not in again.stdout  # tracked now: nothing to say
