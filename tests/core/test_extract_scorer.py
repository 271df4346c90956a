"""The rules extractor's learned gate (issue 27, item 4): a small logistic regression over
named grammar features, shipped as JSON, fitted with each project's labels left out."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lorebook.extractors import scorer as scorer_module
from lorebook.extractors.rules import find_teaching_moments
from lorebook.extractors.scorer import (
    ITERATIONS,
    Example,
    Scorer,
    ScorerError,
    fit,
    gate,
    input_features,
    shipped,
    shipped_path,
    threshold,
    write_shipped,
)
from tests.core.test_extract_precision import RULES, alternate

CHAT = ("I disagree.", "remind me?", "Your first prompt looked great")


def test_the_shipped_scorer_loads_with_named_weights_and_a_threshold() -> None:
    scorer = shipped()
    data = json.loads(shipped_path().read_text(encoding="utf-8"))
    assert scorer.threshold == data["threshold"]
    assert 0.0 <= scorer.threshold < 1.0
    assert "rules:flagged" in scorer.weights
    assert "main:question" in scorer.weights


def test_chat_is_never_proposed_and_a_clear_rule_still_is() -> None:
    turns = alternate(*CHAT, RULES[0])
    found = find_teaching_moments(turns)
    assert [turns[c.turn].text for c in found] == [RULES[0]]


def test_features_are_named_and_read_the_turn_in_its_context() -> None:
    turns = alternate("Why did the build fail?", RULES[1])
    question = input_features(turns, 0, None)
    rule = input_features(turns, 2, "prohibition")
    assert "first_input" in question
    assert "main:question" in question
    assert "rules:prohibition" in rule
    assert "cue:after_action" in rule
    assert "first_input" not in rule


def _projects() -> dict[str, list[Example]]:
    """Three projects where a 'chat' feature marks the rules' false proposals."""
    projects: dict[str, list[Example]] = {}
    for name in ("a", "b", "c"):
        rules = [Example(("bias", "rules:flagged", "modal"), True, True) for _ in range(6)]
        chat = [Example(("bias", "rules:flagged", "chat"), False, True) for _ in range(3)]
        rest = [Example(("bias", "chat"), False, False) for _ in range(10)]
        projects[name] = rules + chat + rest
    return projects


def test_a_fit_is_deterministic_and_learns_a_gate_that_holds_out_of_project() -> None:
    first, second = fit(_projects()), fit(_projects())
    assert first == second
    assert first.threshold > 0.0
    assert first.keeps(("bias", "rules:flagged", "modal"))
    assert not first.keeps(("bias", "rules:flagged", "chat"))


def test_with_nothing_to_learn_the_threshold_keeps_every_proposal() -> None:
    # every proposal teaches: no threshold gains anything, so none is set
    assert threshold([(0.2, True), (0.9, True), (0.5, True)], 0.8) == 0.0
    # one false proposal among four true ones at lower scores: cutting it costs 4 >= 4 gained
    assert threshold([(0.1, True), (0.2, True), (0.3, True), (0.4, True), (0.9, False)], 0.8) == 0.0
    # a false proposal scored lowest is cut: it costs 4 at the break-even of precision 0.8
    assert threshold([(0.1, False), (0.5, True), (0.9, True)], 0.8) > 0.1


def test_the_gate_drops_what_scores_under_its_threshold_only() -> None:
    turns = alternate(*CHAT, RULES[0])
    found = find_teaching_moments(turns, gated=False)
    assert gate(turns, found, Scorer({}, 0.0)) == found
    assert gate(turns, found, Scorer({}, 0.9)) == []  # every score is 0.5 with no weights


def test_a_shipped_file_that_cannot_be_read_is_one_error_naming_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(scorer_module, "SHIPPED", "no-such-scorer.json")
    shipped.cache_clear()
    try:
        with pytest.raises(ScorerError, match=r"no-such-scorer\.json .*reinstall lorebook"):
            shipped()
    finally:
        monkeypatch.undo()
        shipped.cache_clear()


def test_a_written_scorer_reads_back_the_same(tmp_path: Path) -> None:
    scorer = fit(_projects())
    path = tmp_path / "scorer.json"
    write_shipped(scorer, path)
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["threshold"] == round(scorer.threshold, 4)
    assert data["weights"]["chat"] == round(scorer.weights["chat"], 4)
    assert data["iterations"] == ITERATIONS
