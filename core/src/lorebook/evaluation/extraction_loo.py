"""Leave-one-project-out figures of the rules extractor with its learned gate.

The gate (:mod:`lorebook.extractors.scorer`) is the one part of the deterministic extractor
fitted to labels: its weights and its threshold. Each project of the corpus is scored by the
rules with a gate fitted on every other project, so no project's labels shape the figures it
gets. The phrase rules themselves were written by reading the corpus (every project but the
ones marked held out), which no refit can undo: the rules' own figures on those projects are
not held-out figures.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from lorebook.evaluation.extraction import InputResult, SessionFigures, title_words
from lorebook.evaluation.extraction_corpus import Project, ProjectFigures
from lorebook.extractors.rules import Candidate
from lorebook.extractors.scorer import Example, Scorer, fit, gate, labelled_examples


@dataclass(frozen=True, slots=True)
class _Read:
    """A project's sessions as the ungated rules and the pre-selection read them."""

    project: Project
    candidates: tuple[tuple[Candidate, ...], ...]
    titles: tuple[dict[tuple[int, str], str], ...]
    """Each session's proposal titles, by the turn each candidate quotes and its main sentence."""
    sent: tuple[frozenset[int], ...]
    words: tuple[tuple[int, int], ...]
    examples: tuple[Example, ...]


def _read(project: Project) -> _Read:
    from lorebook.extractors.llm import preselect
    from lorebook.extractors.rules import find_teaching_moments
    from lorebook.extractors.titles import rule_title, vocabulary

    candidates, titles, sent, words, examples = [], [], [], [], []
    for session in project.sessions:
        turns = session.log.turns
        found = tuple(find_teaching_moments(turns, gated=False))
        known = vocabulary(turns)
        titles.append({(c.turn, c.main): rule_title(c.main, known) for c in found})
        selection = preselect(turns)
        candidates.append(found)
        sent.append(frozenset(turn.index for turn in selection.turns))
        words.append((selection.sent_words, selection.total_words))
        teaching = {position: label.teaching for position, label in session.labels.items()}
        examples += labelled_examples(turns, teaching, found)
    return _Read(
        project, tuple(candidates), tuple(titles), tuple(sent), tuple(words), tuple(examples)
    )


def _figures(read: _Read, scorer: Scorer | None) -> ProjectFigures:
    sessions: list[SessionFigures] = []
    for index, session in enumerate(read.project.sessions):
        turns = session.log.turns
        found = read.candidates[index]
        kept = found if scorer is None else gate(turns, found, scorer)
        flagged: dict[int, str] = {}
        titled: dict[int, str] = {}
        for candidate in kept:
            for position in candidate.turns:
                flagged.setdefault(position, candidate.kind)
                titled.setdefault(position, read.titles[index][candidate.turn, candidate.main])
        inputs = tuple(
            InputResult(
                label=label,
                flagged=position in flagged,
                proposed_kind=flagged.get(position),
                selected=turns[position].index in read.sent[index],
                title_words=title_words(titled[position], label.rule)
                if position in titled and label.teaching
                else None,
            )
            for position, label in sorted(session.labels.items())
        )
        sent_words, total_words = read.words[index]
        sessions.append(SessionFigures(session.file, inputs, sent_words, total_words))
    project = read.project
    return ProjectFigures(project.name, tuple(sessions), project.tuned_on, project.shaped_on)


@dataclass(frozen=True, slots=True)
class LeaveOneOut:
    """Each project's figures: the rules alone, and with a gate fitted without it."""

    rules: tuple[ProjectFigures, ...]
    gated: tuple[ProjectFigures, ...]
    thresholds: tuple[float, ...]
    """The threshold of each project's gate (0.0: it keeps every proposal)."""
    fitted: Scorer
    """The gate fitted on every project (what ships)."""


def leave_one_out(projects: Sequence[Project]) -> LeaveOneOut:
    """Score each project with the rules, then with a gate fitted on the other projects.

    The gate fitted on every project comes with it: the fits share their weights.
    """
    reads = [_read(project) for project in projects]
    rules = tuple(_figures(read, None) for read in reads)
    gated: list[ProjectFigures] = []
    thresholds: list[float] = []
    cache: dict[tuple[str, ...], dict[str, float]] = {}
    for read in reads:
        others = {r.project.name: r.examples for r in reads if r is not read}
        scorer = fit(others, cache=cache)
        thresholds.append(scorer.threshold)
        gated.append(_figures(read, scorer))
    fitted = fit({read.project.name: read.examples for read in reads}, cache=cache)
    return LeaveOneOut(rules, tuple(gated), tuple(thresholds), fitted)
