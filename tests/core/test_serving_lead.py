"""A note goes whole only when it stands clear of the notes the ranker is unsure of.

Serving by confidence: a note sure on every other count (both signals rank it, relevance,
meaning, prompt length) is still only a pointer when a note that is not sure is about as
relevant: the ranker cannot tell which of the two answers the prompt. Two notes both sure
go whole together (a prompt may need both).
"""

from __future__ import annotations

from pathlib import Path

from lorebook.recall import serve
from lorebook.recall.index import NoteIndex
from lorebook.recall.serve import WHOLE_LEAD, Candidate, confidence, is_confident, rank_prompt
from tests.core.semantic_data import needs_model
from tests.core.test_ranker import TEAM, distractors, index_of, note

ANSWERED = "I'm about to git push --force to main after the rebase, is that ok?"

RIVAL = note(
    "no-force-push-main",
    "Never force-push main",
    "Rewriting main's history breaks every clone of the team.",
    "Do not `git push --force` to main; use `git push --force-with-lease` on your branch.",
)
"""A second note answering the force-push prompt as surely as TEAM's."""


def _cand(note_id: str, lexical: float, similarity: float, relevance: float) -> Candidate:
    cand = Candidate(note_id, lexical=lexical, coverage=0.5, similarity=similarity)
    cand.score = cand.relevance = relevance
    return cand


def _judged(*cands: Candidate) -> dict[str, Candidate]:
    serve._judge(list(cands), 8, True)
    return {c.id: c for c in cands}


def test_a_note_barely_ahead_of_an_unsure_one_is_a_pointer() -> None:
    # "unsure" is as relevant within 0.05 but BM25 ranks it third: it fails agreement.
    got = _judged(
        _cand("answer", lexical=20.0, similarity=0.60, relevance=0.90),
        _cand("unsure", lexical=5.0, similarity=0.55, relevance=0.85),
        _cand("words", lexical=10.0, similarity=0.10, relevance=0.20),
    )
    assert not is_confident(got["unsure"])
    assert got["answer"].lead == 0.90 - 0.85
    assert not got["answer"].whole  # the previous code served it whole
    failed = [text for text, ok in confidence(got["answer"]) if not ok]
    assert failed == ["leads the next unsure note by 0.05 (needs >= 0.10)"]


def test_a_clear_lead_or_a_rival_as_sure_leaves_the_note_whole() -> None:
    far = _judged(
        _cand("answer", lexical=20.0, similarity=0.60, relevance=0.90),
        _cand("unsure", lexical=5.0, similarity=0.55, relevance=0.60),
        _cand("words", lexical=10.0, similarity=0.10, relevance=0.20),
    )
    assert far["answer"].whole
    assert far["answer"].lead >= WHOLE_LEAD
    both = _judged(
        _cand("answer", lexical=20.0, similarity=0.60, relevance=0.90),
        _cand("also", lexical=15.0, similarity=0.55, relevance=0.85),
        _cand("words", lexical=10.0, similarity=0.10, relevance=0.20),
    )
    assert [c.whole for c in both.values()] == [True, True, False]  # two sure answers


@needs_model
def test_two_notes_both_sure_of_a_prompt_go_whole_together(tmp_path: Path) -> None:
    path = index_of(tmp_path, [*TEAM, RIVAL, *distractors(40)])
    with NoteIndex(path) as index:
        ranked = rank_prompt(index, ANSWERED)
    assert {c.id for c in ranked if c.whole} == {"no-force-push", "no-force-push-main"}
    assert all(c.lead >= WHOLE_LEAD for c in ranked if c.whole)
