"""Whole-turn teaching: a turn bound to its task is left out, its teaching twin is kept.

Each case pairs a human turn that reads like teaching but is tied to this task (a request, a
report of what the human found, a genuine question, a question about what happened, the
session's own plan, *means* as a noun, a source read) with a turn of the same shape that
does teach. The wording is our own, not the evaluation transcripts'.
"""

from __future__ import annotations

import pytest

from lorebook.extractors.rules import find_teaching_moments
from lorebook.extractors.signals import judge
from lorebook.models.session import LoggedToolCall, LoggedTurn


def refused() -> LoggedTurn:
    """An agent turn whose tool call the human refused."""
    call = LoggedToolCall(
        name="Bash", result_excerpt="No (tell Claude what to do differently)", is_error=True
    )
    return LoggedTurn(index=0, role="assistant", text="Running it.", tool_calls=[call])


def acted() -> LoggedTurn:
    """An agent turn that ran a tool, and the human let it."""
    call = LoggedToolCall(name="Bash", result_excerpt="exit 0")
    return LoggedTurn(index=0, role="assistant", text="Done.", tool_calls=[call])


def answered() -> LoggedTurn:
    """An agent turn that only talked."""
    return LoggedTurn(index=0, role="assistant", text="Here is what I found.")


def flagged(before: LoggedTurn, human: str) -> list[str]:
    """The quotes the rules extractor takes from ``human``, typed after ``before``."""
    turns = [
        LoggedTurn(index=0, role="user", text="Set up the nightly report."),
        before.model_copy(update={"index": 1}),
        LoggedTurn(index=2, role="user", text=human),
    ]
    return [c.quote for c in find_teaching_moments(turns) if c.turn == 2]


CASES = {
    "a request in the first person": (
        answered,
        "I would like to show this report to my team on Friday.",
        "I'd rather you showed the totals in euros.",
    ),
    "a request with a scope beyond the task": (
        answered,
        "I want to take the afternoon to read the report.",
        "I want to keep the changelog in the repository root, not in docs.",
    ),
    "a report of what the human found": (
        refused,
        "wait, I noticed the admin panel still has a built-in exporter. "
        "Please think about the best approach here.",
        "wait, I noticed you still write the export to the production bucket.",
    ),
    "a question the next sentence depends on": (
        refused,
        "isn't that only needed for the first deploy? "
        "If so, I can run it myself in another terminal.",
        "isn't that only needed for the first deploy?",
    ),
    "a question about what happened": (
        acted,
        "Didn't the formatter run in the commit hook?",
        "Doesn't the formatter run in the commit hook?",
    ),
    "the session's own plan": (
        refused,
        "I thought we agreed to use the staging bucket?!",
        "We agreed to always use the staging bucket for previews!",
    ),
    "the moment of the task": (
        acted,
        "Shouldn't we now just rebase onto the release branch?",
        "Shouldn't we rebase onto the release branch?",
    ),
    "means as a noun": (
        acted,
        "The charts are a means to an end. THOROUGHLY",
        "A quiet revision means an edit that bumps no version.",
    ),
    "a definition asked about": (
        answered,
        "I meant the linter should run in the commit hook, no?",
        "I meant the linter runs in the commit hook, before every push.",
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_turn_bound_to_its_task_is_left_out_and_its_teaching_twin_kept(case: str) -> None:
    before, bound, teaching = CASES[case]
    assert flagged(before(), bound) == []
    assert flagged(before(), teaching) != []


def test_a_repeated_practice_outweighs_the_moment_of_the_task() -> None:
    quotes = flagged(refused(), "last time you ran the migrations with --check first, why not now?")
    assert quotes == ["last time you ran the migrations with --check first, why not now?"]


def test_thinking_aloud_is_tentative() -> None:
    sentence = "I'm contemplating whether to switch to `pnpm` so that installs get faster."
    assert judge(sentence).status == "tentative"
    assert judge("I keep wondering if `pnpm` is faster.").status == "tentative"
    assert flagged(answered(), sentence + " Can we think it through together?") == []


def test_a_command_named_as_a_source_read_is_not_a_tool_to_run() -> None:
    assert "tooling" in judge("Check with `make lint` before you hand it over.").kinds
    assert judge("Check with `make` documentation how best to proceed.").status == "neutral"
    assert flagged(acted(), "Check with `make` documentation how best to proceed.") == []
