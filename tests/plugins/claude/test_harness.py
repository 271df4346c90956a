"""Installing lorebook's hooks into .claude/settings.json, checking and removing them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from lorebook.errors import LorebookError
from lorebook.harness import Harness
from lorebook.plugins import make_plugins
from lorebook_claude.harness import ARGV_PROMPT_LIMIT, ClaudeHarness

EVENTS = [
    "SessionStart",
    "UserPromptSubmit",
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "Stop",
    "SessionEnd",
    "PreCompact",
]
TIMEOUTS = {
    "SessionStart": 30,
    "UserPromptSubmit": 10,
    "PreToolUse": 10,
    "PostToolUse": 10,
    "PostToolUseFailure": 10,
    "Stop": 30,
    "SessionEnd": 2,
    "PreCompact": 30,
}
TOOL_EVENTS = {"PreToolUse", "PostToolUse", "PostToolUseFailure"}

USER_SETTINGS: dict[str, Any] = {
    "permissions": {"allow": ["Bash(npm run test:*)"], "deny": ["Read(./.env)"]},
    "env": {"FOO": "bar"},
    "hooks": {
        "PreToolUse": [
            {
                "matcher": "Bash",
                "hooks": [{"type": "command", "command": "./scripts/guard.sh", "timeout": 5}],
            }
        ],
        "Notification": [{"hooks": [{"type": "command", "command": "notify-send done"}]}],
    },
    "model": "sonnet",
}


def command(event: str) -> str:
    launcher = '"$CLAUDE_PROJECT_DIR/.lorebook/bin/hook"'
    return f"test -x {launcher} && {launcher} claude {event} || true"


@pytest.fixture
def harness() -> ClaudeHarness:
    return ClaudeHarness()


def settings_path(repo: Path) -> Path:
    return repo / ".claude" / "settings.json"


def read(repo: Path) -> Any:
    return json.loads(settings_path(repo).read_text(encoding="utf-8"))


def write_user_settings(repo: Path, data: Any, *, indent: int | None = 2) -> bytes:
    text = json.dumps(data, indent=indent) + ("\n" if indent else "")
    path = settings_path(repo)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path.read_bytes()


def test_it_is_a_harness_registered_with_its_event_module() -> None:
    spec = make_plugins(env={}).harness("claude")
    assert spec.event_module == "lorebook_claude.events"
    assert spec.instruction_files == ("CLAUDE.md", ".claude/CLAUDE.md")
    assert spec.description == "Claude Code"
    assert spec.factory is not None
    built = spec.factory()
    assert isinstance(built, ClaudeHarness)
    assert isinstance(built, Harness)
    assert built.name == "claude"


def test_install_in_a_fresh_repo_writes_every_hook(harness: ClaudeHarness, tmp_path: Path) -> None:
    report = harness.install(tmp_path)
    assert report.changed == (".claude/settings.json",)
    hooks = read(tmp_path)["hooks"]
    assert list(hooks) == EVENTS
    for event in EVENTS:
        (group,) = hooks[event]
        expected: dict[str, Any] = {"matcher": "*"} if event in TOOL_EVENTS else {}
        expected["hooks"] = [
            {"type": "command", "command": command(event), "timeout": TIMEOUTS[event]}
        ]
        assert group == expected
    text = settings_path(tmp_path).read_text(encoding="utf-8")
    assert text.endswith("}\n")
    assert text.startswith('{\n  "hooks": {\n    "SessionStart": [')
    assert harness.hook_commands(tmp_path) == {event: command(event) for event in EVENTS}
    assert [item.state for item in harness.check(tmp_path)] == ["ok"] * len(EVENTS)


def test_a_second_install_changes_no_byte(harness: ClaudeHarness, tmp_path: Path) -> None:
    write_user_settings(tmp_path, USER_SETTINGS)
    harness.install(tmp_path)
    first = settings_path(tmp_path).read_bytes()
    mtime = settings_path(tmp_path).stat().st_mtime_ns
    report = harness.install(tmp_path)
    assert report.changed == ()
    assert report.unchanged == (".claude/settings.json",)
    assert settings_path(tmp_path).read_bytes() == first
    assert settings_path(tmp_path).stat().st_mtime_ns == mtime


def test_install_keeps_everything_the_user_wrote(harness: ClaudeHarness, tmp_path: Path) -> None:
    write_user_settings(tmp_path, USER_SETTINGS)
    harness.install(tmp_path)
    data = read(tmp_path)
    assert list(data) == ["permissions", "env", "hooks", "model"]
    assert data["permissions"] == USER_SETTINGS["permissions"]
    assert data["env"] == {"FOO": "bar"}
    assert data["model"] == "sonnet"
    hooks = data["hooks"]
    assert list(hooks)[:2] == ["PreToolUse", "Notification"]
    assert hooks["Notification"] == USER_SETTINGS["hooks"]["Notification"]
    user_group, our_group = hooks["PreToolUse"]
    assert user_group == USER_SETTINGS["hooks"]["PreToolUse"][0]
    assert our_group["matcher"] == "*"
    assert our_group["hooks"][0]["command"] == command("PreToolUse")


def test_uninstall_restores_the_users_file_byte_for_byte(
    harness: ClaudeHarness, tmp_path: Path
) -> None:
    original = write_user_settings(tmp_path, USER_SETTINGS)
    harness.install(tmp_path)
    report = harness.uninstall(tmp_path)
    assert report.changed == (".claude/settings.json",)
    assert settings_path(tmp_path).read_bytes() == original
    assert harness.hook_commands(tmp_path) == {}
    assert harness.uninstall(tmp_path).changed == ()


def test_a_differently_formatted_file_comes_back_byte_for_byte(
    harness: ClaudeHarness, tmp_path: Path
) -> None:
    original = write_user_settings(tmp_path, USER_SETTINGS, indent=None)
    harness.install(tmp_path)
    harness.uninstall(tmp_path)
    restored = settings_path(tmp_path).read_bytes()
    assert restored == original  # one line, as the user wrote it (kept at install)


def test_uninstall_removes_the_file_and_folder_it_created(
    harness: ClaudeHarness, tmp_path: Path
) -> None:
    harness.install(tmp_path)
    harness.uninstall(tmp_path)
    assert not (tmp_path / ".claude").exists()


def test_uninstall_leaves_a_claude_folder_holding_other_files(
    harness: ClaudeHarness, tmp_path: Path
) -> None:
    harness.install(tmp_path)
    skill = tmp_path / ".claude" / "commands" / "x.md"
    skill.parent.mkdir()
    skill.write_text("x", encoding="utf-8")
    harness.uninstall(tmp_path)
    assert not settings_path(tmp_path).exists()
    assert skill.exists()


def test_uninstall_without_anything_installed_writes_nothing(
    harness: ClaudeHarness, tmp_path: Path
) -> None:
    assert harness.uninstall(tmp_path).changed == ()
    assert not (tmp_path / ".claude").exists()
    original = write_user_settings(tmp_path, USER_SETTINGS)
    assert harness.uninstall(tmp_path).changed == ()
    assert settings_path(tmp_path).read_bytes() == original


def test_an_older_lorebook_entry_is_replaced_in_place(
    harness: ClaudeHarness, tmp_path: Path
) -> None:
    old = '"$CLAUDE_PROJECT_DIR/.lorebook/bin/hook" claude UserPromptSubmit'
    settings: dict[str, Any] = {
        "hooks": {
            "UserPromptSubmit": [
                {"hooks": [{"type": "command", "command": old, "timeout": 5}]},
                {"hooks": [{"type": "command", "command": "echo mine"}]},
            ],
            "Notification": [{"hooks": [{"type": "command", "command": f"{old} x"}]}],
        }
    }
    write_user_settings(tmp_path, settings)
    states = {item.what.split()[3]: item.state for item in harness.check(tmp_path)}
    assert states["UserPromptSubmit"] == "changed"
    assert states["Stop"] == "missing"
    harness.install(tmp_path)
    hooks = read(tmp_path)["hooks"]
    assert "Notification" not in hooks
    ours, mine = hooks["UserPromptSubmit"]
    assert ours["hooks"] == [
        {"type": "command", "command": command("UserPromptSubmit"), "timeout": 10}
    ]
    assert mine == {"hooks": [{"type": "command", "command": "echo mine"}]}
    assert {item.state for item in harness.check(tmp_path)} == {"ok"}


def test_our_entry_inside_a_users_group_is_moved_out(
    harness: ClaudeHarness, tmp_path: Path
) -> None:
    mixed = {
        "matcher": "Bash",
        "hooks": [
            {"type": "command", "command": "./guard.sh"},
            {"type": "command", "command": command("PreToolUse"), "timeout": 10},
        ],
    }
    write_user_settings(tmp_path, {"hooks": {"PreToolUse": [mixed]}})
    harness.install(tmp_path)
    user_group, our_group = read(tmp_path)["hooks"]["PreToolUse"]
    assert user_group == {
        "matcher": "Bash",
        "hooks": [{"type": "command", "command": "./guard.sh"}],
    }
    assert our_group["matcher"] == "*"
    harness.uninstall(tmp_path)
    assert read(tmp_path) == {"hooks": {"PreToolUse": [user_group]}}


def test_check_names_missing_and_changed_hooks(harness: ClaudeHarness, tmp_path: Path) -> None:
    items = harness.check(tmp_path)
    assert [item.state for item in items] == ["missing"] * len(EVENTS)
    assert all("lorebook init --harnesses claude" in (item.fix or "") for item in items)
    harness.install(tmp_path)
    data = read(tmp_path)
    del data["hooks"]["Stop"]
    data["hooks"]["SessionEnd"][0]["hooks"][0]["timeout"] = 60
    write_user_settings(tmp_path, data)
    states = {item.what: item.state for item in harness.check(tmp_path)}
    assert states["Claude Code hook Stop in .claude/settings.json"] == "missing"
    assert states["Claude Code hook SessionEnd in .claude/settings.json"] == "changed"
    assert list(states.values()).count("ok") == len(EVENTS) - 2
    assert harness.hook_commands(tmp_path)["SessionEnd"] == command("SessionEnd")
    assert "Stop" not in harness.hook_commands(tmp_path)


@pytest.mark.parametrize("content", ['{"hooks": {', "[1, 2]", '{"hooks": []}'])
def test_a_broken_settings_file_is_reported_and_left_alone(
    harness: ClaudeHarness, tmp_path: Path, content: str
) -> None:
    path = settings_path(tmp_path)
    path.parent.mkdir()
    path.write_text(content, encoding="utf-8")
    for action in (harness.install, harness.uninstall):
        with pytest.raises(LorebookError, match=r"\.claude/settings\.json"):
            action(tmp_path)
    assert path.read_text(encoding="utf-8") == content
    assert sorted(p.name for p in path.parent.iterdir()) == ["settings.json"]
    items = harness.check(tmp_path)
    assert [item.state for item in items] == ["unknown"] * len(EVENTS)
    assert "settings.json" in (items[0].fix or "")


def test_invalid_json_names_the_file_and_the_json_error(
    harness: ClaudeHarness, tmp_path: Path
) -> None:
    path = settings_path(tmp_path)
    path.parent.mkdir()
    path.write_text('{\n  "env": {"A": 1,}\n}\n', encoding="utf-8")
    with pytest.raises(LorebookError) as caught:
        harness.install(tmp_path)
    message = str(caught.value)
    assert str(path) in message
    assert "not valid JSON" in message
    assert "line 2" in message


def test_host_env_names_the_project_dir(harness: ClaudeHarness, tmp_path: Path) -> None:
    assert harness.host_env(tmp_path) == {"CLAUDE_PROJECT_DIR": str(tmp_path)}


def test_headless_puts_a_short_prompt_in_argv(harness: ClaudeHarness) -> None:
    assert harness.headless("summarise this", None) == (
        ["claude", "-p", "summarise this", "--output-format", "text"],
        None,
    )
    assert harness.headless("x", "haiku") == (
        ["claude", "-p", "x", "--output-format", "text", "--model", "haiku"],
        None,
    )


def test_headless_sends_long_prompts_on_stdin(harness: ClaudeHarness) -> None:
    at_limit = "a" * ARGV_PROMPT_LIMIT
    assert harness.headless(at_limit, None)[1] is None
    over = "é" * (ARGV_PROMPT_LIMIT // 2 + 1)  # fewer characters than the limit, more bytes
    argv, stdin = harness.headless(over, "sonnet")
    assert argv == ["claude", "-p", "--output-format", "text", "--model", "sonnet"]
    assert stdin == over.encode("utf-8")


def test_headless_never_lets_a_prompt_read_as_an_option(harness: ClaudeHarness) -> None:
    argv, stdin = harness.headless("--help me", None)
    assert "--help me" not in argv
    assert stdin == b"--help me"
