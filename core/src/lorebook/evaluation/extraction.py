"""``lorebook eval extraction``: the deterministic extractor and the pre-selection, measured.

For each session given, with a labels file (:mod:`~lorebook.evaluation.extraction_labels`):

1. the session is read the way ``lorebook import`` reads it
   (:func:`lorebook.importers.import_file`, then :func:`lorebook.capture.stage.redact_log`);
2. the built-in ``rules`` extractor runs on every turn, as ``lorebook extract`` runs it; an
   input is *flagged* when a proposal's quote comes from it (its origin turn);
3. the pre-selection an LLM extractor would send runs on the same turns
   (:func:`lorebook.extractors.llm.preselect`); an input is *selected* when its turn is sent.

Per input, precision is teaching flagged inputs over flagged inputs, recall teaching flagged
inputs over teaching inputs. The pre-selection's recall is over the same teaching inputs, and
its word share is the words it sends over the words of every turn, as the LLM trace counts
them. With a kenkeep prompt-eval folder, the proposals from its ``expect_empty`` (reject-,
trap-) sessions and the points matched in the others are counted as well
(:mod:`lorebook.evaluation.labelled`, a deterministic proxy).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lorebook.evaluation.extraction_labels import Label, LabelError, align, load_labels
from lorebook.evaluation.labelled import SessionScore, evaluate_folder, run_extractor
from lorebook.extractors.llm import preselect
from lorebook.extractors.rules import RulesExtractor
from lorebook.extractors.words import content_words
from lorebook.models.session import SessionLog


@dataclass(frozen=True, slots=True)
class InputResult:
    """One labelled input: its label, and what the extractor and the pre-selection did."""

    label: Label
    flagged: bool
    proposed_kind: str | None
    selected: bool
    title_words: float | None = None
    """For a flagged teaching input with a labelled rule: the share of the rule's content
    words its proposal's title holds (:func:`title_words`); None otherwise."""


@dataclass(frozen=True, slots=True)
class SessionFigures:
    """One session's inputs, and the words the pre-selection sends of its words."""

    file: str
    inputs: tuple[InputResult, ...]
    sent_words: int
    total_words: int


@dataclass(frozen=True, slots=True)
class Counts:
    """Per-input figures over some inputs."""

    inputs: int
    teaching: int
    flagged: int
    flagged_teaching: int
    selected_teaching: int
    titled: int = 0
    """Flagged teaching inputs whose title was compared with their labelled rule."""
    title_words: float = 0.0
    """The sum, over those, of the share of the rule's content words the title holds."""

    @staticmethod
    def of(results: Sequence[InputResult]) -> Counts:
        """Count ``results``."""
        shares = [r.title_words for r in results if r.title_words is not None]
        return Counts(
            inputs=len(results),
            teaching=sum(r.label.teaching for r in results),
            flagged=sum(r.flagged for r in results),
            flagged_teaching=sum(r.flagged and r.label.teaching for r in results),
            selected_teaching=sum(r.selected and r.label.teaching for r in results),
            titled=len(shares),
            title_words=sum(shares),
        )

    @property
    def title_share(self) -> float | None:
        """The mean share of a labelled rule's content words its proposal's title holds."""
        return self.title_words / self.titled if self.titled else None

    @property
    def precision(self) -> float | None:
        """Teaching flagged inputs over flagged inputs (None: nothing flagged)."""
        return self.flagged_teaching / self.flagged if self.flagged else None

    @property
    def recall(self) -> float | None:
        """Teaching flagged inputs over teaching inputs (None: nothing to find)."""
        return self.flagged_teaching / self.teaching if self.teaching else None

    @property
    def selection_recall(self) -> float | None:
        """Teaching inputs the pre-selection sends over teaching inputs."""
        return self.selected_teaching / self.teaching if self.teaching else None


@dataclass(frozen=True, slots=True)
class PromptEvalFigures:
    """The kenkeep prompt-eval sessions: points matched, proposals where none is expected."""

    points: int
    matched: int
    empty_sessions: int
    empty_proposals: int
    proposals_by_session: dict[str, int]
    fixtures: int = 0
    failed: dict[str, str] = field(default_factory=dict)
    """Each fixture kenkeep would fail, and why: forbidden text in a proposal, or more
    proposals than it allows (any, in a session that expects none)."""

    @property
    def passed(self) -> int:
        """The fixtures kenkeep would pass: every one not in :attr:`failed`."""
        return self.fixtures - len(self.failed)


@dataclass(slots=True)
class ExtractionEval:
    """Everything ``lorebook eval extraction`` reports."""

    sessions: list[SessionFigures] = field(default_factory=list)
    prompt_eval: PromptEvalFigures | None = None

    @property
    def results(self) -> list[InputResult]:
        """Every labelled input, session by session."""
        return [result for session in self.sessions for result in session.inputs]

    @property
    def word_share(self) -> float | None:
        """Words the pre-selection sends over every word of the sessions."""
        total = sum(s.total_words for s in self.sessions)
        return sum(s.sent_words for s in self.sessions) / total if total else None


def read_session(path: Path) -> SessionLog:
    """Read and redact one session as ``lorebook import`` would (nothing is staged).

    Raises:
        LorebookError: The file is missing, a folder, or in no format lorebook reads.
    """
    from lorebook.capture.stage import redact_log
    from lorebook.importers import import_file

    if not path.is_file():
        what = "a folder, not a session file" if path.is_dir() else "no such file"
        raise LabelError(f"{path}: {what}")
    return redact_log(import_file(path))


def _flagged_turns(log: SessionLog) -> dict[int, str]:
    """``{turn index: proposal kind}`` of the turns the rules extractor's quotes come from."""
    flagged: dict[int, str] = {}
    for proposal in run_extractor(RulesExtractor(), log):
        index = int(proposal.origin.rsplit(":", 1)[1])
        flagged.setdefault(index, proposal.kind)
    return flagged


def measure_session(path: Path, labels: Sequence[Label]) -> SessionFigures:
    """Run the extractor and the pre-selection on one session and pair them with its labels."""
    log = read_session(path)
    aligned = align(labels, log.turns, path.name)
    flagged = _flagged_turns(log)
    selection = preselect(log.turns)
    sent = {turn.index for turn in selection.turns}
    inputs = tuple(
        InputResult(
            label=label,
            flagged=log.turns[position].index in flagged,
            proposed_kind=flagged.get(log.turns[position].index),
            selected=log.turns[position].index in sent,
        )
        for position, label in sorted(aligned.items())
    )
    return SessionFigures(path.name, inputs, selection.sent_words, selection.total_words)


def measure_prompt_eval(folder: Path) -> PromptEvalFigures:
    """Run the rules extractor on a kenkeep prompt-eval folder (``sessions/``, ``expected/``).

    Raises:
        LabelError: The folder has no ``expected/*.yaml``.
    """
    results = evaluate_folder(folder, RulesExtractor())
    if not results:
        raise LabelError(f"{folder}: no expected/*.yaml here (not a kenkeep prompt-eval folder)")
    empty = [r for r in results if r.expectation.expect_empty]
    return PromptEvalFigures(
        points=sum(r.score.points for r in results if not r.expectation.expect_empty),
        matched=sum(len(r.score.matched) for r in results if not r.expectation.expect_empty),
        empty_sessions=len(empty),
        empty_proposals=sum(r.score.proposals for r in empty),
        proposals_by_session={r.expectation.fixture_id: r.score.proposals for r in empty},
        fixtures=len(results),
        failed={
            r.expectation.fixture_id: _why_failed(r.score) for r in results if not r.score.passed
        },
    )


def _why_failed(score: SessionScore) -> str:
    """Why kenkeep fails a fixture, in a few words."""
    reasons = [f"forbidden text {hit!r}" for hit in score.forbidden_hits]
    if score.expect_empty and score.proposals:
        reasons.append(f"{score.proposals} proposal(s) where none is expected")
    elif score.unexpected > score.max_unexpected:
        reasons.append(f"{score.unexpected} unexpected proposal(s), {score.max_unexpected} allowed")
    return "; ".join(reasons)


def evaluate_extraction(
    sessions: Sequence[Path], labels_file: Path | None, prompt_eval: Path | None
) -> ExtractionEval:
    """Measure every session against the labels, and the prompt-eval folder if given.

    Raises:
        LabelError: Sessions without a labels file, a bad labels file, a session the labels
            do not fit.
        LorebookError: A session that cannot be read.
    """
    report = ExtractionEval()
    if sessions:
        if labels_file is None:
            raise LabelError("--labels FILE is needed to measure --sessions")
        labels = load_labels(labels_file)
        for path in sessions:
            report.sessions.append(measure_session(path, labels.get(path.name, [])))
    if prompt_eval is not None:
        report.prompt_eval = measure_prompt_eval(prompt_eval)
    return report


def _ratio(value: float | None) -> float | None:
    return None if value is None else round(value, 3)


def counts_json(counts: Counts) -> dict[str, Any]:
    """Counts and their ratios as the JSON report holds them."""
    return {
        "inputs": counts.inputs,
        "teaching": counts.teaching,
        "flagged": counts.flagged,
        "flagged_teaching": counts.flagged_teaching,
        "precision": _ratio(counts.precision),
        "recall": _ratio(counts.recall),
        "preselection_recall": _ratio(counts.selection_recall),
        "title_words": _ratio(counts.title_share),
    }


def _stems(text: str) -> set[str]:
    return {word.removesuffix("s") for word in content_words(text.lower())}


def title_words(title: str, rule: str | None) -> float | None:
    """The share of ``rule``'s content words ``title`` holds (a plural's ``s`` aside).

    The labeller states the rule in their own words and the title is made from the person's,
    so 1.0 is rare and 0.0 means the title says nothing of the rule ("We're getting closer"
    for "reuse the existing search"). None when the rule has no content word.
    """
    wanted = _stems(rule or "")
    return len(_stems(title) & wanted) / len(wanted) if wanted else None


def by_label_kind(results: Sequence[InputResult]) -> dict[str, Counts]:
    """Counts of the teaching inputs of each labelled kind (recall by kind)."""
    kinds = sorted({r.label.kind for r in results if r.label.kind})
    return {kind: Counts.of([r for r in results if r.label.kind == kind]) for kind in kinds}


def by_proposed_kind(results: Sequence[InputResult]) -> dict[str, Counts]:
    """Counts of the flagged inputs of each proposed note kind (precision by kind)."""
    kinds = sorted({r.proposed_kind for r in results if r.proposed_kind})
    return {kind: Counts.of([r for r in results if r.proposed_kind == kind]) for kind in kinds}


def _session_json(session: SessionFigures) -> dict[str, Any]:
    share = session.sent_words / session.total_words if session.total_words else None
    return {
        "file": session.file,
        **counts_json(Counts.of(session.inputs)),
        "sent_words": session.sent_words,
        "total_words": session.total_words,
        "word_share": _ratio(share),
    }


def report_json(report: ExtractionEval) -> dict[str, Any]:
    """The whole report as one JSON document."""
    results = report.results
    doc: dict[str, Any] = {
        "sessions": [_session_json(session) for session in report.sessions],
        "total": {**counts_json(Counts.of(results)), "word_share": _ratio(report.word_share)},
        "recall_by_labelled_kind": {
            kind: counts_json(counts) for kind, counts in by_label_kind(results).items()
        },
        "precision_by_proposed_kind": {
            kind: counts_json(counts) for kind, counts in by_proposed_kind(results).items()
        },
        "missed": [_input_json(r) for r in results if r.label.teaching and not r.flagged],
        "false_flags": [_input_json(r) for r in results if r.flagged and not r.label.teaching],
        "not_selected": [_input_json(r) for r in results if r.label.teaching and not r.selected],
        "prompt_eval": None,
    }
    if report.prompt_eval is not None:
        figures = report.prompt_eval
        doc["prompt_eval"] = {
            "points": figures.points,
            "matched": figures.matched,
            "empty_sessions": figures.empty_sessions,
            "proposals_from_empty_sessions": figures.empty_proposals,
            "proposals_by_empty_session": dict(sorted(figures.proposals_by_session.items())),
            "fixtures": figures.fixtures,
            "passed": figures.passed,
            "failed": dict(sorted(figures.failed.items())),
        }
    return doc


def _input_json(result: InputResult) -> dict[str, Any]:
    return {"where": result.label.source, "file": result.label.file, "at": result.label.position}
