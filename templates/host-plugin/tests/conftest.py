"""Test helpers: the recorded payloads and transcript of the host (see fixtures/README.md)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

FIXTURES = Path(__file__).parent / "fixtures"


def recorded() -> list[tuple[str, Mapping[str, Any]]]:
    """(event, payload) pairs recorded from the real host."""
    lines = (FIXTURES / "hook-payloads.jsonl").read_text(encoding="utf-8").splitlines()
    return [(r["event"], r["payload"]) for r in map(json.loads, lines)]


TRANSCRIPT = FIXTURES / "transcript.jsonl"
"""A session's transcript as the host wrote it."""
