"""lorebook's harness contract suite, run against this plugin as installed."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from conftest import TRANSCRIPT, recorded
from lorebook.testing import HarnessContract


class TestContract(HarnessContract):
    harness_name = "__HOST__"

    @pytest.fixture
    def recorded_payloads(self) -> list[tuple[str, Mapping[str, Any]]]:
        return recorded()

    @pytest.fixture
    def recorded_transcript(self) -> str:
        return str(TRANSCRIPT)
