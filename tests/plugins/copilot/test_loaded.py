"""What Copilot CLI loads by itself: .github/copilot-instructions.md and AGENTS.md at the
root and in its cwd (serving issue, item 3)."""

from __future__ import annotations

from pathlib import Path

from lorebook_copilot import events


def write(repo: Path, rel: str) -> None:
    path = repo / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("text\n", encoding="utf-8")


def test_copilot_instructions_and_agents_md_but_not_claude_md(tmp_path: Path) -> None:
    for rel in (".github/copilot-instructions.md", "AGENTS.md", "CLAUDE.md", "app/AGENTS.md",
                "lib/AGENTS.md"):  # fmt: skip
        write(tmp_path, rel)
    assert events.loaded_files(str(tmp_path), str(tmp_path / "app")) == {
        ".github/copilot-instructions.md", "AGENTS.md", "app/AGENTS.md"
    }  # fmt: skip
    assert events.loaded_files(str(tmp_path), str(tmp_path)) == {
        ".github/copilot-instructions.md", "AGENTS.md"
    }  # fmt: skip


def test_nothing_when_there_are_no_instruction_files(tmp_path: Path) -> None:
    assert events.loaded_files(str(tmp_path), None) == frozenset()
