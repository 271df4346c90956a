"""``FOLDER_SUMMARIES.md``: one sorted line per folder, so ordinary merges rarely conflict."""

from __future__ import annotations

import re

from lorebook.errors import NoteFormatError
from lorebook.kb.fsutil import atomic_write_text
from lorebook.kb.paths import KBPaths, validate_relpath

HEADER = (
    "# Folder summaries\n\n"
    "One line per folder of `nodes/`. Written when curation creates a folder, or by\n"
    "`lorebook folder describe`; read by `lorebook index rebuild`.\n\n"
)
_LINE_RE = re.compile(r"^- `([^`]+)`: (\S.*)$")


def parse_summaries(text: str, *, source: str) -> dict[str, str]:
    """Parse the summaries file; every ``- `` line must be ``- `folder`: summary``."""
    found: dict[str, str] = {}
    first: dict[str, int] = {}  # the line each folder is summarised on
    for number, line in enumerate(text.replace("\r\n", "\n").split("\n"), start=1):
        if not line.startswith("- "):
            continue
        match = _LINE_RE.match(line.rstrip())
        if match is None:
            raise NoteFormatError(
                f"{source}:{number}: expected '- `folder`: summary', got {line!r}"
            )
        folder, summary = match.groups()
        validate_relpath(folder, what=f"{source}:{number}: folder")
        if folder in found:
            raise NoteFormatError(
                f"{source}:{number}: folder {folder!r} is summarised twice (lines "
                f"{first[folder]} and {number}; two branches that each described it merge so)",
                hint=f"keep one of the two lines in {source} and delete the other",
            )
        found[folder], first[folder] = summary.strip(), number
    return found


def load_summaries(paths: KBPaths) -> dict[str, str]:
    """Return folder -> summary (empty when the file does not exist)."""
    try:
        text = paths.summaries.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    return parse_summaries(text, source=paths.rel(paths.summaries))


def render_summaries(summaries: dict[str, str]) -> str:
    """Return the file text, entries sorted by folder."""
    lines = [f"- `{folder}`: {summaries[folder]}" for folder in sorted(summaries)]
    return HEADER + "\n".join(lines) + ("\n" if lines else "")


def set_summary(paths: KBPaths, folder: str, summary: str) -> None:
    """Set (or replace) one folder's summary. Callers hold the knowledge base lock."""
    validate_relpath(folder, what="folder")
    text = " ".join(summary.split())
    if not text:
        raise NoteFormatError("a folder summary cannot be empty")
    summaries = load_summaries(paths)
    summaries[folder] = text
    atomic_write_text(paths.summaries, render_summaries(summaries))
