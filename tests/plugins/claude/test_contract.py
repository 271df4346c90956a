"""The harness contract suite of the lorebook test kit, run against the Claude plugin."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from lorebook.testing import HarnessContract
from lorebook_claude.events import EVENTS

FIXTURES = Path(__file__).parent / "fixtures"


def _recorded() -> list[tuple[str, Mapping[str, Any]]]:
    pairs: list[tuple[str, Mapping[str, Any]]] = []
    for name in ("hook-payloads.jsonl", "hook-payloads-tool-failure.jsonl"):
        for line in (FIXTURES / name).read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            event = record.get("label") or record["event"]
            if event in EVENTS:
                pairs.append((event, record["stdin_json"]))
    return pairs


class TestClaudeContract(HarnessContract):
    harness_name = "claude"

    @pytest.fixture
    def recorded_payloads(self) -> list[tuple[str, Mapping[str, Any]]]:
        return _recorded()

    @pytest.fixture
    def recorded_transcript(self) -> str:
        """The recorded payloads name the recording machine's paths; the transcript Claude
        Code wrote in the failing-tool run is a fixture (fixtures/README.md)."""
        return str(FIXTURES / "transcripts" / "tool-failure.jsonl")
