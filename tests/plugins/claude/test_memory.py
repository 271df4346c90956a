"""Claude Code's auto memory as the claude plugin reads it for harvest and doctor."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from lorebook.hostkit.memory import HostMemory
from lorebook_claude.harness import ClaudeHarness
from lorebook_claude.memory import memory_dir, memory_entries

FEEDBACK = """---
name: no-db-mocks
description: Integration tests must hit a real database, not mocks.
type: feedback
---
We got burned when mocked tests passed and the migration failed in production.
"""


@pytest.fixture
def config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "claude-config"
    folder.mkdir()
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(folder))
    return folder


def _store(config: Path, repo: Path, slug: str | None = None) -> Path:
    slug = slug or re.sub(r"[^A-Za-z0-9]", "-", str(repo.resolve()))
    store = config / "projects" / slug / "memory"
    store.mkdir(parents=True)
    return store


def test_the_harness_offers_the_memory_to_core(config: Path, tmp_path: Path) -> None:
    repo = tmp_path / "my_repo"
    repo.mkdir()
    store = _store(config, repo)
    (store / "no_db_mocks.md").write_text(FEEDBACK, encoding="utf-8")
    harness = ClaudeHarness()
    assert isinstance(harness, HostMemory)
    assert harness.memory_store(repo) == store
    [entry] = harness.memory_entries(repo).entries
    assert entry.key == entry.slot == "no_db_mocks.md"
    assert entry.title != "no-db-mocks"  # a file-like name is titled by the rule it states
    assert entry.kind != "location"
    assert not entry.personal


def test_the_spelling_with_only_slashes_replaced_is_found(config: Path, tmp_path: Path) -> None:
    repo = tmp_path / "my_repo"
    repo.mkdir()
    slashes = str(repo.resolve()).replace("/", "-")  # keeps the underscore
    store = _store(config, repo, slashes)
    assert memory_dir(repo) == store


def test_auto_memory_directory_moves_the_store(config: Path, tmp_path: Path) -> None:
    moved = tmp_path / "elsewhere"
    moved.mkdir()
    (config / "settings.json").write_text(json.dumps({"autoMemoryDirectory": str(moved)}))
    assert memory_dir(tmp_path) == moved


def test_what_is_left_out_is_counted_and_no_store_is_none(config: Path, tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    assert memory_entries(repo).store is None
    store = _store(config, repo)
    (store / "empty.md").write_text("---\nname: x\ntype: feedback\n---\n", encoding="utf-8")
    (tmp_path / "outside.md").write_text(FEEDBACK, encoding="utf-8")
    (store / "link.md").symlink_to(tmp_path / "outside.md")
    listing = memory_entries(repo)
    assert listing.store == store
    assert listing.entries == []
    assert listing.skipped == {"empty": 1, "a symbolic link or not a file": 1}
