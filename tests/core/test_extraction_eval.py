"""The deterministic extractor, gated on kenkeep's labelled prompt-eval sessions.

Reads ``shared/eval/extraction/kenkeep-prompt-eval`` beside the repository at test time (and
skips, saying why, where it is absent). The gate:

- no proposal from any ``reject-*`` or ``trap-*`` session;
- in every session, no more unexpected proposals than ``max_unexpected_proposals`` allows
  (0 in all of them), and no proposal containing a ``forbidden_substrings`` entry
  (case-insensitive, any field, quote included);
- at least 80% of the expected points of the ``admit-*`` and ``mixed-*`` sessions matched,
  one to one.

**Matching is a deterministic proxy**, not the facet judgment the data was labelled for
(that needs a person or a fixed LLM judge, and no test here pretends to do it): a point is
matched by a proposal whose quote occurs in a human turn of that session and whose text
(title, description, body, tags) contains every code identifier of the point's claim, i.e.
every backticked span, snake_case and camelCase token (:mod:`lorebook.evaluation.labelled`).
Nothing in the data is hand-labelled here. ``benchmarks/extraction_eval.py`` prints the
same figures. A held-out half of these sessions exists elsewhere; the heuristics are
general phrase rules, not fitted to these files.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from lorebook.evaluation.labelled import SessionResult, evaluate_folder
from lorebook.extractors.rules import RulesExtractor

SHARED = Path(__file__).resolve().parents[3] / "shared"
PROMPT_EVAL = SHARED / "eval/extraction/kenkeep-prompt-eval"
MIN_MATCHED = 0.80

pytestmark = pytest.mark.skipif(
    not (PROMPT_EVAL / "sessions").is_dir(),
    reason=f"evaluation data absent: {PROMPT_EVAL} (shared/ is laid beside the repository)",
)


@pytest.fixture(scope="module")
def results() -> list[SessionResult]:
    return evaluate_folder(PROMPT_EVAL, RulesExtractor())


def test_figures(results: list[SessionResult], capsys: pytest.CaptureFixture[str]) -> None:
    with capsys.disabled():
        print("\nextraction eval (deterministic proxy):")
        for result in results:
            score = result.score
            print(
                f"  {score.fixture_id:24} proposals={score.proposals} points={score.points}"
                f" matched={len(score.matched)} unexpected={score.unexpected}"
                f" forbidden={list(score.forbidden_hits)}"
            )
    assert len(results) == 12


def test_no_proposal_from_reject_or_trap_sessions(results: list[SessionResult]) -> None:
    empty = [r for r in results if r.expectation.category.startswith(("reject-", "trap-"))]
    assert len(empty) == 5
    for result in empty:
        assert result.expectation.expect_empty
        assert result.proposals == (), [p.quote for p in result.proposals]


def test_unexpected_proposals_within_the_limit(results: list[SessionResult]) -> None:
    for result in results:
        score = result.score
        assert score.unexpected <= score.max_unexpected, (
            score.fixture_id,
            [p.title for p in result.proposals],
        )


def test_forbidden_substrings_absent(results: list[SessionResult]) -> None:
    forbidden = [r for r in results if any(p.forbidden for p in r.expectation.points)]
    assert forbidden, "the data has a session with forbidden substrings"
    for result in results:
        assert result.score.forbidden_hits == (), result.score.fixture_id


def test_expected_points_matched(results: list[SessionResult]) -> None:
    admit = [r for r in results if not r.expectation.expect_empty]
    points = sum(r.score.points for r in admit)
    matched = sum(len(r.score.matched) for r in admit)
    print(f"\nmatched points {matched}/{points}")
    assert points == 12
    assert matched / points >= MIN_MATCHED


def test_every_session_passes(results: list[SessionResult]) -> None:
    assert [r.score.fixture_id for r in results if not r.score.passed] == []
