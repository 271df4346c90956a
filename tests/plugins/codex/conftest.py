"""Fixture files of the Codex plugin tests, and the recorded payloads they hold."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

FIXTURES = Path(__file__).parent / "fixtures"


def recorded(name: str) -> list[tuple[str, dict[str, Any]]]:
    """(host event, payload) pairs of a hook-payloads JSONL fixture."""
    pairs = []
    for line in (FIXTURES / name).read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        pairs.append((record["label"], record["stdin_json"]))
    return pairs
