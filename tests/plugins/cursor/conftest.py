"""Shared helpers of the Cursor plugin tests: payloads built from Cursor's documentation."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

FIXTURES = Path(__file__).parent / "fixtures"


def documented(project: Path, transcript: Path) -> list[tuple[str, Mapping[str, Any]]]:
    """(event, payload) of the documented payloads, for ``project`` and ``transcript``."""
    text = (FIXTURES / "hook-payloads.jsonl").read_text(encoding="utf-8")
    text = text.replace("<PROJECT>", str(project)).replace("<TRANSCRIPT>", str(transcript))
    return [(r["event"], r["payload"]) for r in map(json.loads, text.splitlines())]
