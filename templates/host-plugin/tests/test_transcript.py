"""The plugin's transcript reader (add your host's records here)."""

from __future__ import annotations

from pathlib import Path

from lorebook___HOST__.harness import Harness

from conftest import TRANSCRIPT


def test_turns_are_read_with_their_line_numbers() -> None:
    turns = list(Harness().read_transcript(str(TRANSCRIPT)))
    assert [(t.index, t.role) for t in turns] == [
        (0, "user"), (1, "assistant"), (2, "user"), (3, "user"), (4, "assistant"),
    ]  # fmt: skip
    assert [t.injected for t in turns] == [False, False, True, False, False]


def test_a_resumed_read_numbers_from_the_lines_capture_says_lie_before(tmp_path: Path) -> None:
    """Capture resumes at an offset and says how many lines lie before it: the reader uses
    that number rather than counting the transcript again at each capture."""
    data = TRANSCRIPT.read_bytes()
    resume = data.index(b"\n") + 1  # the second line starts here
    turns = list(Harness().read_transcript(str(TRANSCRIPT), resume, None, lines_before=100))
    assert turns[0].index == 100
    assert [t.index for t in turns] == [100, 101, 102, 103]
