"""Installing lorebook's hooks into .codex/hooks.json, checking and removing them; headless."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from lorebook.errors import LorebookError
from lorebook.harness import Harness
from lorebook.plugins import make_plugins
from lorebook_codex.harness import ARGV_PROMPT_LIMIT, CodexHarness
from lorebook_codex.hooks_file import hook_command

EVENTS = ["SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop", "SessionEnd", "PreCompact"]  # fmt: skip
TIMEOUTS = {"SessionStart": 30, "UserPromptSubmit": 10, "PreToolUse": 10, "PostToolUse": 10,
            "Stop": 30, "SessionEnd": 3, "PreCompact": 30}  # fmt: skip
TOOL_EVENTS = {"PreToolUse", "PostToolUse"}
HEADLESS = ["codex", "exec", "--color", "never", "--skip-git-repo-check", "--ephemeral", "-s", "read-only"]  # fmt: skip

USER_HOOKS: dict[str, Any] = {
    "hooks": {
        "PreToolUse": [
            {
                "matcher": "Bash",
                "hooks": [{"type": "command", "command": "./scripts/guard.sh", "timeout": 5}],
            }
        ],
        "Notification": [{"hooks": [{"type": "command", "command": "notify-send done"}]}],
        "PostCompact": [{"hooks": [{"type": "command", "command": "echo compacted"}]}],
    },
    "x-team-note": "kept",
}


def hooks_path(repo: Path) -> Path:
    return repo / ".codex" / "hooks.json"


def read(repo: Path) -> Any:
    return json.loads(hooks_path(repo).read_text(encoding="utf-8"))


def write_user_hooks(repo: Path, data: Any, *, indent: int | None = 2) -> bytes:
    text = json.dumps(data, indent=indent) + ("\n" if indent else "")
    path = hooks_path(repo)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path.read_bytes()


def trust_everything(repo: Path, home: Path) -> None:
    """What a person's "Trust all and continue" writes for this repository."""
    home.mkdir(exist_ok=True)
    project = f'[projects."{os.path.realpath(repo)}"]\ntrust_level = "trusted"\n\n'
    (home / "config.toml").write_text(project + CodexHarness().trust_toml(repo))


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "codexhome"


@pytest.fixture
def harness(home: Path) -> CodexHarness:
    return CodexHarness(env={"CODEX_HOME": str(home)})


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    path = tmp_path / "repo"
    path.mkdir()
    return path


def test_it_is_a_harness_registered_with_its_event_module() -> None:
    spec = make_plugins(env={}).harness("codex")
    assert spec.event_module == "lorebook_codex.events"
    assert spec.instruction_files == ("AGENTS.md",)
    assert spec.description == "OpenAI Codex CLI"
    assert spec.factory is not None
    built = spec.factory()
    assert isinstance(built, CodexHarness)
    assert isinstance(built, Harness)
    assert built.name == "codex"


def test_install_in_a_fresh_repo_writes_every_hook(
    harness: CodexHarness, repo: Path, home: Path
) -> None:
    report = harness.install(repo)
    assert report.changed == (".codex/hooks.json",)
    assert "Trust all and continue" in report.notes[0]
    hooks = read(repo)["hooks"]
    assert list(hooks) == EVENTS
    for event in EVENTS:
        (group,) = hooks[event]
        expected: dict[str, Any] = {"matcher": "*"} if event in TOOL_EVENTS else {}
        expected["hooks"] = [
            {"type": "command", "command": hook_command(event), "timeout": TIMEOUTS[event]}
        ]
        assert group == expected
    text = hooks_path(repo).read_text(encoding="utf-8")
    assert text.startswith('{\n  "hooks": {\n    "SessionStart": [')
    assert text.endswith("}\n")
    assert harness.hook_commands(repo) == {event: hook_command(event) for event in EVENTS}
    trust_everything(repo, home)
    assert [item.state for item in harness.check(repo)] == ["ok"] * (len(EVENTS) + 1)


def test_a_second_install_changes_no_byte(harness: CodexHarness, repo: Path) -> None:
    write_user_hooks(repo, USER_HOOKS)
    harness.install(repo)
    first = hooks_path(repo).read_bytes()
    mtime = hooks_path(repo).stat().st_mtime_ns
    report = harness.install(repo)
    assert report.changed == ()
    assert report.unchanged == (".codex/hooks.json",)
    assert hooks_path(repo).read_bytes() == first
    assert hooks_path(repo).stat().st_mtime_ns == mtime


def test_install_keeps_everything_the_user_wrote(harness: CodexHarness, repo: Path) -> None:
    write_user_hooks(repo, USER_HOOKS)
    harness.install(repo)
    data = read(repo)
    assert list(data) == ["hooks", "x-team-note"]
    hooks = data["hooks"]
    assert list(hooks)[:3] == ["PreToolUse", "Notification", "PostCompact"]
    assert hooks["Notification"] == USER_HOOKS["hooks"]["Notification"]
    assert hooks["PostCompact"] == USER_HOOKS["hooks"]["PostCompact"]
    user_group, our_group = hooks["PreToolUse"]
    assert user_group == USER_HOOKS["hooks"]["PreToolUse"][0]
    assert our_group == {
        "matcher": "*",
        "hooks": [{"type": "command", "command": hook_command("PreToolUse"), "timeout": 10}],
    }


def test_uninstall_restores_the_users_file_byte_for_byte(harness: CodexHarness, repo: Path) -> None:
    original = write_user_hooks(repo, USER_HOOKS)
    harness.install(repo)
    report = harness.uninstall(repo)
    assert report.changed == (".codex/hooks.json",)
    assert hooks_path(repo).read_bytes() == original
    assert harness.hook_commands(repo) == {}
    assert harness.uninstall(repo).changed == ()


def test_a_differently_formatted_file_comes_back_byte_for_byte(
    harness: CodexHarness, repo: Path
) -> None:
    original = write_user_hooks(repo, USER_HOOKS, indent=None)
    harness.install(repo)
    harness.uninstall(repo)
    restored = hooks_path(repo).read_bytes()
    assert restored == original  # one line, as the user wrote it (kept at install)


def test_uninstall_removes_the_file_and_folder_it_created(
    harness: CodexHarness, repo: Path
) -> None:
    harness.install(repo)
    report = harness.uninstall(repo)
    assert report.notes == ("removed empty file",)
    assert not (repo / ".codex").exists()


def test_uninstall_leaves_a_codex_folder_holding_other_files(
    harness: CodexHarness, repo: Path
) -> None:
    harness.install(repo)
    config = repo / ".codex" / "config.toml"
    config.write_text('model = "o3"\n', encoding="utf-8")
    harness.uninstall(repo)
    assert not hooks_path(repo).exists()
    assert config.read_text(encoding="utf-8") == 'model = "o3"\n'


def test_uninstall_without_anything_installed_writes_nothing(
    harness: CodexHarness, repo: Path
) -> None:
    assert harness.uninstall(repo).changed == ()
    assert not (repo / ".codex").exists()
    original = write_user_hooks(repo, USER_HOOKS)
    assert harness.uninstall(repo).changed == ()
    assert hooks_path(repo).read_bytes() == original


def test_an_older_lorebook_entry_is_replaced_in_place(harness: CodexHarness, repo: Path) -> None:
    old = (
        'sh -c \'test -x ".lorebook/bin/hook" && exec ".lorebook/bin/hook" codex UserPromptSubmit\''
    )
    hooks: dict[str, Any] = {
        "hooks": {
            "UserPromptSubmit": [
                {"hooks": [{"type": "command", "command": "echo first"}]},
                {"hooks": [{"type": "command", "command": old, "timeout": 5}]},
                {"hooks": [{"type": "command", "command": "echo mine"}]},
            ],
            "PostCompact": [{"hooks": [{"type": "command", "command": old.replace("User", "x")}]}],
        }
    }
    write_user_hooks(repo, hooks)
    states = {item.what.split()[2]: item.state for item in harness.check(repo)}
    assert states["UserPromptSubmit"] == "changed"
    assert states["Stop"] == "missing"
    harness.install(repo)
    data = read(repo)["hooks"]
    assert "PostCompact" not in data
    first, ours, mine = data["UserPromptSubmit"]
    assert ours["hooks"] == [
        {"type": "command", "command": hook_command("UserPromptSubmit"), "timeout": 10}
    ]
    assert (first, mine) == (
        hooks["hooks"]["UserPromptSubmit"][0],
        hooks["hooks"]["UserPromptSubmit"][2],
    )


def test_our_entry_inside_a_users_group_is_moved_out(harness: CodexHarness, repo: Path) -> None:
    mixed = {
        "matcher": "Bash",
        "hooks": [
            {"type": "command", "command": "./guard.sh"},
            {"type": "command", "command": hook_command("PreToolUse"), "timeout": 10},
        ],
    }
    write_user_hooks(repo, {"hooks": {"PreToolUse": [mixed]}})
    harness.install(repo)
    user_group, our_group = read(repo)["hooks"]["PreToolUse"]
    assert user_group == {
        "matcher": "Bash",
        "hooks": [{"type": "command", "command": "./guard.sh"}],
    }
    assert our_group["matcher"] == "*"
    harness.uninstall(repo)
    assert read(repo) == {"hooks": {"PreToolUse": [user_group]}}


def test_check_names_missing_and_changed_hooks(
    harness: CodexHarness, repo: Path, home: Path
) -> None:
    items = harness.check(repo)
    assert [item.state for item in items[:-1]] == ["missing"] * len(EVENTS)
    assert all("lorebook init --harnesses codex" in (item.fix or "") for item in items[:-1])
    harness.install(repo)
    trust_everything(repo, home)
    data = read(repo)
    del data["hooks"]["Stop"]
    data["hooks"]["SessionEnd"][0]["hooks"][0]["timeout"] = 60
    write_user_hooks(repo, data)
    states = {item.what: item.state for item in harness.check(repo)}
    assert states["Codex hook Stop in .codex/hooks.json"] == "missing"
    assert states["Codex hook SessionEnd in .codex/hooks.json"] == "changed"
    assert list(states.values()).count("ok") == len(EVENTS) - 2 + 1
    assert harness.hook_commands(repo)["SessionEnd"] == hook_command("SessionEnd")
    assert "Stop" not in harness.hook_commands(repo)


@pytest.mark.parametrize(
    "content", ['{"hooks": {', "[1, 2]", '{"hooks": []}', '{"hooks": {"Stop": 1}}']
)
def test_a_broken_hooks_file_is_reported_and_left_alone(
    harness: CodexHarness, repo: Path, content: str
) -> None:
    path = hooks_path(repo)
    path.parent.mkdir()
    path.write_text(content, encoding="utf-8")
    for action in (harness.install, harness.uninstall, harness.trust_toml):
        with pytest.raises(LorebookError, match=r"\.codex/hooks\.json"):
            action(repo)
    assert path.read_text(encoding="utf-8") == content
    assert sorted(p.name for p in path.parent.iterdir()) == ["hooks.json"]
    items = harness.check(repo)
    assert [item.state for item in items] == ["unknown"] * len(EVENTS)
    assert "hooks.json" in (items[0].fix or "")


def test_invalid_json_names_the_file_and_the_json_error(harness: CodexHarness, repo: Path) -> None:
    path = hooks_path(repo)
    path.parent.mkdir()
    path.write_text('{\n  "hooks": {"Stop": [],}\n}\n', encoding="utf-8")
    with pytest.raises(LorebookError) as caught:
        harness.install(repo)
    message = str(caught.value)
    assert str(path) in message
    assert "not valid JSON" in message
    assert "line 2" in message


def test_host_env_is_empty_codex_has_no_project_variable(harness: CodexHarness, repo: Path) -> None:
    assert harness.host_env(repo) == {}


def test_the_default_harness_reads_codex_home_from_the_environment(
    repo: Path, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    CodexHarness().install(repo)
    trust_everything(repo, home)
    monkeypatch.setenv("CODEX_HOME", str(home))
    assert {item.state for item in CodexHarness().check(repo)} == {"ok"}
    monkeypatch.setenv("CODEX_HOME", str(home / "elsewhere"))
    assert {item.state for item in CodexHarness().check(repo)} == {"unknown"}


def test_headless_puts_a_short_prompt_in_argv(harness: CodexHarness) -> None:
    assert harness.headless("summarise this", None) == ([*HEADLESS, "summarise this"], None)
    assert harness.headless("x", "gpt-5") == ([*HEADLESS, "-m", "gpt-5", "x"], None)


def test_headless_sends_long_prompts_on_stdin(harness: CodexHarness) -> None:
    at_limit = "a" * ARGV_PROMPT_LIMIT
    assert harness.headless(at_limit, None)[1] is None
    over = "é" * (ARGV_PROMPT_LIMIT // 2 + 1)  # fewer characters than the limit, more bytes
    argv, stdin = harness.headless(over, "gpt-5")
    assert argv == [*HEADLESS, "-m", "gpt-5", "-"]
    assert stdin == over.encode("utf-8")


@pytest.mark.parametrize("prompt", ["--help me", "-", "a\0b"])
def test_headless_never_lets_a_prompt_read_as_an_option(harness: CodexHarness, prompt: str) -> None:
    argv, stdin = harness.headless(prompt, None)
    assert argv == [*HEADLESS, "-"]
    assert stdin == prompt.encode("utf-8")
