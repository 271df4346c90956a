"""`lorebook init`: creates the knowledge base, is idempotent, keeps what it finds."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import CliRunner, git


def _snapshot(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def test_init_creates_a_committable_knowledge_base(tmp_path: Path, cli: CliRunner) -> None:
    repo = tmp_path / "proj"
    repo.mkdir()
    git(repo, "init", "-q")
    (repo / "src").mkdir()
    result = cli("init", cwd=repo / "src")  # from a subfolder: the repository root is found
    assert result.exit_code == 0, result.stderr
    kb = repo / ".lorebook"
    assert (kb / "config.yaml").read_text().startswith("# lorebook configuration")
    assert (kb / ".gitignore").read_text().splitlines()[1:] == [
        "bin/",
        "_sessions/",
        "_logs/",
        ".state/",
        ".cache/",
    ]
    assert (kb / "ENTRY.md").exists()
    assert (kb / "nodes/index.md").exists()
    tracked = git(repo, "status", "--porcelain", "--untracked-files=all")
    assert sorted(line[3:] for line in tracked.splitlines()) == [
        ".lorebook/.gitattributes",
        ".lorebook/.gitignore",
        ".lorebook/ENTRY.md",
        ".lorebook/GRAPH.md",
        ".lorebook/config.yaml",
        ".lorebook/nodes/index.md",
    ]
    assert cli("lint", cwd=repo).exit_code == 0


def test_a_second_init_changes_no_byte(kb_repo: Path, cli: CliRunner) -> None:
    cli("note", "add", "--title", "Keep me", "--description", "D", "--kind", "gotcha", cwd=kb_repo)
    cli("index", "rebuild", cwd=kb_repo)
    before = _snapshot(kb_repo / ".lorebook")
    result = cli("init", cwd=kb_repo)
    assert result.exit_code == 0
    assert "nothing changed" in result.stdout
    assert _snapshot(kb_repo / ".lorebook") == before


def test_init_keeps_a_valid_existing_config_and_refuses_a_broken_one(
    kb_repo: Path, cli: CliRunner
) -> None:
    config = kb_repo / ".lorebook/config.yaml"
    config.write_text(config.read_text().replace("entry_chars: 2000", "entry_chars: 1500"))
    assert cli("init", cwd=kb_repo).exit_code == 0
    assert "entry_chars: 1500" in config.read_text()
    config.write_text("stores: markdown\n")
    broken = cli("init", cwd=kb_repo)
    assert broken.exit_code == 1
    assert ".lorebook/config.yaml: key 'stores'" in broken.stderr
    assert config.read_text() == "stores: markdown\n"


def test_init_outside_git_warns_but_works(tmp_path: Path, cli: CliRunner) -> None:
    result = cli("init", cwd=tmp_path)
    assert result.exit_code == 0
    assert "not inside a git repository" in result.stderr
    assert (tmp_path / ".lorebook/config.yaml").exists()
