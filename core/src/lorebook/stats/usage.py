"""Per-note usage counts: how often each note was injected and then used.

The counts live in ``.lorebook/.cache/usage.json`` (gitignored, per machine), one entry per
staged session log::

    {"version": 1, "sessions": {"<log stem>": {"<note id>": [injected, used], ...}, ...}}

Capture rewrites the entry of the session it stages (after every stop, so the file is
current without anyone running ``lorebook stats``), and ``lorebook stats`` rewrites the
whole file from every staged log, which also drops the entries of logs pruned or forgotten
since. "Used" is :attr:`lorebook.stats.attribution.NoteOutcome.used` (a high or medium
signal; see ``docs/stats.md``).

:func:`read_usage` is for ranking: standard library only, one small file read, and any
problem (no file yet, a torn or foreign file) gives an empty answer, never an exception.
"""

from __future__ import annotations

import json
import os

USAGE_FILE = os.path.join(".cache", "usage.json")
VERSION = 1


def usage_path(kb_root: str) -> str:
    """Where a knowledge base keeps its usage counts."""
    return os.path.join(kb_root, USAGE_FILE)


def read_usage(kb_root: str) -> dict[str, tuple[int, int]]:
    """Map note id -> (times injected, times used after an injection) of a knowledge base."""
    return read_usage_file(usage_path(kb_root))


def read_usage_file(path: str | os.PathLike[str]) -> dict[str, tuple[int, int]]:
    """Map note id -> (times injected, times used after an injection), over staged sessions.

    Args:
        path: A ``usage.json`` (``lorebook eval retrieval --usage`` passes one).

    Returns:
        Only notes injected at least once; {} when nothing is known.
    """
    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict) or data.get("version") != VERSION:
        return {}
    sessions = data.get("sessions")
    if not isinstance(sessions, dict):
        return {}
    totals: dict[str, list[int]] = {}
    for counts in sessions.values():
        if not isinstance(counts, dict):
            continue
        for note_id, pair in counts.items():
            if (
                isinstance(pair, list)
                and len(pair) == 2
                and all(type(n) is int and n >= 0 for n in pair)
            ):
                total = totals.setdefault(note_id, [0, 0])
                total[0] += pair[0]
                total[1] += pair[1]
    return {note_id: (pair[0], pair[1]) for note_id, pair in sorted(totals.items())}


def session_counts(outcomes: list[object]) -> dict[str, list[int]]:
    """[injected, used] per note from :func:`lorebook.stats.attribution.attribute`'s answer."""
    counts: dict[str, list[int]] = {}
    for injection in outcomes:
        for note in getattr(injection, "notes", ()):
            pair = counts.setdefault(note.note_id, [0, 0])
            pair[0] += 1
            pair[1] += int(note.used)
    return dict(sorted(counts.items()))
