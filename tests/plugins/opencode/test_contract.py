"""The harness contract suite of the lorebook test kit, run against the OpenCode plugin.

The payloads are what lorebook's JS plugin builds from the hook arguments OpenCode 1.18.33
passed in the recorded runs; the capture events read OpenCode's store, rebuilt from the
recorded database dump (``OPENCODE_DB``).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from lorebook.testing import HarnessContract
from tests.plugins.opencode.conftest import plugin_payloads, recorded_db


class TestOpenCodeContract(HarnessContract):
    harness_name = "opencode"

    @pytest.fixture
    def recorded_payloads(self, kb_repo: Path) -> list[tuple[str, Mapping[str, Any]]]:
        return plugin_payloads(str(kb_repo))

    @pytest.fixture(autouse=True)
    def store(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
        """OpenCode's database as the recorded runs left it."""
        path = recorded_db(tmp_path)
        monkeypatch.setenv("OPENCODE_DB", str(path))
        return path
