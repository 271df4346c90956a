"""Every host whose turns are numbered by line resumes from the line count capture kept."""

from __future__ import annotations

import importlib

import pytest

from lorebook.hostkit.jsonl import takes_lines_before


@pytest.mark.parametrize(
    "module",
    [
        "lorebook_claude.transcript",
        "lorebook_codex.transcript",
        "lorebook_copilot.transcript",
        "lorebook_cursor.transcript",
    ],
)
def test_a_jsonl_reader_takes_the_line_count(module: str) -> None:
    """Capture passes ``lines_before`` only to a reader that takes it; without it, resuming a
    100 MB transcript counts its lines again."""
    reader = importlib.import_module(module)
    assert takes_lines_before(reader.read_transcript)
