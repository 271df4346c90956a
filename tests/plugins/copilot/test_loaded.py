"""What Copilot CLI loads by itself (seen with 1.0.102, tests/e2e/test_loaded_files.py): the
root .github/copilot-instructions.md; AGENTS.md, CLAUDE.md and GEMINI.md from the root down
to its cwd; what AGENTS.md and CLAUDE.md import with @path (serving issue, item 3)."""

from __future__ import annotations

from pathlib import Path

from lorebook_copilot import events


def write(repo: Path, rel: str, text: str = "text\n") -> None:
    path = repo / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def test_instruction_files_from_the_root_down_to_the_cwd(tmp_path: Path) -> None:
    for rel in (".github/copilot-instructions.md", "AGENTS.md", "CLAUDE.md", "GEMINI.md",
                ".claude/CLAUDE.md", "CLAUDE.local.md", "app/AGENTS.md", "app/CLAUDE.md",
                "lib/AGENTS.md"):  # fmt: skip
        write(tmp_path, rel)
    assert events.loaded_files(str(tmp_path), str(tmp_path / "app")) == {
        ".github/copilot-instructions.md", "AGENTS.md", "CLAUDE.md", "GEMINI.md",
        "app/AGENTS.md", "app/CLAUDE.md",
    }  # fmt: skip
    assert events.loaded_files(str(tmp_path), str(tmp_path)) == {
        ".github/copilot-instructions.md", "AGENTS.md", "CLAUDE.md", "GEMINI.md"
    }  # fmt: skip


def test_imports_of_agents_and_claude_md_anywhere_a_full_stop_aside(tmp_path: Path) -> None:
    write(tmp_path, "AGENTS.md", "See @docs/a.md.\n")
    write(tmp_path, "app/CLAUDE.md", "See @../docs/b.md and `@docs/c.md`\n")
    write(tmp_path, "GEMINI.md", "See @docs/d.md\n")  # not seen followed: not counted
    for rel in ("docs/a.md", "docs/b.md", "docs/c.md", "docs/d.md"):
        write(tmp_path, rel)
    assert events.loaded_files(str(tmp_path), str(tmp_path / "app")) == {
        "AGENTS.md", "GEMINI.md", "app/CLAUDE.md", "docs/a.md", "docs/b.md"
    }  # fmt: skip


def test_nothing_when_there_are_no_instruction_files(tmp_path: Path) -> None:
    assert events.loaded_files(str(tmp_path), None) == frozenset()
