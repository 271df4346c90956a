"""Claim similarity: rephrasings match, different claims on the same subject do not."""

from __future__ import annotations

import pytest
from hypothesis import given, strategies as st

from lorebook.kb.similarity import MATCH_THRESHOLD, NEGATION, same_claim, similarity, stem, terms

MUST_MATCH = [
    # rephrasings
    ("Run tests with uv run pytest", "Tests are run with uv run pytest"),
    ("Use uv run pytest for tests", "For the tests, use uv run pytest"),
    ("Never push directly to main", "Do not push to main directly"),
    ("Never push directly to main", "Don't push directly to the main branch"),
    ("Always run the tests with plain pytest", "Run tests with plain pytest"),
    # reordered words
    ("Cache tags are shared across tenants", "Across tenants, cache tags are shared"),
    ("Migrations run before the deploy", "Before the deploy, migrations run"),
    # plural and singular, other verb forms
    ("The cache tag is shared across tenants", "Cache tags are shared across tenants"),
    ("Migrations need a review", "Each migration needs reviews"),
    ("Policies are enforced on the branches", "The policy is enforced on each branch"),
    ("Deployments use the staging pipeline", "Deploying uses staging pipelines"),
    # case, punctuation, curly apostrophes
    ("Don\u2019t commit .env files!", "do NOT commit .env files"),
]

MUST_NOT_MATCH = [
    # share several words but say something else
    ("use uv run pytest for tests", "never use uv for deployment"),
    ("Use Redis for session storage", "Use Postgres for session storage"),
    ("Deploy with the staging pipeline", "Deploy with the production pipeline"),
    ("Store secrets in the vault", "Store secrets in environment variables"),
    ("Run tests with uv run pytest", "Run tests with plain pytest"),
    ("Run the unit tests locally with plain pytest", "Run the unit tests locally with uv"),
    # the same words, negated: the opposite claim
    ("Cache tags are shared across tenants", "Cache tags are not shared across tenants"),
    ("Run database migrations before deploying", "Never run database migrations on deploy"),
    ("Push to main", "Don't push to main"),
    # nothing in common, and nothing at all
    ("Cache tags are shared", "Use conventional commits"),
    ("", "the and of"),
]


@pytest.mark.parametrize(("left", "right"), MUST_MATCH)
def test_rephrasings_match(left: str, right: str) -> None:
    assert same_claim(left, right), (similarity(left, right), terms(left), terms(right))
    assert same_claim(right, left)


@pytest.mark.parametrize(("left", "right"), MUST_NOT_MATCH)
def test_different_claims_do_not_match(left: str, right: str) -> None:
    assert not same_claim(left, right), (similarity(left, right), terms(left), terms(right))
    assert not same_claim(right, left)


def test_the_formula_is_jaccard_over_normalised_terms() -> None:
    assert terms("The tests are running; the test RAN.") == {"test", "run", "ran"}
    assert similarity("use uv run pytest for tests", "never use uv for deployment") == 2 / 7
    assert similarity("Run tests with uv", "Run tests with uv") == 1.0
    assert similarity("", "") == 0.0
    assert MATCH_THRESHOLD == 0.8


@pytest.mark.parametrize(
    ("forms", "expected"),
    [
        (["test", "tests", "testing", "tested"], "test"),
        (["run", "runs", "running"], "run"),
        (["share", "shares", "shared", "sharing"], "shar"),
        (["use", "uses", "used", "using"], "us"),
        (["policy", "policies"], "policy"),
        (["deploy", "deploys", "deploying", "deployed", "deployment", "deployments"], "deploy"),
        (["need", "needs", "needed"], "need"),
        (["branch", "branches"], "branch"),
        (["commit", "commits", "committed", "committing"], "commit"),
        (["status"], "status"),
        (["class", "classes"], "class"),
        (["redis"], "redis"),
        (["3"], "3"),
    ],
)
def test_stemming_brings_the_forms_of_a_word_together(forms: list[str], expected: str) -> None:
    assert {stem(form) for form in forms} == {expected}


def test_negations_fold_into_one_term_that_no_word_stems_to() -> None:
    for text in ("not", "never", "no", "don't", "doesn't", "cannot", "can't", "avoid", "dont"):
        assert terms(text) == {NEGATION}, text
    assert NEGATION not in terms("notes about the note")


@given(st.text(max_size=80), st.text(max_size=80))
def test_similarity_is_symmetric_and_bounded(left: str, right: str) -> None:
    score = similarity(left, right)
    assert 0.0 <= score <= 1.0
    assert score == similarity(right, left)
    if terms(left):
        assert similarity(left, left) == 1.0
