"""kenkeep's labelled session format: YAML front matter, then ``[USER]:`` / ``[AGENT]:`` turns.

::

    ---
    schema_version: 1
    session_id: 10000000-0000-4000-8000-000000000001
    harness: claude
    captured_at: '2026-01-15T10:00:00.000Z'
    ---
    [USER]: first line of the turn
    a turn goes on, over as many lines as it needs, until the next marker
    [AGENT]: ...

A marker counts only at the start of a line. ``[TOOL]:`` and ``[SUMMARY]:`` are read too.
The session id and harness come from the front matter (``session_id`` is required).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Literal

from lorebook.datafile import DataFileError, parse_yaml
from lorebook.importers.common import ImportFormatError, decode, imported_log
from lorebook.models.session import LoggedTurn, SessionLog

Role = Literal["user", "assistant", "tool", "summary"]

MARKER = re.compile(r"^\[(USER|AGENT|ASSISTANT|TOOL|SUMMARY)\]:[ \t]?")
ROLES: dict[str, Role] = {
    "USER": "user",
    "AGENT": "assistant",
    "ASSISTANT": "assistant",
    "TOOL": "tool",
    "SUMMARY": "summary",
}
DEFAULT_HARNESS = "kenkeep"
MAX_FRONTMATTER_BYTES = 64 * 1024
"""Front matter larger than this is refused unparsed (as a note's is)."""


def looks_like_kenkeep(text: str) -> bool:
    """True when ``text`` opens with front matter and has a ``[USER]:`` or ``[AGENT]:`` line."""
    return text.startswith("---") and any(MARKER.match(line) for line in text.splitlines())


def _front_matter(lines: list[str], source: str) -> tuple[dict[str, Any], int]:
    """Parse the front matter; return it and the index of the first line after it."""
    if not lines or lines[0].strip() != "---":
        raise ImportFormatError(f"{source}:1: expected front matter opening with '---'")
    for end in range(1, len(lines)):
        if lines[end].strip() == "---":
            break
    else:
        raise ImportFormatError(f"{source}: front matter opened on line 1 is never closed")
    try:
        text = "\n".join(lines[1:end])
        meta = parse_yaml(text, source=f"{source}: front matter", max_bytes=MAX_FRONTMATTER_BYTES)
    except DataFileError as exc:
        raise ImportFormatError(exc.message) from None
    meta = meta or {}
    if not isinstance(meta, dict):
        raise ImportFormatError(f"{source}: front matter must be a mapping")
    return meta, end + 1


def _segments(lines: list[str], first: int, source: str) -> list[tuple[Role, list[str]]]:
    """Split the lines after the front matter into ``(role, lines)`` segments."""
    segments: list[tuple[Role, list[str]]] = []
    for number, line in enumerate(lines[first:], start=first + 1):
        match = MARKER.match(line)
        if match:
            segments.append((ROLES[match.group(1)], [line[match.end() :]]))
        elif segments:
            segments[-1][1].append(line)
        elif line.strip():
            raise ImportFormatError(
                f"{source}:{number}: text before the first [USER]: or [AGENT]: marker"
            )
    return segments


def parse_kenkeep(data: bytes, source: str = "<kenkeep>") -> SessionLog:
    """Parse a kenkeep session file into a session log (one turn per marker).

    Args:
        data: The file's bytes (hashed as they are).
        source: The name errors cite (usually the path).

    Raises:
        ImportFormatError: Front matter missing, unclosed or without ``session_id``, or text
            before the first marker.
    """
    lines = decode(data, source).splitlines()
    meta, first = _front_matter(lines, source)
    session_id = meta.get("session_id")
    if not isinstance(session_id, str | int) or not str(session_id).strip():
        raise ImportFormatError(f"{source}: front matter field 'session_id' is missing or empty")
    harness = str(meta.get("harness") or DEFAULT_HARNESS)
    turns = [
        LoggedTurn(index=index, role=role, text="\n".join(body).strip())
        for index, (role, body) in enumerate(_segments(lines, first, source))
    ]
    return imported_log(harness, str(session_id).strip(), data, turns)


def import_kenkeep(path: Path) -> SessionLog:
    """Read and parse one kenkeep session file (see :func:`parse_kenkeep`)."""
    return parse_kenkeep(path.read_bytes(), str(path))
