"""Which notes are plausible for a prompt: the semantic extra adds notes, never drops one.

A note whose words the prompt holds (what the default install serves as a pointer) stays
plausible with ``lorebook[semantic]`` even when its embedding is far from the prompt's.
"""

from __future__ import annotations

from pathlib import Path

from lorebook.evaluation.corpus import load_collection
from lorebook.hookconfig import HookConfig
from lorebook.inject.choose import choose
from lorebook.recall.index import NoteIndex
from lorebook.recall.serve import Candidate, rank_prompt, relevant
from tests.core.semantic_data import needs_model
from tests.core.test_ranker import index_of

CORPUS = Path(__file__).resolve().parents[2] / "benchmarks" / "retrieval"


def _cand(id: str, lexical: float, coverage: float, similarity: float) -> Candidate:
    cand = Candidate(id, lexical, coverage, similarity)
    cand.score = cand.relevance = similarity + 0.5 * coverage
    return cand


def test_a_note_the_prompt_words_hold_stays_plausible_with_the_semantic_signal() -> None:
    config = HookConfig()  # min_relevance 0.2, min_score 2.0
    words = _cand("words", lexical=6.1, coverage=0.19, similarity=0.05)  # relevance 0.145
    meaning = _cand("meaning", lexical=0.0, coverage=0.0, similarity=0.3)
    neither = _cand("neither", lexical=1.2, coverage=0.05, similarity=0.1)
    kept = [c.id for c in relevant([meaning, words, neither], config)]
    assert kept == ["meaning", "words"]  # rank order kept; "neither" passes no test
    without = [_cand(c.id, c.lexical, c.coverage, 0.0) for c in (meaning, words, neither)]
    for c in without:
        c.score = c.lexical  # the default install ranks by BM25
    assert [c.id for c in relevant(without, config)] == ["words"]


@needs_model
def test_the_semantic_install_keeps_every_note_the_default_install_keeps(
    tmp_path: Path,
) -> None:
    notes = load_collection(CORPUS / "daviswhitehead-chef-chopsky" / "notes").notes
    path = index_of(tmp_path, notes)
    prompts = [
        'every answer from chef chopsky ends with "Here are some suggestions..." and has '
        "nothing to do with what I typed",
        "where should the marketing landing page component go?",
        "add a settings screen where I can toggle dietary restrictions",
    ]
    config, lexical = HookConfig(), HookConfig(semantic=False)
    with NoteIndex(path) as index:
        for prompt in prompts:
            default = {c.id for c in relevant(rank_prompt(index, prompt, semantic=False), lexical)}
            extra = {c.id for c in relevant(rank_prompt(index, prompt), config)}
            assert default, prompt
            assert default <= extra, prompt
        # the rule it needs; before, the semantic install served nothing at all here
        shown = choose(index, prompts[0], config).shown
    assert "004-ai-service-development.mdc" in shown[:3]
