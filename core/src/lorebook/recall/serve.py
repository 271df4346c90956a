"""The one ranker every surface serves from: the prompt hook, ``lorebook eval`` and recall.

:func:`rank_prompt` is the raw ranking (every note that matches, best first);
:func:`relevant` is the relevance decision and :func:`confidence` whether a note goes
whole. What the prompt hook injects, the ranking after the relevance decision, the
live-note resolution, the session's already-seen notes and the character budget, is
:func:`lorebook.inject.choose.choose`, built on these. ``lorebook eval retrieval`` calls
both on the same index the hook reads, so what it measures is what a session gets.

Runs inside the hook process: standard library and light lorebook modules only.
"""

from __future__ import annotations

import math
import os

from lorebook.recall.index import IndexedNote, NoteIndex
from lorebook.recall.tokenize import tokenize

TYPE_CHECKING = False
if TYPE_CHECKING:
    from lorebook.hookconfig import HookConfig
    from lorebook.recall.stores import StoreView


class Candidate:
    """One note as the ranker scored it for a prompt, and whether it is confident."""

    __slots__ = (
        "coverage", "id", "lead", "lexical", "lexical_rank", "relevance", "score",
        "semantic_rank", "similarity", "whole", "words",
    )  # fmt: skip

    def __init__(self, id: str, lexical: float, coverage: float, similarity: float) -> None:
        self.id = id
        self.lexical = lexical
        """BM25 of the note's best section (0: no prompt word in it)."""
        self.coverage = coverage
        """Share of the prompt's idf mass that section matches."""
        self.similarity = similarity
        """Cosine of the prompt's and the note's embeddings (0 without the semantic model)."""
        self.score = 0.0
        """The rank score: the relevance, weighed by usage in
        :func:`lorebook.inject.choose.choose`."""
        self.relevance = 0.0
        """``similarity + COVERAGE_WEIGHT * coverage`` (BM25 alone without the model)."""
        self.lexical_rank = 0
        """1 for the candidate BM25 puts first, 2 for the next...; 0 when no word matched."""
        self.semantic_rank = 0
        """1 for the candidate most similar in meaning...; 0 without the semantic signal."""
        self.words = 0
        """How many distinct words the prompt has (after tokenising)."""
        self.lead = math.inf
        """How far its relevance is above that of the most relevant other candidate that is
        not sure on the other counts of :func:`confidence` (negative: that one is ahead;
        unbounded until the candidate is compared with the others)."""
        self.whole = False
        """Confident that it answers the prompt (:func:`confidence`): served whole."""

    def __repr__(self) -> str:
        return (
            f"Candidate({self.id!r}, score={self.score:.4f}, lexical={self.lexical:.2f}, "
            f"coverage={self.coverage:.2f}, similarity={self.similarity:.3f})"
        )


class Served:
    """What :func:`lorebook.inject.choose.choose` decided for one prompt."""

    __slots__ = ("notes", "ranked", "shown", "text", "whole")

    def __init__(
        self,
        ranked: list[Candidate],
        notes: list[IndexedNote],
        text: str,
        shown: list[str],
        whole: list[str] | None = None,
    ) -> None:
        self.ranked = ranked
        """The raw ranking, best first."""
        self.notes = notes
        """The notes that passed the relevance decision, in rank order, before the budget."""
        self.text = text
        """The rendered injection ("" when nothing is served)."""
        self.shown = shown
        """Ids of the notes in ``text``, in rank order (whole or as a pointer); the notes
        of ``notes`` after them are what the character budget left out."""
        self.whole = list(whole or [])
        """Those of ``shown`` served whole (the others are one-line pointers)."""


def live_notes(index: NoteIndex, ids: list[str]) -> list[IndexedNote]:
    """Resolve ids to active notes, in order: superseded ones give way to their successors."""
    found = index.get(ids)
    result: dict[str, IndexedNote] = {}
    for note_id in ids:
        note = found.get(note_id)
        if note is None:
            continue
        if note.status == "superseded":
            for succ in index.get(note.superseded_by).values():
                if succ.status == "active":
                    result.setdefault(succ.id, succ)
        elif note.status == "active":
            result.setdefault(note.id, note)
    return list(result.values())


COVERAGE_WEIGHT = 0.5
"""A note's relevance to a prompt is ``similarity + COVERAGE_WEIGHT * coverage``: the cosine
of the two embeddings, plus half the share of the prompt's information (its idf mass) that
the note's best section holds word for word. Both terms are size-free: a cosine does not
depend on the other notes, and coverage is a share of the prompt, so the same prompt makes
the same serve-or-refuse call about the same note in a store of 50 notes or of 300."""

SHORT_PROMPT = 3
"""A prompt of fewer distinct words than this ("overflow", "quasar") is ranked lexically
first: a static embedding of one or two words is too noisy to order notes that all hold
them; relevance (and so the serve-or-refuse call) is computed as for any prompt."""


SEMANTIC_CANDIDATES = 16
"""How many of the notes most similar to a prompt join the lexical candidates."""

WHOLE_RELEVANCE = 0.7
"""A note is served whole only when its relevance is at least this (see :func:`confidence`)."""
WHOLE_SIMILARITY = 0.5
"""... and its meaning alone is this close to the prompt's (cosine)."""
AGREEMENT_RANK = 2
"""... and both signals, words and meaning, put it among their first this many notes."""
CONFIDENT_WORDS = 2
"""... and the prompt has at least this many distinct words (one word says too little)."""
WHOLE_LEAD = 0.1
"""... and its relevance leads by at least this much every other candidate that is not sure
on the other counts (see :func:`confidence`)."""


def _vs(value: float, floor: float) -> str:
    """``value``, with the decimals it takes not to read as ``floor`` (0.4987: 0.499)."""
    digits = 2
    while digits < 6 and value < floor <= round(value, digits):
        digits += 1
    return f"{value:.{digits}f}"


def confidence(cand: Candidate) -> list[tuple[str, bool]]:
    """Why ``cand`` is, or is not, confident that it answers the prompt: (test, passed).

    :func:`is_confident` is true exactly when every test passes.

    A note goes whole only when every test passes; otherwise it is at most a one-line
    pointer (title, path, description) that the model reads if it helps. The tests:

    - two signals: the semantic signal is there (BM25 alone, the default install without
      ``lorebook[semantic]``, is never confident: measured on the minsky rules, no floor on
      BM25 or coverage kept whole-note precision near 0.8, so that install serves pointers);
    - agreement: words (BM25) and meaning (cosine) both put the note among their first
      :data:`AGREEMENT_RANK`;
    - relevance (cosine + half the coverage) at least :data:`WHOLE_RELEVANCE`, and the
      cosine alone at least :data:`WHOLE_SIMILARITY`;
    - a prompt of at least :data:`CONFIDENT_WORDS` distinct words (one word says too
      little to be sure of anything: kenkeep's one-word prompts);
    - a clear lead: its relevance is at least :data:`WHOLE_LEAD` above that of every other
      candidate not sure on the counts above. When a note the ranker is unsure of is about
      as relevant, the ranker cannot tell which of the two answers the prompt, and two
      pointers serve the model better than the wrong note whole; two notes both sure on
      every count go whole together (a prompt may need both). Set on half a of the minsky
      prompts, where every whole note served leads by 0.13 or more; on the five-project
      corpus the whole notes it turns into pointers led by 0.004 and 0.020, and neither
      was expected (``lorebook eval retrieval --corpus``).

    None of these depends on the size of the store: cosine and coverage are properties of
    the prompt and the note, and the ranks and the lead compare the note with its nearest
    competitors, which a store of unrelated notes does not change. Set on half a of the
    minsky prompts and kenkeep-synthetic; reported on the rest (``lorebook eval retrieval``).
    """
    two = cand.semantic_rank > 0
    return [
        ("the meaning signal ranks it" if two else "no meaning signal (BM25 alone)", two),
        (
            f"word rank {cand.lexical_rank or '-'}, meaning rank {cand.semantic_rank or '-'} "
            f"(both must be <= {AGREEMENT_RANK})",
            0 < cand.lexical_rank <= AGREEMENT_RANK and 0 < cand.semantic_rank <= AGREEMENT_RANK,
        ),
        (
            f"relevance {_vs(cand.relevance, WHOLE_RELEVANCE)} (needs >= {WHOLE_RELEVANCE:.2f})"
            if two
            else f"relevance (needs >= {WHOLE_RELEVANCE:.2f} of meaning and coverage; BM25 "
            f"alone scores {cand.relevance:.2f} on a scale of its own)",
            two and cand.relevance >= WHOLE_RELEVANCE,
        ),
        (
            f"meaning {_vs(cand.similarity, WHOLE_SIMILARITY)} (needs >= {WHOLE_SIMILARITY:.2f})"
            if two
            else f"meaning not measured (needs >= {WHOLE_SIMILARITY:.2f})",
            two and cand.similarity >= WHOLE_SIMILARITY,
        ),
        (
            f"{cand.words} distinct prompt words (needs >= {CONFIDENT_WORDS})",
            cand.words >= CONFIDENT_WORDS,
        ),
        (
            f"leads the next unsure note by {_vs(cand.lead, WHOLE_LEAD)} "
            f"(needs >= {WHOLE_LEAD:.2f})",
            cand.lead >= WHOLE_LEAD,
        ),
    ]


def _judge(ranked: list[Candidate], words: int, semantic: bool) -> None:
    """Set each candidate's ranks by each signal, its lead, and whether it is confident."""
    for at, cand in enumerate(sorted(ranked, key=lambda c: (-c.lexical, c.id)), 1):
        cand.lexical_rank = at if cand.lexical > 0 else 0
    if semantic:
        for at, cand in enumerate(sorted(ranked, key=lambda c: (-c.similarity, c.id)), 1):
            cand.semantic_rank = at
    for cand in ranked:
        cand.words = words
        cand.lead = math.inf  # the other counts alone decide who is unsure
    unsure = sorted((c for c in ranked if not is_confident(c)), key=lambda c: -c.relevance)
    for cand in ranked:
        rival = next((c.relevance for c in unsure[:2] if c is not cand), 0.0)
        cand.lead = cand.relevance - rival
        cand.whole = is_confident(cand)


def is_confident(cand: Candidate) -> bool:
    """Every test of :func:`confidence` passes (without writing out why: the hook path)."""
    return (
        0 < cand.semantic_rank <= AGREEMENT_RANK
        and 0 < cand.lexical_rank <= AGREEMENT_RANK
        and cand.relevance >= WHOLE_RELEVANCE
        and cand.similarity >= WHOLE_SIMILARITY
        and cand.words >= CONFIDENT_WORDS
        and cand.lead >= WHOLE_LEAD
    )


def _query_vector(index: NoteIndex, prompt: str) -> list[float] | None:
    from lorebook.recall.semantic import open_embedder

    embedder = open_embedder(index.pieces())
    if embedder is None:
        return None
    try:
        query = embedder.embed(prompt)
    finally:
        embedder.close()
    return query if any(query) else None


def rank_prompt(index: NoteIndex, prompt: str, *, semantic: bool = True) -> list[Candidate]:
    """The candidate notes for ``prompt``, best first (ties by id).

    Candidates are the notes BM25 ranks first and, with the semantic model
    (``lorebook[semantic]``), the notes most similar to the prompt; every candidate gets
    both signals exactly, and is scored by its relevance (:data:`COVERAGE_WEIGHT`), or by
    BM25 alone without the model.
    """
    from lorebook.recall.dense import cosines, nearest

    prompt = prompt.encode("utf-8", "replace").decode("utf-8")  # a lone surrogate reads "?"
    tokens = tokenize(prompt)
    query = _query_vector(index, prompt) if semantic else None
    near = nearest(index, query, SEMANTIC_CANDIDATES) if query is not None else {}
    near_ids = index.ids(near)
    found = index.search_with_coverage(tokens, also=near_ids.values()) if tokens else {}
    sims = {near_ids[n]: s for n, s in near.items() if n in near_ids}
    if query is not None:
        rest = [n for n in index.nums(found) if n not in near]
        rest_ids = index.ids(rest)
        sims.update((rest_ids[n], s) for n, s in cosines(index, query, rest).items())
    ranked = [
        Candidate(i, *found.get(i, (0.0, 0.0)), sims.get(i, 0.0))
        for i in sorted(set(found) | set(sims))
    ]
    for cand in ranked:
        cand.score = cand.similarity + COVERAGE_WEIGHT * cand.coverage if sims else cand.lexical
        cand.relevance = cand.score
    _judge(ranked, len(set(tokens)), bool(sims))
    if sims and len(set(tokens)) < SHORT_PROMPT:
        ranked.sort(key=lambda c: (-c.lexical, -c.score, c.id))
    else:
        ranked.sort(key=lambda c: (-c.score, c.id))
    return ranked


def relevant(ranked: list[Candidate], config: HookConfig) -> list[Candidate]:
    """The plausible candidates, in rank order: served whole when confident, else pointers.

    Lexical test (:func:`lexically_plausible`): BM25 at least ``min_score`` and
    ``relative_floor`` of the best, and at least ``min_coverage`` of the prompt's idf mass.
    Without the semantic signal that test alone decides. With it (candidates carry a
    similarity), a note is also kept when its relevance is at least ``min_relevance`` and
    at least ``relevance_ratio`` of the best note's: the extra adds the notes that meaning
    finds and never drops one the prompt's words hold, so ``lorebook[semantic]`` serves no
    fewer plausible notes than the default install (a note whose words match but whose
    embedding is far from the prompt's stays a candidate; the ranks still order them).
    """
    if not ranked:
        return []
    words = lexically_plausible(ranked, config)
    if not any(c.similarity for c in ranked):
        return [c for c in ranked if id(c) in words]
    top = max(c.score for c in ranked)
    floor = max(config.min_relevance, config.relevance_ratio * top)
    return [c for c in ranked if c.score >= floor or id(c) in words]


def lexically_plausible(ranked: list[Candidate], config: HookConfig) -> set[int]:
    """``id()`` of the candidates the default install keeps.

    BM25 at least ``min_score`` and ``relative_floor`` of the best BM25, coverage at least
    ``min_coverage``.
    """
    top = max((c.lexical for c in ranked), default=0.0)
    floor = max(config.min_score, config.relative_floor * top)
    return {id(c) for c in ranked if c.lexical >= floor and c.coverage >= config.min_coverage}


WORDS_PLACE = 3
"""With the semantic signal, the plausible note BM25 ranks first is served no later than
this place (see :func:`words_get_a_place`)."""


def words_get_a_place(
    kept: list[tuple[StoreView, Candidate]],
) -> list[tuple[StoreView, Candidate]]:
    """``kept`` (fused order), its place :data:`WORDS_PLACE` given to BM25's best of the rest.

    The fused relevance leans on meaning; a prompt's exact words sometimes know better
    (a file name, a flag). Pointers are cheap, so words get a place of their own among the
    first three served: after the two best by relevance, the note BM25 scores highest of
    the others. Measured on minsky half a, an expected note among the first three
    served went from 0.767 to 0.833 (0.800 with the 257 distractors). Without the semantic
    signal the order is BM25's already.
    """
    at = WORDS_PLACE - 1
    if len(kept) <= WORDS_PLACE or not any(c.semantic_rank for _, c in kept):
        return kept
    best = max(range(at, len(kept)), key=lambda i: (kept[i][1].lexical, -i))
    if kept[best][1].lexical <= 0:
        return kept
    return [*kept[:at], kept[best], *kept[at:best], *kept[best + 1 :]]


USAGE_BOOST = 0.1
"""At most how much being used after injection lifts a note's relevance (+10 %)."""
USAGE_DAMP = 0.9
"""What a note injected :data:`USAGE_IGNORED` times or more and never used keeps."""
USAGE_IGNORED = 5


def usage_weight(injected: int, used: int) -> float:
    """How a note's relevance is weighed by what sessions did after it was injected.

    A note the agent used after it was injected (``lorebook stats`` attributes it: quoted,
    obeyed, its file named) gets a little more, saturating: ``1 + 0.1 * used / (used + 2)``
    (one use +3 %, four uses +7 %, never more than +10 %). A note injected five times or
    more and never used gets 0.9 of its relevance. Applied to the notes already matching a
    prompt, so a use counts for similar prompts only; a note is never served on usage alone.
    """
    if used > 0:
        return 1 + USAGE_BOOST * used / (used + 2)
    if injected >= USAGE_IGNORED:
        return USAGE_DAMP
    return 1.0


def build_index(path: str, notes: list[IndexedNote], *, semantic: bool = True) -> None:
    """Write a new index holding exactly ``notes`` at ``path`` (``lorebook eval`` uses it).

    Notes are embedded as ``lorebook index rebuild`` embeds them when the semantic model is
    installed and ``semantic`` is true. Every note is indexed as reviewed (its ``reviewed``
    set): what is measured is the ranking, not a working tree's review state.
    """
    from lorebook.recall.semantic import ensure_piece_table, open_embedder
    from lorebook.recall.writer import IndexWriter

    for suffix in ("", "-journal", "-wal", "-shm"):
        if os.path.exists(path + suffix):
            os.remove(path + suffix)
    table = ensure_piece_table() if semantic else None
    embedder = open_embedder(table, bulk=True) if table else None
    for note in notes:
        note.reviewed = True
    with IndexWriter(path, embedder=embedder) as index:
        index.apply(notes)
    if embedder is not None:
        embedder.close()
