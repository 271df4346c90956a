"""Sessions written to teach (kenkeep's prompt-eval format): what the rules extractor keeps.

``benchmarks/kenkeep-style`` holds 24 fixtures written by a session that had read neither the
extractor nor its tests. Measured blind they gave 13 of 19 points and 4 proposals from the
sessions that expect none; the passes that read them took that to 16 and 0, and 23 of the 24
fixtures pass as kenkeep judges them. This keeps it there: a change that loses a point,
proposes from a reject session or splits one rule in two shows here.
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
    assert figures.empty_proposals == 0, figures.proposals_by_session
    assert figures.passed >= 23, figures.failed


def test_the_report_names_each_fixture_that_fails_and_why() -> None:
    """Kenkeep passes a fixture only with nothing forbidden and no proposal beyond its limit:
    the report says how many pass and names the others, not only the points matched."""
    from lorebook.cli.eval_extraction import _lines
    from lorebook.evaluation.extraction import ExtractionEval

    figures = measure_prompt_eval(FIXTURES)
    assert figures.fixtures == 24
    assert figures.passed == 24 - len(figures.failed)
    assert all(why for why in figures.failed.values())
    text = "\n".join(_lines(ExtractionEval(prompt_eval=figures)))
    assert f"fixtures passed: {figures.passed} of 24" in text
    for fixture, why in figures.failed.items():
        assert f"{fixture} ({why})" in text


def test_the_host_asking_for_approval_is_the_session_s_mechanics_not_a_rule() -> None:
    from lorebook.extractors.refusal import SESSION_MECHANICS

    for said in (
        "why do you stop and ask before every single `npm test`?",
        "stop asking me for permission to run the linter",
        "I added an allow rule for it",
    ):
        assert SESSION_MECHANICS.search(said), said
    for said in ("Stop messing with the permissions of ~/.config/app", "ask the user first"):
        assert not SESSION_MECHANICS.search(said), said
