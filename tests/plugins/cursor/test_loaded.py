"""What Cursor puts in every chat by itself: AGENTS.md, .cursorrules and the project rules
whose front matter says alwaysApply: true (serving issue, item 3)."""

from __future__ import annotations

from pathlib import Path

from lorebook_cursor import events


def write(repo: Path, rel: str, text: str = "text\n") -> None:
    path = repo / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def rule(always: str, globs: str = "") -> str:
    return f"---\ndescription: a rule\nglobs: {globs}\nalwaysApply: {always}\n---\n\nThe rule.\n"


def test_always_applied_rules_agents_md_and_cursorrules(tmp_path: Path) -> None:
    write(tmp_path, "AGENTS.md")
    write(tmp_path, ".cursorrules")
    write(tmp_path, "CLAUDE.md")
    write(tmp_path, ".cursor/rules/style.mdc", rule("true"))
    write(tmp_path, ".cursor/rules/web/react.mdc", rule("True"))
    write(tmp_path, ".cursor/rules/tests.mdc", rule("false", "tests/**"))
    write(tmp_path, ".cursor/rules/plain.mdc", "No front matter.\nalwaysApply: true\n")
    write(tmp_path, ".cursor/rules/notes.md", rule("true"))
    assert events.loaded_files(str(tmp_path), str(tmp_path)) == {
        "AGENTS.md", ".cursorrules", ".cursor/rules/style.mdc", ".cursor/rules/web/react.mdc"
    }  # fmt: skip


def test_no_rules_folder_loads_only_what_exists(tmp_path: Path) -> None:
    assert events.loaded_files(str(tmp_path), None) == frozenset()
