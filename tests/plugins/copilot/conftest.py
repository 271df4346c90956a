"""Shared helpers of the Copilot plugin tests: the recorded payloads and event logs."""

from __future__ import annotations

import json
import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from lorebook_copilot.events import EVENTS

FIXTURES = Path(__file__).parent / "fixtures"
SESSIONS = FIXTURES / "session-state"
TOOL_RUN = "bfa474a8-becd-4b07-a593-02f746d796cc"
DENY_RUN = "9a5fcef1-8db1-4ab9-818a-2365f57333ce"


def recorded() -> list[tuple[str, Mapping[str, Any]]]:
    """(configured event, payload) of every recorded run of an event lorebook installs."""
    pairs = []
    for line in (FIXTURES / "hook-payloads.jsonl").read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        if record["label"] in EVENTS:
            pairs.append((record["label"], record["stdin_json"]))
    return pairs


def copilot_home(root: Path, trusted: list[Path]) -> Path:
    """A COPILOT_HOME holding the recorded event logs and trusting ``trusted``."""
    home = root / "copilothome"
    shutil.copytree(SESSIONS, home / "session-state")
    config = {"trustedFolders": [str(folder) for folder in trusted]}
    text = "// User settings belong in settings.json.\n// This file is managed automatically.\n"
    (home / "config.json").write_text(text + json.dumps(config, indent=2) + "\n")
    return home
