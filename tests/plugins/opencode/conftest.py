"""Shared helpers of the OpenCode plugin tests: OpenCode's recorded store, and payloads."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping
from contextlib import closing
from pathlib import Path
from typing import Any

FIXTURES = Path(__file__).parent / "fixtures"
TOOL_SESSION = "ses_dd54da61bffe1kuZUlk2dgyhJs"  # "say hi", a resumed turn with a tool, compaction
DENY_SESSION = "ses_dd54d8d22ffe2c21zTeArppghh"  # a run whose tool.execute.before threw


def recorded_db(folder: Path) -> Path:
    """OpenCode's database rebuilt from the recorded dump (its own schema, its own rows)."""
    dump = json.loads((FIXTURES / "opencode.db.dump.json").read_text(encoding="utf-8"))
    path = folder / "opencode.db"
    with closing(sqlite3.connect(path)) as db:
        for table in ("project", "session", "message", "part"):
            db.execute(dump["_schema"][table])
            for row in dump[table]:
                values = {
                    k: json.dumps(v) if isinstance(v, dict | list) else v for k, v in row.items()
                }
                names = ", ".join(values)
                marks = ", ".join("?" for _ in values)
                db.execute(f"INSERT INTO {table} ({names}) VALUES ({marks})", list(values.values()))
        db.commit()
    return path


def plugin_payloads(directory: str) -> list[tuple[str, Mapping[str, Any]]]:
    """What the JS plugin sends for the recorded runs, one payload per hook it hands on."""
    base = {"directory": directory, "sessionID": TOOL_SESSION}
    tool = {
        **base,
        "tool": "bash",
        "callID": "call_669be4018bac40f2",
        "args": {"command": "cat hello.txt"},
    }
    return [
        ("session.created", base),
        ("chat.message", {**base, "prompt": '"say hi"'}),
        ("tool.execute.before", tool),
        ("tool.execute.after", {**tool, "output": "hello from the probe file\n", "exit": 0}),
        ("session.idle", base),
        ("experimental.session.compacting", base),
    ]
