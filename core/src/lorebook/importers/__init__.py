"""Importers: other transcript exports turned into session logs, in memory.

Each importer is a pure function from a file's bytes to a
:class:`~lorebook.models.session.SessionLog` (turns, ``transcript_hash`` = sha256 of the
bytes, ``transcript_length`` = their count). Nothing is written to disk and nothing is
redacted here: the caller redacts before it stages the log, as capture does.

Formats:

- ``specstory``: SpecStory markdown exports of Cursor, VS Code Copilot and Claude Code chats
  (:mod:`.specstory`);
- ``jsonl``: plain normalised turns, one JSON object per line (:mod:`.jsonl`);
- ``kenkeep``: kenkeep's labelled sessions, ``[USER]:`` / ``[AGENT]:`` (:mod:`.kenkeep`);
- ``console``: text copied from a Claude Code or Gemini CLI terminal (:mod:`.console`).

A host's native transcripts (Claude Code session files, Codex rollouts) are not parsed
here: :mod:`.sources` hands them to the harness plugin that recognises them, and
:mod:`.staging` stages them through capture.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from lorebook.importers.common import ImportFormatError, NothingToImport, decode
from lorebook.importers.console import looks_like_console, parse_console
from lorebook.importers.jsonl import parse_jsonl
from lorebook.importers.kenkeep import looks_like_kenkeep, parse_kenkeep
from lorebook.importers.specstory import looks_like_specstory, parse_specstory
from lorebook.models.session import SessionLog

FORMATS: dict[str, Callable[[bytes, str], SessionLog]] = {
    "specstory": lambda data, name: parse_specstory(data, name).log,
    "jsonl": parse_jsonl,
    "kenkeep": parse_kenkeep,
    "console": parse_console,
}
"""Every import format by name: a function of the file's bytes and its name."""

__all__ = ["FORMATS", "ImportFormatError", "guess_format", "import_bytes", "import_file"]


def _first_object(text: str) -> bool:
    """True when the first non-blank line of ``text`` is a JSON object."""
    for line in text.splitlines():
        if line.strip():
            try:
                return isinstance(json.loads(line), dict)
            except json.JSONDecodeError:
                return False
    return False


def guess_format(data: bytes, name: str) -> str:
    """Name the format of a file from its content (the file name is only cited).

    Raises:
        ImportFormatError: The content matches none of :data:`FORMATS`.
    """
    text = decode(data, name)
    if not text.strip():
        raise NothingToImport(f"{name}: the file is empty, nothing to import")
    if looks_like_specstory(text):
        return "specstory"
    if looks_like_kenkeep(text):
        return "kenkeep"
    if looks_like_console(text):
        return "console"
    if _first_object(text):
        return "jsonl"
    raise ImportFormatError(
        f"{name}: not a format lorebook can import; known formats: {', '.join(FORMATS)}",
        hint="name the format explicitly if the file is one of them",
    )


def import_bytes(data: bytes, name: str, fmt: str | None = None) -> SessionLog:
    """Parse a transcript export already in memory (``fmt`` None: guess from the content).

    Raises:
        ImportFormatError: Unknown ``fmt``, unrecognised content, or content not valid in
            its format (the message names the file and, where it can, the line and field).
    """
    chosen = fmt or guess_format(data, name)
    parser = FORMATS.get(chosen)
    if parser is None:
        raise ImportFormatError(
            f"unknown import format {chosen!r}; known formats: {', '.join(FORMATS)}"
        )
    return parser(data, name)


def import_file(path: Path, fmt: str | None = None) -> SessionLog:
    """Read one transcript export and return its session log (nothing is written).

    Args:
        path: The file to read.
        fmt: ``specstory``, ``jsonl``, ``kenkeep`` or ``console``; None guesses from the
            content.

    Raises:
        ImportFormatError: As :func:`import_bytes`.
        OSError: The file cannot be read.
    """
    return import_bytes(Path(path).read_bytes(), str(path), fmt)
