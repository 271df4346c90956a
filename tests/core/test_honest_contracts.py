"""What a config field, a tool or a spec says it does is what the code does (issue 31)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from lorebook.kb.personal import open_personal_store
from lorebook.kb.store import MarkdownStore


def _stores(repo: Path, names: str) -> None:
    config = repo / ".lorebook/config.yaml"
    text, count = re.subn(
        r"(?m)^stores: \[.*\]$", f"stores: [{names}]", config.read_text(encoding="utf-8")
    )
    assert count == 1
    config.write_text(text, encoding="utf-8")


def test_the_stores_description_says_what_writes_and_the_writes_agree(
    kb_repo: Path, cli: Any
) -> None:
    """`stores:` said "the first one is written"; nothing writes there. Notes are written to
    the repository store (or the one `note add --store` names), whatever the order."""
    _stores(kb_repo, "personal, markdown")
    done = cli("note", "add", "--title", "Use uv", "--description", "d", "--kind", "gotcha",
               cwd=kb_repo)  # fmt: skip
    assert done.exit_code == 0, done.stderr
    assert MarkdownStore(kb_repo).ids() == ["practice-use-uv"]
    assert open_personal_store().ids() == []
    schema = cli("schema", "config", cwd=kb_repo).json()
    description = schema["properties"]["stores"]["description"]
    assert "first one is written" not in description
    assert "repository store (`markdown`)" in description
    assert "`lorebook note add --store NAME`" in description
