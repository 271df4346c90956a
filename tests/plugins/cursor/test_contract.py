"""The harness contract suite of the lorebook test kit, run against the Cursor plugin.

The payloads are built from Cursor's documentation (see fixtures/README.md): no Cursor
client installs here.
"""

from __future__ import annotations

import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from lorebook.testing import HarnessContract
from tests.plugins.cursor.conftest import FIXTURES, documented


class TestCursorContract(HarnessContract):
    harness_name = "cursor"

    @pytest.fixture
    def recorded_payloads(
        self, kb_repo: Path, tmp_path: Path
    ) -> list[tuple[str, Mapping[str, Any]]]:
        transcript = tmp_path / "transcript.jsonl"
        shutil.copy(FIXTURES / "transcript.jsonl", transcript)
        return documented(kb_repo, transcript)
