"""The harness contract suite of the lorebook test kit, run against the Copilot plugin.

The contract expects every ``check`` item ``ok`` right after ``install``; Copilot runs a
repository's hooks only in a trusted folder, so COPILOT_HOME here trusts the test
repository as Copilot's own config does once a person trusted it, and holds the recorded
event logs, which the capture events read.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from lorebook.testing import HarnessContract
from tests.plugins.copilot.conftest import copilot_home, recorded


class TestCopilotContract(HarnessContract):
    harness_name = "copilot"

    @pytest.fixture
    def recorded_payloads(self, home: Path) -> list[tuple[str, Mapping[str, Any]]]:
        replay: list[tuple[str, Mapping[str, Any]]] = []
        for event, payload in recorded():
            if "transcriptPath" in payload:
                log = home / "session-state" / payload["sessionId"] / "events.jsonl"
                payload = {**payload, "transcriptPath": str(log)}
            replay.append((event, payload))
        return replay

    @pytest.fixture(autouse=True)
    def home(self, kb_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
        """COPILOT_HOME as Copilot leaves it once a person trusted the repository."""
        home = copilot_home(tmp_path, [kb_repo])
        monkeypatch.setenv("COPILOT_HOME", str(home))
        return home
