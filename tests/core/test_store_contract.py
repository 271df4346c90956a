"""The markdown store and the in-memory store pass the store contract suite."""

from __future__ import annotations

from pathlib import Path

import pytest

from lorebook.kb.store import MarkdownStore
from lorebook.testing import MemoryStore, StoreContract


class TestMarkdownStore(StoreContract):
    @pytest.fixture
    def store(self, kb_repo: Path) -> MarkdownStore:
        return MarkdownStore(kb_repo)


class TestMemoryStore(StoreContract):
    @pytest.fixture
    def store(self) -> MemoryStore:
        return MemoryStore()
