"""What Claude Code loads by itself: CLAUDE.md, .claude/CLAUDE.md, CLAUDE.local.md from the
root down to the cwd, and every file they import with @path (serving issue, item 3)."""

from __future__ import annotations

from pathlib import Path

from lorebook.hostkit.loaded import imports
from lorebook_claude import events
from lorebook_claude.events import MAX_IMPORT_DEPTH


def write(repo: Path, rel: str, text: str = "text\n") -> None:
    path = repo / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def test_the_memory_files_from_the_root_down_to_the_cwd(tmp_path: Path) -> None:
    for rel in ("CLAUDE.md", ".claude/CLAUDE.md", "CLAUDE.local.md", "pkg/CLAUDE.md",
                "pkg/sub/CLAUDE.md", "other/CLAUDE.md", "AGENTS.md"):  # fmt: skip
        write(tmp_path, rel)
    assert events.loaded_files(str(tmp_path), str(tmp_path / "pkg/sub")) == {
        "CLAUDE.md", ".claude/CLAUDE.md", "CLAUDE.local.md", "pkg/CLAUDE.md", "pkg/sub/CLAUDE.md"
    }  # fmt: skip
    assert events.loaded_files(str(tmp_path), str(tmp_path)) == {
        "CLAUDE.md", ".claude/CLAUDE.md", "CLAUDE.local.md"
    }  # fmt: skip
    assert events.loaded_files(str(tmp_path), "/elsewhere") == {
        "CLAUDE.md", ".claude/CLAUDE.md", "CLAUDE.local.md"
    }  # fmt: skip


def test_imports_are_followed_relative_to_the_importing_file(tmp_path: Path) -> None:
    write(tmp_path, "CLAUDE.md", "# P\n\nSee @docs/testing.md and @~/personal.md, @../out.md.\n")
    write(tmp_path, "docs/testing.md", "More in @style.md\n")  # docs/style.md
    write(tmp_path, "docs/style.md", "Back to @../CLAUDE.md\n")  # a cycle ends
    write(tmp_path, "docs/unused.md")
    write(tmp_path.parent, "out.md")
    assert events.loaded_files(str(tmp_path), str(tmp_path)) == {
        "CLAUDE.md", "docs/testing.md", "docs/style.md"
    }  # fmt: skip


def test_imports_in_code_and_missing_files_do_not_count(tmp_path: Path) -> None:
    write(tmp_path, "CLAUDE.md", "Run `@a.md`\n\n```\n@b.md\n```\n\nmail me@c.md @missing.md\n")
    for rel in ("a.md", "b.md", "c.md"):
        write(tmp_path, rel)
    assert events.loaded_files(str(tmp_path), None) == {"CLAUDE.md"}
    assert imports("x @a\\ b.md y") == ["a b.md"]


def test_imports_stop_after_the_documented_depth(tmp_path: Path) -> None:
    write(tmp_path, "CLAUDE.md", "@d1.md\n")
    for hop in range(1, MAX_IMPORT_DEPTH + 2):
        write(tmp_path, f"d{hop}.md", f"@d{hop + 1}.md\n")
    loaded = events.loaded_files(str(tmp_path), None)
    assert f"d{MAX_IMPORT_DEPTH}.md" in loaded
    assert f"d{MAX_IMPORT_DEPTH + 1}.md" not in loaded


def test_a_linked_memory_file_is_not_read(tmp_path: Path) -> None:
    write(tmp_path / "outside", "secret.md")
    (tmp_path / "repo").mkdir()
    (tmp_path / "repo/CLAUDE.md").symlink_to(tmp_path / "outside/secret.md")
    assert events.loaded_files(str(tmp_path / "repo"), None) == frozenset()


def test_no_claude_md_loads_nothing(tmp_path: Path) -> None:
    write(tmp_path, "AGENTS.md")
    assert events.loaded_files(str(tmp_path), str(tmp_path)) == frozenset()


def test_run_in_a_subfolder_imports_from_outside_it_are_not_loaded(tmp_path: Path) -> None:
    """Claude Code 2.1.197 headless, run in sub/: an import of a file outside sub/ is an
    external include waiting for approval (tests/e2e/test_loaded_files.py)."""
    write(tmp_path, "CLAUDE.md", "@docs/a.md @sub/b.md\n")
    write(tmp_path, "sub/CLAUDE.md", "@c.md @../docs/d.md\n")
    for rel in ("docs/a.md", "sub/b.md", "sub/c.md", "docs/d.md"):
        write(tmp_path, rel)
    assert events.loaded_files(str(tmp_path), str(tmp_path / "sub")) == {
        "CLAUDE.md", "sub/CLAUDE.md", "sub/b.md", "sub/c.md"
    }  # fmt: skip
    assert events.loaded_files(str(tmp_path), str(tmp_path)) == {
        "CLAUDE.md",
        "docs/a.md",
        "sub/b.md",
    }


def test_a_full_stop_after_an_import_is_part_of_its_path(tmp_path: Path) -> None:
    """Claude Code 2.1.197 reads `@docs/a.md.` as the file `docs/a.md.` (none here)."""
    write(tmp_path, "CLAUDE.md", "See @docs/a.md.\n")
    write(tmp_path, "docs/a.md")
    assert events.loaded_files(str(tmp_path), None) == {"CLAUDE.md"}
