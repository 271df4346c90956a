"""Sessions written to teach (kenkeep's prompt-eval format): what the rules extractor keeps.

``benchmarks/kenkeep-style`` holds 24 fixtures written by a session that had read neither the
extractor nor its tests. Measured blind they gave 13 of 19 points and 4 proposals from the
sessions that expect none; the passes that read them took that to 16 and 1. This keeps it
there: a change that loses a point or proposes from a reject session shows here.
"""

from __future__ import annotations

from pathlib import Path

from lorebook.evaluation.extraction import measure_prompt_eval

FIXTURES = Path(__file__).resolve().parents[2] / "benchmarks" / "kenkeep-style"


def test_the_kenkeep_style_fixtures_keep_their_points_and_reject_sessions_stay_empty() -> None:
    figures = measure_prompt_eval(FIXTURES)
    assert figures.points == 19
    assert figures.matched >= 16
    assert figures.empty_sessions == 9
    assert figures.empty_proposals <= 1, figures.proposals_by_session
