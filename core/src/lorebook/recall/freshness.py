"""Is the note index current? A check that costs one stat per folder, not one per note.

When the index is brought in line with ``nodes/`` (a full stat walk), it records the
modification time of every folder under ``nodes/``. A folder's time changes whenever an
entry in it is created, removed or renamed: a ``git pull`` or checkout, an editor that
saves by renaming, every lorebook writer (which also re-records the folder it wrote in). So
the session-start hook stats those folders only, and walks the notes (importing the
heavier modules) only when one of them changed. A note edited in place by an editor that
rewrites the file without renaming it is picked up by the next lorebook command or
``lorebook index rebuild``, which always walk the notes.

Runs on the hook path: standard library only.
"""

from __future__ import annotations

import json
import os

from lorebook.recall.db import sqlite3

DIRS_KEY = "dirs"


def recorded(db: sqlite3.Connection) -> dict[str, int] | None:
    """The folder times an index recorded, or None."""
    try:
        row = db.execute("SELECT value FROM meta WHERE key = ?", (DIRS_KEY,)).fetchone()
    except sqlite3.Error:
        return None
    if row is None:
        return None
    try:
        value = json.loads(row[0])
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def record(db: sqlite3.Connection, times: dict[str, int]) -> None:
    """Store the folder times (inside the caller's transaction)."""
    db.execute(
        "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
        (DIRS_KEY, json.dumps(times, sort_keys=True)),
    )


def unchanged(index_file: str, nodes: str) -> bool:
    """True when every folder the index recorded still has its recorded time.

    False for an index another version of lorebook wrote (after an upgrade): it is rebuilt.
    """
    from lorebook.recall.index import INDEX_VERSION

    if not os.path.exists(index_file):
        return False
    try:
        db = sqlite3.connect(f"file:{index_file}?mode=ro", uri=True, timeout=2.0)
    except sqlite3.Error:
        return False
    try:
        times = recorded(db)
        version = db.execute("SELECT value FROM meta WHERE key = 'version'").fetchone()
    except sqlite3.Error:
        return False
    finally:
        db.close()
    if not times or version is None or version[0] != INDEX_VERSION:
        return False
    for rel, mtime in times.items():
        try:
            if os.stat(os.path.join(nodes, rel)).st_mtime_ns != mtime:
                return False
        except OSError:
            return False
    return True
