"""Codex's trust record: hash and key as Codex 0.171 computes them, and the states ``check``
reports from config.toml files Codex itself wrote (fixtures/README.md, "Trust records")."""

from __future__ import annotations

import json
import os
import subprocess
import tomllib
from pathlib import Path
from typing import Any

import pytest

from lorebook.harness import CheckItem
from lorebook_codex import trust
from lorebook_codex.harness import CodexHarness
from lorebook_codex.hooks_file import HOOKS, HOOKS_PATH, installed
from tests.plugins.codex.conftest import FIXTURES

TRUST = FIXTURES / "trust"
EVENTS = [event for event, _, _ in HOOKS]
PLACEHOLDERS = ("<PROJECT>", "<OLD_PROJECT>", "<VECTORS_PROJECT>")
LABEL_TO_EVENT = {label: event for event, label in trust.EVENT_LABELS.items()}


def _listing(name: str) -> list[dict[str, Any]]:
    hooks: list[dict[str, Any]] = json.loads((TRUST / f"hooks-list-{name}.json").read_text())[
        "hooks"
    ]
    return hooks


def _hooks(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((TRUST / f"hooks-{name}.json").read_text())
    return data


@pytest.mark.parametrize(
    ("hooks", "listing", "placeholder"),
    [
        ("trusted", "trusted", "<PROJECT>"),
        ("changed", "changed", "<OLD_PROJECT>"),
        ("changed-before", "changed-before", "<OLD_PROJECT>"),
        ("vectors", "vectors", "<VECTORS_PROJECT>"),
    ],
)
def test_hash_and_key_equal_what_codex_lists(hooks: str, listing: str, placeholder: str) -> None:
    data = _hooks(hooks)
    listed = _listing(listing)
    assert listed
    for entry in listed:
        path, label, group_index, handler_index = entry["key"].rsplit(":", 3)
        assert path == f"{placeholder}/{HOOKS_PATH}" == entry["sourcePath"]
        event = LABEL_TO_EVENT[label]
        group = data["hooks"][event][int(group_index)]
        handler = group["hooks"][int(handler_index)]
        assert handler["command"] == entry["command"]
        assert trust.hook_hash(event, group, handler) == entry["currentHash"]
        key = trust.hook_key(path, event, int(group_index), int(handler_index))
        assert key == entry["key"]


def test_the_vectors_cover_normalisations_codex_applies() -> None:
    listed = {entry["key"].split(":", 1)[1]: entry for entry in _listing("vectors")}
    assert listed["session_end:0:0"]["timeoutSec"] == 3  # 30, clamped
    assert listed["session_end:1:0"]["timeoutSec"] == 1  # no timeout
    assert listed["user_prompt_submit:0:0"]["matcher"] is None  # matcher ignored
    assert listed["stop:0:0"]["timeoutSec"] == 1  # 0 raised to 1
    assert listed["stop:0:0"]["async"] is True
    assert listed["pre_compact:0:0"]["timeoutSec"] == 600  # default


def test_the_hash_does_not_depend_on_the_repository_path() -> None:
    trusted = {e["key"].split(":", 1)[1]: e["currentHash"] for e in _listing("trusted")}
    changed = {e["key"].split(":", 1)[1]: e["currentHash"] for e in _listing("changed")}
    # Same command, different repositories and machines: same hash (the user's hook at
    # pre_tool_use:0:0 of the trusted repository shifts ours to index 1 there).
    assert changed["stop:0:0"] == trusted["stop:0:0"]
    assert changed["pre_tool_use:0:0"] == trusted["pre_tool_use:1:0"]


def _setup(
    tmp_path: Path, hooks: str, config: str, placeholder: str = "<PROJECT>"
) -> tuple[Path, Path]:
    """A repository holding a fixture hooks.json, and CODEX_HOME holding a fixture config
    with the repository's real path in place of its placeholder."""
    repo = tmp_path / "repo"
    (repo / ".codex").mkdir(parents=True)
    (repo / ".git").mkdir()
    (repo / HOOKS_PATH).write_text((TRUST / f"hooks-{hooks}.json").read_text())
    home = tmp_path / "codexhome"
    home.mkdir()
    text = (TRUST / config).read_text()
    text = text.replace(placeholder, os.path.realpath(repo))
    (home / "config.toml").write_text(text)
    return repo, home


def _states(repo: Path, home: Path) -> list[str]:
    return [item.state for item in CodexHarness(env={"CODEX_HOME": str(home)}).check(repo)]


def _items(repo: Path, home: Path) -> list[CheckItem]:
    return CodexHarness(env={"CODEX_HOME": str(home)}).check(repo)


def test_hooks_codex_trusted_are_ok(tmp_path: Path) -> None:
    repo, home = _setup(tmp_path, "trusted", "config.toml")
    items = _items(repo, home)
    assert [(item.state, item.fix) for item in items] == [("ok", None)] * 8
    assert [item.what for item in items] == [
        *[f"Codex hook {event} in .codex/hooks.json" for event in EVENTS],
        "Codex loads this repository's hooks (project trust)",
    ]


def test_hooks_nobody_trusted_are_untrusted_with_the_exact_record_to_add(tmp_path: Path) -> None:
    repo, home = _setup(tmp_path, "trusted", "config-untrusted.toml")
    items = _items(repo, home)
    assert [item.state for item in items] == ["untrusted"] * 7 + ["ok"]
    listed = {e["key"].split(":", 1)[1]: e["currentHash"] for e in _listing("trusted")}
    stop = items[EVENTS.index("Stop")].fix or ""
    assert '"Trust all and continue"' in stop
    assert f"run `codex` in {repo}" in stop
    key = f"{os.path.realpath(repo)}/.codex/hooks.json:stop:0:0"
    assert f'[hooks.state."{key}"]' in stop
    assert f'trusted_hash = "{listed["stop:0:0"]}"' in stop
    assert str(home / "config.toml") in stop


def test_hooks_changed_since_codex_trusted_them_are_changed(tmp_path: Path) -> None:
    repo, home = _setup(tmp_path, "changed", "config.toml", "<OLD_PROJECT>")
    assert {e["trustStatus"] for e in _listing("changed")} == {"modified"}
    items = _items(repo, home)
    assert [item.state for item in items] == ["changed"] * 7 + ["ok"]
    assert "changed since you trusted it" in (items[0].fix or "")
    assert "/hooks" in (items[0].fix or "")


def test_the_older_command_codex_trusted_reads_as_an_outdated_install(tmp_path: Path) -> None:
    repo, home = _setup(tmp_path, "changed-before", "config.toml", "<OLD_PROJECT>")
    items = _items(repo, home)
    assert [item.state for item in items] == ["changed"] * 7 + ["ok"]
    assert items[0].fix == "run `lorebook init --harnesses codex`"


def test_a_hook_turned_off_in_codex_is_untrusted(tmp_path: Path) -> None:
    repo, home = _setup(tmp_path, "trusted", "config.toml")
    config = home / "config.toml"
    key = f"{os.path.realpath(repo)}/.codex/hooks.json:stop:0:0"
    text = config.read_text().replace(
        f'[hooks.state."{key}"]\n', f'[hooks.state."{key}"]\nenabled = false\n'
    )
    config.write_text(text)
    items = _items(repo, home)
    stop = items[EVENTS.index("Stop")]
    assert stop.state == "untrusted"
    assert "turned this hook off" in (stop.fix or "")
    assert [item.state for item in items].count("ok") == 7


def test_moving_our_group_changes_its_key_so_codex_must_trust_it_again(tmp_path: Path) -> None:
    repo, home = _setup(tmp_path, "trusted", "config.toml")
    data = json.loads((repo / HOOKS_PATH).read_text())
    user_group = {"hooks": [{"type": "command", "command": "echo mine"}]}
    data["hooks"]["Stop"].insert(0, user_group)
    (repo / HOOKS_PATH).write_text(json.dumps(data))
    items = _items(repo, home)
    assert items[EVENTS.index("Stop")].state == "untrusted"
    assert ":stop:1:0" in (items[EVENTS.index("Stop")].fix or "")


@pytest.mark.parametrize(
    ("config", "expected"),
    [
        (None, "there is no Codex config at"),
        ("model = [", "cannot read"),
        ("hooks = 3\n", "[hooks.state] is not a table"),
        ('[hooks]\nstate = "x"\n', "[hooks.state] is not a table"),
        ('projects = "x"\n', "[projects] is not a table"),
    ],
)
def test_a_config_lorebook_cannot_read_is_unknown_never_ok(
    tmp_path: Path, config: str | None, expected: str
) -> None:
    repo, home = _setup(tmp_path, "trusted", "config.toml")
    if config is None:
        (home / "config.toml").unlink()
    else:
        (home / "config.toml").write_text(config)
    items = _items(repo, home)
    assert [item.state for item in items] == ["unknown"] * 8
    assert all(expected in (item.fix or "") for item in items)
    assert "CODEX_HOME" in (items[0].fix or "")


def test_a_state_record_that_is_not_a_table_is_unknown(tmp_path: Path) -> None:
    repo, home = _setup(tmp_path, "trusted", "config-untrusted.toml")
    key = f"{os.path.realpath(repo)}/.codex/hooks.json:stop:0:0"
    with (home / "config.toml").open("a") as handle:
        handle.write(f'\n[hooks.state]\n"{key}" = "yes"\n')
    stop = _items(repo, home)[EVENTS.index("Stop")]
    assert stop.state == "unknown"
    assert "is not a table" in (stop.fix or "")


@pytest.mark.parametrize(
    ("project", "state", "fix"),
    [
        ("", "untrusted", "trust the folder when asked"),
        ('trust_level = "untrusted"\n', "untrusted", "marks"),
        ("[features]\nhooks = false\n", "untrusted", "hooks are turned off"),
        ("[features]\ncodex_hooks = false\n", "untrusted", "hooks are turned off"),
    ],
)
def test_codex_skips_the_whole_file_when_the_project_is_not_trusted(
    tmp_path: Path, project: str, state: str, fix: str
) -> None:
    repo, home = _setup(tmp_path, "trusted", "config.toml")
    config = home / "config.toml"
    trusted = f'[projects."{os.path.realpath(repo)}"]\ntrust_level = "trusted"\n'
    text = config.read_text()
    assert trusted in text
    if project.startswith("["):
        text += "\n" + project
    else:
        text = text.replace(trusted, f'[projects."{os.path.realpath(repo)}"]\n{project}')
    config.write_text(text)
    last = _items(repo, home)[-1]
    assert (last.state, fix in (last.fix or "")) == (state, True)


def test_a_repository_reached_through_a_symlink_is_checked_by_its_real_path(
    tmp_path: Path,
) -> None:
    repo, home = _setup(tmp_path, "trusted", "config.toml")
    link = tmp_path / "link"
    link.symlink_to(repo)
    assert _states(link, home) == ["ok"] * 8


def test_records_keyed_by_the_path_as_given_are_accepted_too(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "link").symlink_to(real)
    repo, home = _setup(tmp_path / "link", "trusted", "config.toml")
    config = home / "config.toml"
    config.write_text(config.read_text().replace(os.path.realpath(repo), str(repo)))
    assert _states(repo, home) == ["ok"] * 8


def _worktree(tmp_path: Path, *, wired_main: bool) -> tuple[Path, Path]:
    main = tmp_path / "main"
    main.mkdir()
    subprocess.run(["git", "init", "-q", str(main)], check=True)
    if wired_main:
        CodexHarness().install(main)
        subprocess.run(["git", "-C", str(main), "add", "-A"], check=True)
    subprocess.run(["git", "-C", str(main), "commit", "-q", "--allow-empty", "-m", "x"], check=True)
    worktree = tmp_path / "wt"
    subprocess.run(["git", "-C", str(main), "worktree", "add", "-q", str(worktree)], check=True)
    CodexHarness().install(worktree)
    return main, worktree


def test_a_linked_worktree_is_checked_against_the_main_checkouts_hooks_and_trust(
    tmp_path: Path, lorebook_home: Path
) -> None:
    # Codex 0.171 runs the main checkout's hooks.json in a linked worktree, keyed by its path.
    listed = _listing("worktree")
    assert {entry["sourcePath"] for entry in listed} == {f"<PROJECT>/{HOOKS_PATH}"}
    main, worktree = _worktree(tmp_path, wired_main=True)
    records = CodexHarness().trust_toml(worktree)
    assert records == CodexHarness().trust_toml(main)
    assert f'"{os.path.realpath(main)}/.codex/hooks.json:stop:0:0"' in records
    home = tmp_path / "codexhome"
    home.mkdir()
    project = f'[projects."{os.path.realpath(main)}"]\ntrust_level = "trusted"\n\n'
    (home / "config.toml").write_text(project + records)
    assert _states(worktree, home) == ["ok"] * 8
    keyed_by_worktree = records.replace(os.path.realpath(main), os.path.realpath(worktree))
    (home / "config.toml").write_text(project + keyed_by_worktree)
    assert _states(worktree, home) == ["untrusted"] * 7 + ["ok"]


def test_a_worktree_whose_main_checkout_lacks_our_hooks_says_so(
    tmp_path: Path, lorebook_home: Path
) -> None:
    main, worktree = _worktree(tmp_path, wired_main=False)
    home = tmp_path / "codexhome"
    home.mkdir()
    (home / "config.toml").write_text(
        f'[projects."{os.path.realpath(main)}"]\ntrust_level = "trusted"\n'
    )
    items = _items(worktree, home)
    assert [item.state for item in items] == ["missing"] * 7 + ["ok"]
    assert f"run `lorebook init --harnesses codex` in {os.path.realpath(main)}" in (
        items[0].fix or ""
    )


def test_trust_toml_gives_the_records_codex_wrote_for_our_hooks(tmp_path: Path) -> None:
    repo, home = _setup(tmp_path, "trusted", "config.toml")
    ours = tomllib.loads(CodexHarness().trust_toml(repo))["hooks"]["state"]
    written = tomllib.loads((home / "config.toml").read_text())["hooks"]["state"]
    assert len(ours) == 7
    assert {key: written[key] for key in ours} == ours
    mine = {key for key in written if key.startswith(os.path.realpath(repo))}
    assert mine - set(ours) == {f"{os.path.realpath(repo)}/.codex/hooks.json:pre_tool_use:0:0"}


def test_trust_toml_for_a_fresh_install_makes_every_hook_ok(tmp_path: Path) -> None:
    repo = tmp_path / "fresh"
    repo.mkdir()
    CodexHarness().install(repo)
    home = tmp_path / "codexhome"
    home.mkdir()
    project = f'[projects."{os.path.realpath(repo)}"]\ntrust_level = "trusted"\n\n'
    (home / "config.toml").write_text(project + CodexHarness().trust_toml(repo))
    assert _states(repo, home) == ["ok"] * 8
    assert trust.trust_toml(repo, installed({})) == CodexHarness().trust_toml(repo)


def test_toml_strings_escape_what_toml_needs() -> None:
    for text in ('a "b" \\ c', "tab\there", "del\x7f", "é/日本", "nl\n"):
        assert tomllib.loads(f"k = {trust.toml_string(text)}")["k"] == text


def test_codex_home_is_codex_home_else_dot_codex(tmp_path: Path) -> None:
    assert trust.codex_home({"CODEX_HOME": str(tmp_path)}) == tmp_path
    assert trust.codex_home({}) == Path.home() / ".codex"
    assert trust.codex_home({"CODEX_HOME": ""}) == Path.home() / ".codex"
