"""The in-session curation skill: installed by ``init`` where the wired hosts look for project
skills, idempotent, removed with the last harness that needs it, never clobbering a user's file."""

from __future__ import annotations

from pathlib import Path

import pytest

from lorebook.kb import frontmatter
from lorebook.plugins import get_plugins
from lorebook.skills import MARKER, SKILL_TEXT, skill_paths, sync_skills
from tests.conftest import CliRunner

CLAUDE = ".claude/skills/lorebook-curate/SKILL.md"
AGENTS = ".agents/skills/lorebook-curate/SKILL.md"


def test_the_skill_has_the_front_matter_hosts_list_and_walks_the_whole_loop() -> None:
    data, body = frontmatter.split(SKILL_TEXT)
    assert data["name"] == "lorebook-curate"
    assert "curate" in data["description"].lower()
    assert "\n" not in data["description"]
    for command in (
        "lorebook extract",
        "lorebook curate",
        "lorebook review",
        "lorebook conflict list",
        "lorebook conflict resolve",
    ):
        assert command in body
    for choice in ("Accept", "Reject", "Keep as record", "Skip"):
        assert choice in body


@pytest.mark.parametrize(
    ("harnesses", "expected"),
    [
        (["claude"], [CLAUDE]),
        (["codex"], [AGENTS]),
        (["opencode", "copilot"], [AGENTS]),
        (["claude", "codex"], [AGENTS, CLAUDE]),
        (["cursor"], []),
        ([], []),
    ],
)
def test_each_host_gets_the_skill_where_it_looks(harnesses: list[str], expected: list[str]) -> None:
    plugins = get_plugins()
    assert skill_paths(d for n in harnesses for d in plugins.harness(n).skill_dirs) == expected


def test_init_installs_the_skill_for_the_wired_harnesses_idempotently(
    kb_repo: Path, cli: CliRunner
) -> None:
    first = cli("init", "--harnesses", "claude,codex", "--json", cwd=kb_repo)
    assert first.exit_code == 0, first.stderr
    assert {CLAUDE, AGENTS} <= set(first.json()["changed"])
    assert (kb_repo / CLAUDE).read_text(encoding="utf-8") == SKILL_TEXT
    assert (kb_repo / AGENTS).read_text(encoding="utf-8") == SKILL_TEXT
    second = cli("init", "--json", cwd=kb_repo)
    assert second.json()["changed"] == []


def test_uninstall_removes_the_skill_with_the_last_harness_that_needs_it(
    kb_repo: Path, cli: CliRunner
) -> None:
    assert cli("init", "--harnesses", "claude,codex", cwd=kb_repo).exit_code == 0
    result = cli("uninstall", "--harnesses", "codex", "--json", cwd=kb_repo)
    assert AGENTS in result.json()["changed"]
    assert not (kb_repo / ".agents").exists()  # the folders it created go with it
    assert (kb_repo / CLAUDE).is_file()  # Claude is still wired
    assert cli("uninstall", "--json", cwd=kb_repo).exit_code == 0
    assert not (kb_repo / CLAUDE).exists()
    assert not (kb_repo / ".claude/skills").exists()


def test_a_users_file_of_the_same_name_is_never_clobbered(kb_repo: Path, cli: CliRunner) -> None:
    mine = kb_repo / CLAUDE
    mine.parent.mkdir(parents=True)
    mine.write_text("---\nname: lorebook-curate\ndescription: my own\n---\nMine.\n")
    other = kb_repo / ".claude/skills/deploy/SKILL.md"
    other.parent.mkdir(parents=True)
    other.write_text("---\nname: deploy\ndescription: ship it\n---\n")
    before = mine.read_bytes()
    result = cli("init", "--harnesses", "claude", "--json", cwd=kb_repo)
    assert result.exit_code == 0, result.stderr
    assert mine.read_bytes() == before
    assert CLAUDE not in result.json()["changed"]
    (note,) = [n for n in result.json()["notes"] if CLAUDE in n]
    assert "not lorebook's" in note
    assert "move it away" in note
    assert cli("uninstall", cwd=kb_repo).exit_code == 0
    assert mine.read_bytes() == before  # uninstall leaves it too
    assert other.exists()


def test_an_older_managed_copy_is_updated(tmp_path: Path) -> None:
    old = tmp_path / CLAUDE
    old.parent.mkdir(parents=True)
    old.write_text(f"---\nname: lorebook-curate\ndescription: old\n---\n{MARKER}\nold\n")
    report = sync_skills(tmp_path, [".claude/skills"], [])
    assert report.changed == [CLAUDE]
    assert old.read_text(encoding="utf-8") == SKILL_TEXT
    assert sync_skills(tmp_path, [".claude/skills"], []).changed == []


def test_a_symlinked_skills_folder_is_not_written_through(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    repo = tmp_path / "repo"
    (repo / ".claude").mkdir(parents=True)
    (repo / ".claude/skills").symlink_to(elsewhere)
    report = sync_skills(repo, [".claude/skills"], [])
    assert report.changed == []
    assert "symbolic link" in report.notes[0]
    assert list(elsewhere.iterdir()) == []
