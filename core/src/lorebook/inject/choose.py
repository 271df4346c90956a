"""What the prompt hook injects for a prompt: the ranking, decided, validated and rendered.

:func:`choose` takes the ranker's candidates (:mod:`lorebook.recall.serve`) through the
relevance decision, the live-note resolution, the validity checks and warnings
(:mod:`lorebook.inject.served`), the session's already-seen notes and the character
budget. The prompt hook, ``lorebook recall``, the warm process's rehearsal and
``lorebook eval retrieval`` all call it, so what ``eval`` measures is what a session gets.

Runs inside the hook process: standard library and light lorebook modules only.
"""

from __future__ import annotations

from lorebook.recall.index import NoteIndex
from lorebook.recall.serve import (
    Served,
    live_notes,
    rank_prompt,
    relevant,
    usage_weight,
    words_get_a_place,
)
from lorebook.recall.stores import StoreView
from lorebook.reviewstate import is_unreviewed

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Collection, Mapping, Sequence, Set

    from lorebook.events import Hit
    from lorebook.hookconfig import HookConfig

PROMPT_HEADER = (
    "lorebook: notes the team keeps for this project (.lorebook/) that match this "
    "prompt. Follow them unless the user says otherwise."
)


def choose(
    index: NoteIndex,
    prompt: str,
    config: HookConfig,
    seen: Collection[str] = (),
    *,
    stores: Sequence[StoreView] = (),
    extra: Sequence[Hit] = (),
    usage: Mapping[str, tuple[int, int]] | None = None,
    loaded: Set[str] = frozenset(),
    pointed: Collection[str] = (),
) -> Served:
    """What the prompt hook injects for ``prompt``, given the notes the session has seen.

    Every store in ``stores`` (default: the repository store ``index`` belongs to) is
    ranked and the union decided together; ``extra`` (plugins' ``recall`` hits naming
    notes of those stores) joins what the relevance decision kept. The notes are validated
    (:mod:`lorebook.inject.served`): a stale note is demoted and marked "recheck", errata
    come with their note, and a refuted note that matches is served only as a warning. A
    note no person has reviewed comes after the reviewed ones, as a labelled pointer
    (``recall.unreviewed``: ``pointer``), or not at all (``none``).
    ``usage`` (note id -> times injected, times used afterwards) weighs the repository's
    notes by what sessions did with them (:func:`usage_weight`). A repository note derived
    from a file in ``loaded`` (what the host loads by itself) is not served at all
    (:mod:`lorebook.inject.loaded`). A note ``seen`` only as a pointer (``pointed``) comes
    again when it is served whole now.
    """
    from lorebook.inject import served as sv
    from lorebook.inject.loaded import not_loaded

    views = list(stores) or [StoreView.home(index)]
    pairs = [(v, c) for v in views for c in rank_prompt(v.index, prompt, semantic=config.semantic)]
    if usage:
        for view, cand in pairs:
            if view is views[0]:
                cand.score *= usage_weight(*usage.get(cand.id, (0, 0)))
    if len(views) > 1 or usage:
        pairs.sort(key=lambda pair: (-pair[1].score, pair[1].id))
    ranked = [c for _, c in pairs]
    kept = {id(c) for c in relevant(ranked, config)}
    plausible = words_get_a_place([(v, c) for v, c in pairs if id(c) in kept])
    found = [(v, c.id, c.score) for v, c in plausible][: config.max_notes * 3]
    confident = {(v.name, c.id) for v, c in plausible if c.whole}
    found += sv.from_hits(extra, views, found)
    facts, refuted = sv.resolve(found, live_notes)
    facts = not_loaded(facts, loaded)
    for fact in facts:  # a successor or a plugin's hit was not judged: a pointer
        fact.whole = (fact.store, fact.id) in confident
    again = {n.seen_key for n in facts if n.whole and not is_unreviewed(n)} & set(pointed)
    facts = [n for n in sv.validated(facts, views) if n.seen_key in again or n.seen_key not in seen]
    warnings = [n for n in refuted if n.seen_key not in seen]
    top = sv.reviewed_first(facts, config.unreviewed, config.max_notes)
    out = sv.compose_notes(PROMPT_HEADER, top, warnings, config.prompt_chars)
    return sv.ServedNotes(ranked, top, out.text, out.shown, out.warned, warnings, out.whole)
