"""A small learned gate over the rules extractor's proposals (issue 27, item 4).

The rules extractor's grammar was shaped on the projects of the evaluation corpus; on a project
nobody read it proposes chat too (bug reports, feature requests, advice asked). This module
scores a human input in its context from explainable features, the same grammar signals the
rules read (:class:`lorebook.extractors.cues.TurnCues`, the verdict of each sentence, the turn's
main sentence: imperative or modal, who it addresses, a question, a hedge, a one-off scope,
a reference to a line or to "this", whether it answers an agent action, its length) plus
whether and as what the rules flagged it, and keeps a proposal only when the score reaches a
threshold (:func:`gate`).

The model is a logistic regression written here in plain Python: binary features, class
weights that balance teaching and other inputs, L2, full-batch Adagrad from zero for a fixed
number of iterations (deterministic: no random state at all). Its weights, named by feature
so each one can be read, and its threshold ship in ``scorer.json`` beside this module. The
threshold is chosen on the training projects only, from scores each got from weights fitted
without it (:func:`fit`). ``lorebook eval extraction --corpus`` fits it again with each
project left out and scores that project with it; ``benchmarks/train_scorer.py`` retrains
the shipped file.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Protocol, TypeVar

from lorebook.errors import LorebookError
from lorebook.extractors import cues as c
from lorebook.extractors.cues import TurnCues, read_turn
from lorebook.extractors.signals import is_confirmation, judge, refers_back, strip_markers
from lorebook.extractors.teaching import defines, main_sentence, prefers, teaches
from lorebook.extractors.terms import paths
from lorebook.models.session import LoggedTurn

ITERATIONS = 200
"""Full-batch Adagrad steps of a fit (fixed: a fit is the same on every machine)."""
STEP = 0.5
L2 = 1.0
TARGET_PRECISION = 0.8
"""The precision a kept proposal must be worth (issue 27: precision >= 0.8): the threshold
counts a false proposal as ``target / (1 - target)`` lost true ones (:func:`threshold`)."""
SHIPPED = "scorer.json"

_CUE_FLAGS = (
    "slash", "bare", "memory", "after_action", "after_refusal", "emphatic", "rule_question",
    "info_question", "directive", "preference", "habit", "one_off", "reason", "definition",
    "contrast", "codify", "agency", "counterfactual", "cites", "checks_agent", "accuses",
)  # fmt: skip
_DEICTIC = re.compile(r"\b(?:this|that|these|those|here|it)\b", re.IGNORECASE)
_LINE = re.compile(r"\bline \d+|:\d+\b|#L\d+", re.IGNORECASE)
_FIRST_PERSON = re.compile(r"^(?:i|i'm|i've|i'd|my)\b", re.IGNORECASE)
_WE = re.compile(r"^(?:we|we're|let's|our)\b", re.IGNORECASE)
_YOU = re.compile(r"^(?:you|your|you're)\b", re.IGNORECASE)
_MODAL = re.compile(
    r"\b(?:should|must|never|always|shouldn't|mustn't|don't|do not|need to|have to)\b",
    re.IGNORECASE,
)
_THANKS = re.compile(
    r"\b(?:thanks|thank you|great|perfect|awesome|nice|looks good|lgtm)\b", re.IGNORECASE
)
_TROUBLE = re.compile(
    r"\b(?:error|exception|traceback|failed|failing|fails|broken|doesn't work|not working)\b",
    re.IGNORECASE,
)


class Proposed(Protocol):
    """What the gate reads of a rules candidate: the turn its quote comes from, its kind."""

    @property
    def turn(self) -> int:
        """Position of the turn its quote comes from."""
        ...

    @property
    def kind(self) -> str:
        """The note kind proposed."""
        ...

    @property
    def turns(self) -> tuple[int, ...]:
        """Positions of every turn that contributed."""
        ...


P = TypeVar("P", bound=Proposed)


class ScorerError(LorebookError):
    """The shipped scorer file cannot be read."""


@dataclass(frozen=True, slots=True)
class Scorer:
    """Named feature weights and the threshold a proposal's score must reach."""

    weights: dict[str, float]
    threshold: float

    def probability(self, features: Iterable[str]) -> float:
        """The score of an input with these features: the model's probability it teaches."""
        return _sigmoid(sum(self.weights.get(name, 0.0) for name in set(features)))

    def keeps(self, features: Iterable[str]) -> bool:
        """True when the score reaches the threshold."""
        return self.probability(features) >= self.threshold

    def as_json(self) -> dict[str, object]:
        """The shipped file's content: weights rounded, sorted by name."""
        weights = {k: round(v, 4) for k, v in sorted(self.weights.items()) if round(v, 4)}
        return {
            "model": "logistic regression over named grammar features (lorebook.extractors.scorer)",
            "iterations": ITERATIONS,
            "target_precision": TARGET_PRECISION,
            "threshold": round(self.threshold, 4),
            "weights": weights,
        }


@dataclass(frozen=True, slots=True)
class Example:
    """One labelled input's features, whether it teaches and whether the rules flagged it."""

    features: tuple[str, ...]
    teaching: bool
    flagged: bool


def _bucket(name: str, value: float, edges: Sequence[float]) -> str:
    for edge in edges:
        if value <= edge:
            return f"{name}<={edge:g}"
    return f"{name}>{edges[-1]:g}"


def _main_features(main: str) -> list[str]:
    """What the turn's main sentence is: its mood, modality, who it opens on, its length."""
    core = strip_markers(main)
    checks = (
        ("question", main.rstrip().endswith("?")),
        ("directive", c.directive(main)),
        ("prohibitive", bool(c.PROHIBITIVE.search(main))),
        ("deontic", bool(c.DEONTIC.search(main))),
        ("hedge", bool(c.HEDGE.search(main))),
        ("one_off", bool(c.ONE_OFF.search(main))),
        ("request", bool(c.REQUEST.search(main))),
        ("observation", bool(c.OBSERVATION.search(main))),
        ("polite_order", bool(c.POLITE_ORDER.match(main))),
        ("refers_back", refers_back(main)),
        ("prefers", prefers(main)),
        ("defines", defines(main)),
        ("modal", bool(_MODAL.search(main))),
        ("starts_i", bool(_FIRST_PERSON.match(core))),
        ("starts_we", bool(_WE.match(core))),
        ("starts_you", bool(_YOU.match(core))),
    )
    found = [f"main:{name}" for name, holds in checks if holds]
    found.append(_bucket("main:deictic", len(_DEICTIC.findall(main)), (0, 1, 2)))
    found.append(_bucket("main:words", len(main.split()), (3, 6, 12, 25, 50)))
    return found


def input_features(
    turns: Sequence[LoggedTurn], position: int, flagged_kind: str | None
) -> tuple[str, ...]:
    """The named features of the human input at ``position``, read in its context.

    ``flagged_kind`` is the kind the rules extractor proposed from the input (None: none).
    """
    cues: TurnCues = read_turn(turns, position)
    text = turns[position].text
    found = ["bias"]
    found += [f"cue:{name}" for name in _CUE_FLAGS if getattr(cues, name)]
    if cues.pasted:
        found.append("cue:pasted")
    found.append(_bucket("words", cues.words, (3, 8, 20, 50, 150, 400)))
    found.append(_bucket("sentences", len(cues.sentences), (1, 2, 4, 8)))
    if flagged_kind is not None:
        found += ["rules:flagged", f"rules:{flagged_kind}"]
    if not any(turn.role == "user" for turn in turns[:position]):
        found.append("first_input")
    if teaches(cues):
        found.append("teaches")
    statuses: set[str] = set()
    for sentence in cues.sentences:
        verdict = judge(sentence.text)
        statuses.add(f"judge:{verdict.status}")
        statuses.update(f"judge:kind:{kind}" for kind in verdict.kinds)
    found += sorted(statuses)
    index = main_sentence(cues.sentences) if cues.sentences else None
    found += ["main:none"] if index is None else _main_features(cues.sentences[index].text)
    checks = (
        ("confirmation", is_confirmation(text)),
        ("mentions_line", bool(_LINE.search(text))),
        ("mentions_path", bool(paths(text))),
        ("backticks", "`" in text),
        ("thanks", bool(_THANKS.search(text))),
        ("trouble", bool(_TROUBLE.search(text))),
        ("code_block", "```" in text),
    )
    found += [name for name, holds in checks if holds]
    return tuple(found)


def _weights(examples: Sequence[Example]) -> dict[str, float]:
    """Logistic regression weights for ``examples``, by name (deterministic)."""
    names = sorted({name for example in examples for name in example.features})
    index = {name: i for i, name in enumerate(names)}
    rows = [sorted({index[name] for name in example.features}) for example in examples]
    labels = [1.0 if example.teaching else 0.0 for example in examples]
    count, positives = len(examples), sum(labels)
    if not positives or positives == count:
        return {}
    balance = (count / (2 * (count - positives)), count / (2 * positives))
    weights = [0.0] * len(names)
    squares = [1e-8] * len(names)
    bias = index.get("bias", -1)
    for _ in range(ITERATIONS):
        gradient = [0.0] * len(names)
        for row, label in zip(rows, labels, strict=True):
            z = sum(weights[j] for j in row)
            delta = (_sigmoid(z) - label) * balance[int(label)]
            for j in row:
                gradient[j] += delta
        for j, total in enumerate(gradient):
            g = total / count + (0.0 if j == bias else L2 / count * weights[j])
            squares[j] += g * g
            weights[j] -= STEP * g / math.sqrt(squares[j])
    return dict(zip(names, weights, strict=True))


def _sigmoid(z: float) -> float:
    return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))


def fit(
    projects: Mapping[str, Sequence[Example]],
    *,
    target: float = TARGET_PRECISION,
    cache: dict[tuple[str, ...], dict[str, float]] | None = None,
) -> Scorer:
    """A scorer fitted on the flagged inputs of ``projects`` (name: its labelled inputs).

    The weights are fitted on every flagged input. The threshold is chosen on scores the
    inputs of each project get from weights fitted without that project (the scores a new
    project's inputs would get): the score above which keeping a proposal gains most, a
    teaching input counting 1 and any other ``target / (1 - target)`` (4 at 0.8: a
    proposal is worth keeping when the odds it teaches are better than that). When no
    threshold gains over keeping every proposal, the threshold is 0: the gate keeps all.
    Deterministic: the same projects in the same order give the same scorer. ``cache``
    keeps weights by the names of the projects fitted on, for fits that share them (each
    project left out of a corpus in turn fits every pair left out twice).
    """
    flagged = {name: [e for e in examples if e.flagged] for name, examples in projects.items()}
    store = {} if cache is None else cache

    def weights(names: tuple[str, ...]) -> dict[str, float]:
        if names not in store:
            store[names] = _weights([e for name in names for e in flagged[name]])
        return store[names]

    held_out: list[tuple[float, bool]] = []
    for name, examples in flagged.items():
        others = Scorer(weights(tuple(n for n in flagged if n != name)), 0.0)
        held_out += [(others.probability(e.features), e.teaching) for e in examples]
    return Scorer(weights(tuple(flagged)), threshold(held_out, target))


def threshold(scored: Sequence[tuple[float, bool]], target: float) -> float:
    """The score from which keeping proposals gains most (0.0: keep every one).

    A kept teaching input gains 1, a kept other input loses ``target / (1 - target)``.
    """
    cost = target / (1.0 - target)
    gain = sum(1.0 if teaching else -cost for _, teaching in scored)
    best, best_gain, running = 0.0, gain, gain
    ordered = sorted(scored)
    for i, (score, teaching) in enumerate(ordered):
        running -= 1.0 if teaching else -cost
        tied = i + 1 < len(ordered) and ordered[i + 1][0] == score
        if not tied and running > best_gain + 1e-9:
            best, best_gain = math.nextafter(score, 1.0), running
    return best


@lru_cache(maxsize=1)
def shipped() -> Scorer:
    """The scorer shipped with lorebook, trained on every project of the corpus.

    Raises:
        ScorerError: The file is missing or not a scorer.
    """
    try:
        raw = resources.files(__package__ or "lorebook").joinpath(SHIPPED).read_text("utf-8")
        data = json.loads(raw)
        weights = {str(k): float(v) for k, v in data["weights"].items()}
        return Scorer(weights, float(data["threshold"]))
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as error:
        raise ScorerError(
            f"{SHIPPED} (the rules extractor's learned gate, beside {__name__}) cannot be "
            f"read: {error}; reinstall lorebook"
        ) from error


def gate(turns: Sequence[LoggedTurn], candidates: Sequence[P], scorer: Scorer) -> list[P]:
    """The candidates whose quote's turn scores at least the scorer's threshold, in order.

    A threshold of 0 keeps every candidate without reading a feature.
    """
    if scorer.threshold <= 0.0:
        return list(candidates)
    return [
        candidate
        for candidate in candidates
        if scorer.keeps(input_features(turns, candidate.turn, candidate.kind))
    ]


def labelled_examples(
    turns: Sequence[LoggedTurn], teaching: Mapping[int, bool], candidates: Sequence[Proposed]
) -> list[Example]:
    """One example per labelled input (position: teaches?), with what the rules flagged."""
    flagged: dict[int, str] = {}
    for candidate in candidates:
        for position in candidate.turns:
            flagged.setdefault(position, candidate.kind)
    return [
        Example(input_features(turns, position, flagged.get(position)), label, position in flagged)
        for position, label in sorted(teaching.items())
    ]


def write_shipped(scorer: Scorer, path: Path) -> None:
    """Write ``scorer`` as the shipped file at ``path`` (atomically)."""
    from lorebook.kb.fsutil import atomic_write_text

    atomic_write_text(path, json.dumps(scorer.as_json(), indent=1, sort_keys=True) + "\n")


def shipped_path() -> Path:
    """Where the shipped scorer file lives in the source tree (beside this module)."""
    return Path(__file__).with_name(SHIPPED)
