"""What OpenCode loads by itself: AGENTS.md up from the cwd (else CLAUDE.md) and the files
opencode.json's "instructions" name (serving issue, item 3)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lorebook_opencode import events


def write(repo: Path, rel: str, text: str = "text\n") -> None:
    path = repo / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def test_agents_md_up_from_the_cwd_and_the_instructions(tmp_path: Path) -> None:
    for rel in ("AGENTS.md", "CLAUDE.md", "pkg/AGENTS.md", "docs/a.md", "docs/b.md", "rules/x.md"):
        write(tmp_path, rel)
    config = {"instructions": ["rules/x.md", "docs/*.md", "https://example.invalid/r.md",
                               "../outside.md", "~/mine.md", 7]}  # fmt: skip
    write(tmp_path, "opencode.json", json.dumps(config))
    assert events.loaded_files(str(tmp_path), str(tmp_path / "pkg")) == {
        "AGENTS.md", "pkg/AGENTS.md", "rules/x.md", "docs/a.md", "docs/b.md"
    }  # fmt: skip


def test_claude_md_only_without_agents_md_and_unless_disabled(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(tmp_path, "CLAUDE.md")
    monkeypatch.delenv("OPENCODE_DISABLE_CLAUDE_CODE", raising=False)
    monkeypatch.delenv("OPENCODE_DISABLE_CLAUDE_CODE_PROMPT", raising=False)
    assert events.loaded_files(str(tmp_path), None) == {"CLAUDE.md"}
    monkeypatch.setenv("OPENCODE_DISABLE_CLAUDE_CODE", "1")
    assert events.loaded_files(str(tmp_path), None) == frozenset()


def test_a_config_that_is_not_json_adds_nothing(tmp_path: Path) -> None:
    write(tmp_path, "AGENTS.md")
    write(tmp_path, "opencode.json", '{ // a comment\n "instructions": ["x.md"] }')
    write(tmp_path, "x.md")
    assert events.loaded_files(str(tmp_path), None) == {"AGENTS.md"}
