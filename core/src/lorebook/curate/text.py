"""How alike two claims are, and whether they contradict: the rules curator's judgment.

A *claim* is a note's or a proposal's title (what it says) and description (when it
applies), reduced to features:

- **Terms**: lower-cased words without English stopwords, negations and polarity-neutral
  cues (``always``, ``use``, ``prefer``, ``instead``, ``enable``), lightly stemmed
  (:mod:`lorebook.kb.similarity`); **identifiers** are kept whole: a backticked span, or a
  word shaped like code (``_ . / : @ = #`` inside, a digit, camelCase, a leading ``-``).
- **Keys**: the identifiers, and the object of a verb that names a choice (the word after
  ``use``, ``run``, ``call``, ``install``, ``prefer``, ``with``, ``via``).
- **Polarity**: ``-1`` when the title holds an odd number of negators (``not``, ``never``,
  ``no``, ``avoid``, ``skip``, ``ignore``, ``omit``, ``forget``, ``disable``, ``forbid``,
  ``prohibit``; ``don't`` is ``do not``; a negating verb after an article or a verb of
  choice modifies its object: "use disabled tests"), else ``+1`` ("never skip the hooks"
  agrees with "always run the hooks"); a ``prohibition`` with no negator in its title is
  negative.
- **Stances**: per clause (split at ``, ; : ! ? ( )``, a sentence end, a dash, ``but``), each
  key takes the clause's polarity; ``X instead of Y``, ``X rather than Y`` and ``prefer X
  over/to Y`` give Y the opposite one. A claim is *mixed* when it holds such a pair or
  clauses of both polarities ("don't use flake8, use ruff").

Similarity is the weighted Jaccard index of two term sets (identifiers weigh
:data:`IDENTIFIER_WEIGHT`), the larger of title-only and title-plus-description.

The rules, in order (see :func:`compare`):

1. Either claim mixed: a key with opposite stances at similarity >= :data:`SUBJECT_THRESHOLD`
   is a **contradiction** ("use ruff instead of flake8" vs "use flake8 instead of ruff");
   below it, unrelated; no opposite stance: go on to 3.
2. Opposite polarity: a **contradiction** when similarity >= :data:`SUBJECT_THRESHOLD` and
   the titles are not a *substitution* (each holds a term the other lacks) unless they share
   an identifier and not both add a key: "use uv to install dependencies" and "do not use
   pip to install dependencies" agree, "call `session.commit()` at the end of a request"
   and "never call `session.commit()` inside request handlers" disagree. Else unrelated.
3. Same polarity: a **duplicate** when similarity >= :data:`DUPLICATE_THRESHOLD`, both have
   the same type, and they do not name different objects: not both titles hold a key the
   other lacks ("use uv ..." vs "use pip ..."), and they are not word for word the same but
   one word in one place ("the bravo service" vs "the charlie service").

A false contradiction asks a person one question; a missed one adds a second note.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from difflib import SequenceMatcher
from typing import Literal

from lorebook.kb.similarity import stem
from lorebook.stopwords import STOPWORDS

DUPLICATE_THRESHOLD = 0.6
"""Similarity from which two claims of the same polarity are one note (a merge).

Why 0.6: a paraphrase keeps most content words ("use uv to manage Python dependencies" vs
"manage Python dependencies with uv" scores 1.0; "run the test suite with `uv run pytest`"
vs "run tests with `uv run pytest`" 0.8), while claims sharing a frame but not what they
say share about half of their weight ("use uv/pip to install dependencies", "run tests with
pytest -x" vs "run the test suite with pytest": 0.5). A wrong merge hides a claim inside
another note, so the bar is higher than for contradictions.
"""

SUBJECT_THRESHOLD = 0.5
"""Similarity from which two claims of opposite polarity are about the same subject.

Lower than :data:`DUPLICATE_THRESHOLD` because a wrong flag costs one question to a person,
and the substitution rule already screens out claims that only share their wording.
"""

IDENTIFIER_WEIGHT = 2
"""How much an identifier weighs against a plain word in the similarity."""

NEGATORS = frozenset(
    {"not", "no", "never", "nor", "cannot"}
    | {"avoid", "avoids", "avoided", "avoiding"}
    | {"skip", "skips", "skipped", "skipping"}
    | {"ignore", "ignores", "ignored", "ignoring"}
    | {"omit", "omits", "omitted", "omitting"}
    | {"forget", "forgets", "forgetting", "forgot"}
    | {"disable", "disables", "disabled", "disabling"}
    | {"forbid", "forbids", "forbidden", "prohibit", "prohibits", "prohibited"}
)
"""Words that flip a claim's polarity (an even number of them cancels out)."""
_PARTICLE = frozenset({"not", "no", "never", "nor", "cannot"})

NEUTRAL_CUES = frozenset(
    {"always", "use", "uses", "used", "using", "prefer", "prefers", "preferred"}
    | {"instead", "rather", "enable", "enables", "enabled", "enabling", "ensure", "sure"}
    | {"need", "needs", "shall", "e.g", "i.e", "etc", "via", "don"}
)
"""Words that carry the form of a rule, not its subject: left out of the terms."""

POSITIVE_CUES = ("always", "must", "should", "use", "prefer", "enable", "ensure")
OBJECT_VERBS = frozenset(
    {"use", "uses", "using", "run", "runs", "running", "call", "calls", "calling"}
    | {"install", "installs", "prefer", "prefers", "with", "via"}
)
ARTICLES = frozenset({"a", "an", "the", "our", "your", "its", "their", "this", "that", "each"})

_CONTRACTIONS = (
    (re.compile(r"\bcan't\b|\bcannot\b"), "can not"),
    (re.compile(r"\bwon't\b"), "will not"),
    (re.compile(r"n't\b"), " not"),
)
_CONNECTIVES = {"instead": "of", "rather": "than"}
_BACKTICK = re.compile(r"`([^`\n]+)`")
_PLACEHOLDER = re.compile(r"\x00(\d+)\x00")
_CLAUSE = re.compile(r"[,;:!?()\[\]]|\.(?=\s|$)|\s[-\u2013\u2014]+\s|\bbut\b", re.IGNORECASE)
_WORD = re.compile(r"\x00\d+\x00|-{1,2}[A-Za-z0-9][\w.=-]*|[A-Za-z0-9][\w./:+#@=-]*[\w/+#]|\w")
_CODE_SHAPE = re.compile(r"[_./:@=#]|^-|\d|[a-z][A-Z]")

Relation = Literal["duplicate", "contradiction", "unrelated"]


@dataclass(frozen=True, slots=True)
class Token:
    """One word of a claim: its term (None when it carries no subject) and what it is."""

    word: str
    term: str | None
    identifier: bool


def _expand(text: str) -> str:
    text = text.replace("\u2019", "'")
    for pattern, replacement in _CONTRACTIONS:
        text = pattern.sub(replacement, text)
    return text


def _token(word: str, spans: list[str]) -> Token:
    placeholder = _PLACEHOLDER.fullmatch(word)
    if placeholder is not None:
        code = " ".join(spans[int(placeholder.group(1))].split()).lower()
        return Token(code, code or None, True)
    lower = word.lower()
    if lower in STOPWORDS or lower in NEGATORS or lower in NEUTRAL_CUES:
        return Token(lower, None, False)
    if _CODE_SHAPE.search(word):
        return Token(lower, lower, True)
    if len(lower) < 2:
        return Token(lower, None, False)
    return Token(lower, stem(lower), False)


def clauses(text: str) -> list[list[Token]]:
    """Split a text into clauses of tokens (backticked spans stay one identifier token)."""
    spans: list[str] = []

    def protect(match: re.Match[str]) -> str:
        spans.append(match.group(1))
        return f" \x00{len(spans) - 1}\x00 "

    protected = _BACKTICK.sub(protect, _expand(text))
    out = []
    for part in _CLAUSE.split(protected):
        tokens = [_token(word, spans) for word in _WORD.findall(part)]
        if tokens:
            out.append(tokens)
    return out


def _negations(tokens: Iterable[Token]) -> list[str]:
    """The negators that flip the claim (see the module docstring)."""
    found, before = [], ""
    for token in tokens:
        word = token.word
        # after a verb of choice or an article, a negating verb is an adjective: "use
        # disabled tests", "the skipped fixtures" negate nothing
        modifier = word not in _PARTICLE and (before in OBJECT_VERBS or before in ARTICLES)
        if word in NEGATORS and not token.identifier and not modifier:
            found.append(word)
        before = word
    return found


def _next_term(tokens: list[Token], start: int) -> str | None:
    for token in tokens[start:]:
        if token.word in ARTICLES:
            continue
        return token.term
    return None


def _previous_term(tokens: list[Token], end: int) -> str | None:
    for token in reversed(tokens[:end]):
        if token.word in ARTICLES:
            continue
        return token.term
    return None


def _pairs(tokens: list[Token]) -> list[tuple[str, str]]:
    """(preferred, rejected) pairs: X instead of Y, X rather than Y, prefer X over/to Y."""
    words = [t.word for t in tokens]
    found = []
    for i, word in enumerate(words):
        pair: tuple[str | None, str | None] = (None, None)
        if words[i + 1 : i + 2] == [_CONNECTIVES.get(word)]:  # X instead of Y, X rather than Y
            pair = (_previous_term(tokens, i), _next_term(tokens, i + 2))
        elif word in ("prefer", "prefers"):
            rest = words[i + 1 :]
            cut = next((j for j, w in enumerate(rest) if w in ("over", "to")), None)
            if cut is not None:
                pair = (_next_term(tokens, i + 1), _next_term(tokens, i + 2 + cut))
        preferred, rejected = pair
        if preferred and rejected and preferred != rejected:
            found.append((preferred, rejected))
    return found


def _objects(tokens: list[Token]) -> set[str]:
    found = set()
    for i, token in enumerate(tokens):
        if token.word in OBJECT_VERBS:
            term = _next_term(tokens, i + 1)
            if term:
                found.add(term)
    return found


@dataclass(frozen=True, slots=True)
class Claim:
    """The features of one claim that :func:`compare` weighs (see the module docstring)."""

    title_terms: frozenset[str]
    terms: frozenset[str]
    identifiers: frozenset[str]
    keys: frozenset[str]
    polarity: int
    cue: str
    stances: tuple[tuple[str, int], ...]
    mixed: bool
    type: str = ""
    title_words: tuple[str, ...] = ()

    @classmethod
    def of(cls, title: str, description: str = "", *, kind: str = "", type: str = "") -> Claim:
        """Read a claim from its title and description (``kind`` and ``type`` of the note)."""
        title_clauses = clauses(title)
        title_tokens = [t for clause in title_clauses for t in clause]
        all_tokens = title_tokens + [t for clause in clauses(description) for t in clause]
        negators = _negations(title_tokens)
        negative = len(negators) % 2 == 1 or (not negators and kind == "prohibition")
        stances, mixed = _stances(title_clauses, -1 if negative else 1)
        words = {t.word for t in title_tokens}
        positive_cue = next((c for c in POSITIVE_CUES if c in words), "")
        return cls(
            title_words=tuple(t.word.lower() for t in title_tokens),
            title_terms=frozenset(t.term for t in title_tokens if t.term),
            terms=frozenset(t.term for t in all_tokens if t.term),
            identifiers=frozenset(t.term for t in all_tokens if t.term and t.identifier),
            keys=frozenset(
                {t.term for t in title_tokens if t.term and t.identifier}
                | {term for clause in title_clauses for term in _objects(clause)}
            ),
            polarity=-1 if negative else 1,
            cue=" ".join(negators) if negative and negators else positive_cue,
            stances=stances,
            mixed=mixed,
            type=type,
        )

    def said(self) -> str:
        """How the claim takes its subject, for a rationale: "negates it ('never')"."""
        verb = "negates it" if self.polarity < 0 else "affirms it"
        return f"{verb} ('{self.cue}')" if self.cue else verb

    def stance(self) -> dict[str, int]:
        """Key -> +1 (the claim takes it) or -1 (the claim rejects it)."""
        return dict(self.stances)


def _stances(
    title_clauses: list[list[Token]], polarity: int
) -> tuple[tuple[tuple[str, int], ...], bool]:
    """Each key's stance, clause by clause; True when the claim is mixed."""
    stance: dict[str, int] = {}
    signs = set()
    has_pair = False
    single = len(title_clauses) == 1
    for clause in title_clauses:
        local = polarity if single else (-1 if len(_negations(clause)) % 2 else 1)
        keys = _objects(clause) | {t.term for t in clause if t.identifier and t.term}
        for term in sorted(keys):
            stance[term] = local
        for preferred, rejected in _pairs(clause):
            has_pair = True
            stance[preferred], stance[rejected] = local, -local
        if keys:
            signs.add(local)
    return tuple(sorted(stance.items())), has_pair or len(signs) > 1


def weighted_jaccard(
    left: frozenset[str], right: frozenset[str], identifiers: frozenset[str]
) -> float:
    """``w(left & right) / w(left | right)``, identifiers weighing :data:`IDENTIFIER_WEIGHT`."""

    def weight(terms: Iterable[str]) -> int:
        return sum(IDENTIFIER_WEIGHT if t in identifiers else 1 for t in terms)

    union = left | right
    return weight(left & right) / weight(union) if union else 0.0


def similarity(new: Claim, old: Claim) -> float:
    """The larger of the title-only and the title-plus-description similarity."""
    idents = new.identifiers | old.identifiers
    return max(
        weighted_jaccard(new.title_terms, old.title_terms, idents),
        weighted_jaccard(new.terms, old.terms, idents),
    )


@dataclass(frozen=True, slots=True)
class Verdict:
    """How a new claim relates to an old one, with the similarity and a reason in words."""

    relation: Relation
    similarity: float
    reason: str


def _substitution(new: Claim, old: Claim) -> bool:
    """True when each title holds a term the other lacks, and no shared identifier pins them."""
    only_new, only_old = new.title_terms - old.title_terms, old.title_terms - new.title_terms
    if not (only_new and only_old):
        return False
    shared_ids = new.title_terms & old.title_terms & (new.identifiers | old.identifiers)
    return not shared_ids or bool(new.keys - old.title_terms and old.keys - new.title_terms)


def _own_keys(new: Claim, old: Claim) -> bool:
    """True when the titles name different objects (rule 3); not a word spelt two ways."""
    pairs = list(zip(new.title_words, old.title_words, strict=False))
    slots = [(a, b) for a, b in pairs if a != b]
    if len(new.title_words) == len(old.title_words) >= 4 and len(slots) == 1:
        (a, b), *_ = slots
        return a[:4] != b[:4] and SequenceMatcher(None, a, b).ratio() < 0.75
    return bool(new.keys - old.title_terms) and bool(old.keys - new.title_terms)


def _duplicate_or_not(new: Claim, old: Claim, sim: float) -> Verdict:
    if new.type and old.type and new.type != old.type:
        return Verdict("unrelated", sim, f"different types ({new.type}, {old.type})")
    if _own_keys(new, old):
        return Verdict("unrelated", sim, "each names something the other does not")
    if sim >= DUPLICATE_THRESHOLD:
        return Verdict(
            "duplicate", sim, f"near-duplicate (similarity {sim:.2f} >= {DUPLICATE_THRESHOLD})"
        )
    return Verdict("unrelated", sim, f"similarity {sim:.2f} < {DUPLICATE_THRESHOLD}")


def _compare_stances(new: Claim, old: Claim, sim: float) -> Verdict:
    mine, theirs = new.stance(), old.stance()
    opposing = sorted(t for t in mine.keys() & theirs.keys() if mine[t] != theirs[t])
    if opposing and sim >= SUBJECT_THRESHOLD:
        takes = [t for t in opposing if mine[t] > 0]
        rejects = [t for t in opposing if mine[t] < 0]
        said = " and ".join(
            f"{verb} {', '.join(terms)}"
            for verb, terms in (("takes", takes), ("rejects", rejects))
            if terms
        )
        return Verdict(
            "contradiction",
            sim,
            f"same subject (similarity {sim:.2f} >= {SUBJECT_THRESHOLD}), opposite stances: "
            f"the proposal {said}; the note does the opposite",
        )
    if opposing:
        return Verdict("unrelated", sim, "opposite stances on a different subject")
    return _duplicate_or_not(new, old, sim)


def compare(new: Claim, old: Claim) -> Verdict:
    """Judge a new claim against an old one (the rules are in the module docstring)."""
    sim = similarity(new, old)
    if new.mixed or old.mixed:
        return _compare_stances(new, old, sim)
    if new.polarity != old.polarity:
        if sim >= SUBJECT_THRESHOLD and not _substitution(new, old):
            return Verdict(
                "contradiction",
                sim,
                f"same subject (similarity {sim:.2f} >= {SUBJECT_THRESHOLD}), opposite "
                f"polarity: the proposal {new.said()} where the note {old.said()}",
            )
        return Verdict("unrelated", sim, "opposite polarity on a different subject")
    return _duplicate_or_not(new, old, sim)


def adds_something(new_text: str, old_text: str) -> bool:
    """True when ``new_text`` holds a term ``old_text`` lacks (worth appending to a note)."""
    old = {t.term for clause in clauses(old_text) for t in clause if t.term}
    new = {t.term for clause in clauses(new_text) for t in clause if t.term}
    return bool(new - old)


__all__ = [
    "DUPLICATE_THRESHOLD",
    "IDENTIFIER_WEIGHT",
    "SUBJECT_THRESHOLD",
    "Claim",
    "Verdict",
    "adds_something",
    "clauses",
    "compare",
    "similarity",
]
