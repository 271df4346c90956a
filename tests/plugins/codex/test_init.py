"""``lorebook init --harnesses claude,codex`` in a repository with the user's own hooks."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from lorebook_claude.settings import hook_command as claude_command
from lorebook_codex.hooks_file import hook_command
from tests.conftest import CliRunner

USER_CODEX: dict[str, Any] = {
    "hooks": {
        "UserPromptSubmit": [
            {"hooks": [{"type": "command", "command": "./mine.sh", "timeout": 5}]}
        ],
        "PostCompact": [{"hooks": [{"type": "command", "command": "echo compacted"}]}],
    }
}
USER_CLAUDE: dict[str, Any] = {
    "permissions": {"allow": ["Bash(make:*)"]},
    "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "./notify.sh"}]}]},
}
USER_AGENTS = "# Team notes\n\nBe brief.\n"


def _snapshot(root: Path) -> dict[str, bytes]:
    skip = (".git/", ".lorebook/.cache", ".lorebook/.state", ".lorebook/_logs")
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and not p.relative_to(root).as_posix().startswith(skip)
    }


def _write(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")


def test_init_wires_claude_and_codex_keeping_the_users_hooks(kb_repo: Path, cli: CliRunner) -> None:
    _write(kb_repo / ".codex" / "hooks.json", USER_CODEX)
    _write(kb_repo / ".claude" / "settings.json", USER_CLAUDE)
    (kb_repo / "AGENTS.md").write_text(USER_AGENTS, encoding="utf-8")

    first = cli("init", "--harnesses", "claude,codex", "--json", cwd=kb_repo)
    assert first.exit_code == 0, first.stdout + first.stderr
    report = first.json()
    assert report["harnesses"] == ["claude", "codex"]
    assert {".codex/hooks.json", ".claude/settings.json", "AGENTS.md", "CLAUDE.md"} <= set(
        report["changed"]
    )

    codex = json.loads((kb_repo / ".codex/hooks.json").read_text(encoding="utf-8"))["hooks"]
    mine, ours = codex["UserPromptSubmit"]
    assert mine == USER_CODEX["hooks"]["UserPromptSubmit"][0]
    assert ours["hooks"][0]["command"] == hook_command("UserPromptSubmit")
    assert codex["PostCompact"] == USER_CODEX["hooks"]["PostCompact"]
    claude = json.loads((kb_repo / ".claude/settings.json").read_text(encoding="utf-8"))
    assert claude["permissions"] == USER_CLAUDE["permissions"]
    user_stop, our_stop = claude["hooks"]["Stop"]
    assert user_stop == USER_CLAUDE["hooks"]["Stop"][0]
    assert our_stop["hooks"][0]["command"] == claude_command("Stop")
    agents = (kb_repo / "AGENTS.md").read_text(encoding="utf-8")
    assert agents.startswith(USER_AGENTS)
    assert len(agents) > len(USER_AGENTS)  # the pointer block, after the user's text

    before = _snapshot(kb_repo)
    second = cli("init", "--harnesses", "claude,codex", "--json", cwd=kb_repo)
    assert second.exit_code == 0, second.stdout + second.stderr
    assert second.json()["changed"] == []
    assert _snapshot(kb_repo) == before
    third = cli("init", "--json", cwd=kb_repo)  # a teammate's plain init: the same harnesses
    assert (third.exit_code, third.json()["changed"]) == (0, [])
    assert _snapshot(kb_repo) == before


def test_uninstalling_codex_keeps_claude_and_the_users_codex_hooks(
    kb_repo: Path, cli: CliRunner
) -> None:
    _write(kb_repo / ".codex" / "hooks.json", USER_CODEX)
    original = (kb_repo / ".codex" / "hooks.json").read_bytes()
    assert cli("init", "--harnesses", "claude,codex", cwd=kb_repo).exit_code == 0
    result = cli("uninstall", "--harnesses", "codex", "--json", cwd=kb_repo)
    assert result.exit_code == 0, result.stdout + result.stderr
    assert (kb_repo / ".codex" / "hooks.json").read_bytes() == original
    assert "claude" in (kb_repo / ".claude/settings.json").read_text(encoding="utf-8")
    assert not (kb_repo / "AGENTS.md").exists()  # only Codex read it, and we created it
