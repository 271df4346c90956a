"""How a rule is worded: the terms two rules are compared by, and the word tests.

A rule is compared by the stemmed content words of :func:`lorebook.kb.similarity.terms`,
outside code spans and without the words that only give a rule its form (*always*, *must*,
*use*, *instead*, *perform* ...), verbs that name one action read as one (*edit*, *modify*,
*change*: :data:`ONE_ACTION`), a phrasal verb read as the noun of its action ("cleaned up"
as *cleanup*, "set up" as *setup*), and each code span whole, weighing
:data:`IDENTIFIER_WEIGHT` as in curation: a shared name pins the subject; a code span that
opens with another (```git mv``` and ```git mv old new```) names the same code. Words that
only qualify (*all*, *any*, *actual*, *clearly*, *already* ...) do not count. Negation is
kept apart ("never use X" is not a restatement of "use X"), read as a rule means it: the
alternative a rule turns down is not its polarity ("create tasks in the main workspace,
not in session directories" affirms; its alternative's words are left out, and kept apart
by :func:`turned_down`), and "never X without Y" ("until Y", "unless Y") requires Y: it
affirms, as "only X when Y" does, and so does "don't miss opportunities to X" ("forget",
"neglect", "fail": "always X").

:mod:`lorebook.bootstrap.duplicates` uses these to find one rule said in several places.
"""

from __future__ import annotations

import re

from lorebook.bootstrap.grammar import ACTION_VERBS, NEVER_OMIT, PRACTICE_VERBS
from lorebook.extractors.terms import backticked
from lorebook.kb.similarity import NEGATION, stem, terms

IDENTIFIER_WEIGHT = 2
FORM_WORDS = frozenset(
    stem(word)
    for word in (
        *("always", "must", "should", "shall", "use", "using", "prefer", "instead", "rather"),
        *("ensure", "sure", "make", "please", "need", "needs", "required"),
        *("all", "any", "every", "each", "actual", "actually", "current", "currently"),
        *("clearly", "merely", "already", "just", "really", "properly", "explicitly"),
        *("strictly", "absolutely", "directly", "specific", "appropriate", "relevant"),
        *("correct", "correctly", "proper"),
        *("perform", "performed", "happen", "done", "made"),
    )
)
"""Stems that make a sentence a rule, or only qualify it, or carry its action ("must be
performed in", "must happen in", "must be made in"), without saying what it is about."""
_ONE_ACTION_VERBS = (
    ("modify", "edit", "change", "alter", "update"),
    ("verify", "check", "confirm", "validate"),
    ("delete", "remove"),
    ("run", "execute", "invoke"),
    ("repeat", "duplicate"),
    ("guess", "assume"),
)
ONE_ACTION = {
    stem(word): stem(group[0])
    for group in (*_ONE_ACTION_VERBS, ("directory", "folder"))
    for word in group
}
"""Words that name one action (or one thing) in instructions: each is read as the first of
its group, so "never modify files" and "never edit files" are one rule."""
ACTIONS = (
    frozenset(
        ONE_ACTION.get(stem(word), stem(word))
        for word in (
            *PRACTICE_VERBS,
            *ACTION_VERBS,
            *(w for group in _ONE_ACTION_VERBS for w in group),
        )
    )
    - FORM_WORDS
)
"""The stems of verbs instructions name their action with (an action of one of
:data:`ONE_ACTION`'s groups read as its first): "copy" and "modify" are two actions."""
_CODE = re.compile(r"`[^`\n]*`")
_ALTERNATIVE = re.compile(
    r"(?:,\s*(?:and\s+|but\s+)?|\s+(?:and|but)\s+)(?:not|never)\s+(?!(?:only|just)\b)[^,;:]*"
    r"|\s+(?:rather\s+than|instead\s+of)\s+[^,;:]*",
    re.IGNORECASE,
)
"""The alternative a rule turns down: ", not in session directories", "rather than X"."""
_PHRASAL = re.compile(
    r"\b(?P<verb>[a-z]{3,})[\s-]+(?P<particle>up|out|down)\b(?![\s-]+(?:to|for)\b)", re.I
)
"""A verb and its particle, which the noun of the same action writes as one word: "cleaned up"
and "cleanup", "set up" and "setup", "check out" and "checkout" ("up to date" is no verb's)."""
_NEVER_WITHOUT = re.compile(
    r"^\W*(?:never|do\s+not|don'?t|must\s+not)\s+(?P<act>.+?)\s+(?:without|until|unless)\s+"
    r"(?P<need>.+)$",
    re.IGNORECASE,
)
""""Never X without Y", "don't X until Y": a requirement of Y for X, said with two negations
(as "only X when Y" says it with none)."""
RESTATEMENT_THRESHOLD = 0.7
"""Similarity from which two rules of a run are one rule said twice.

Lower than lint's :data:`lorebook.kb.similarity.MATCH_THRESHOLD` (0.8), which must not
raise a false error: here a miss costs a second note, and a restatement in another
document changes a few words around the same content words. A rule of five content words
said again with two words changed still merges (5/7 = 0.71); a rule that changes its
object ("use uv to install packages" against "use pip to install packages": 2/4 = 0.5)
does not.
"""


CONTAINED_TERMS = 3
CONTAINMENT = 0.75
"""The share of the smaller rule's terms (weighted, its negation aside) the larger must hold."""


def rule_terms(title: str) -> frozenset[str]:
    """The terms a rule is compared by: content words, and code spans as ``code:<span>``.

    A rule affirms (no :data:`~lorebook.kb.similarity.NEGATION` term) when its only negation
    turns down an alternative or says "never X without Y" (see the module docstring).
    """
    spans = {f"code:{_span(span)}" for span in backticked(title)}
    prose = _PHRASAL.sub(_one_word, _CODE.sub(lambda m: " " * len(m.group(0)), title))
    affirmed = _NEVER_WITHOUT.match(prose)
    if affirmed is not None:
        words = terms(f"{affirmed.group('act')} {affirmed.group('need')}") - {NEGATION}
    elif (omitted := NEVER_OMIT.match(prose)) is not None:
        words = terms(omitted.group("act")) - {NEGATION}
    else:
        words = terms(_ALTERNATIVE.sub("", prose) or prose)
    return frozenset({ONE_ACTION.get(word, word) for word in words - FORM_WORDS} | spans)


def _one_word(match: re.Match[str]) -> str:
    """A phrasal verb as the noun of its action: "cleaned up" is compared as "cleanup"."""
    return stem(match.group("verb").lower()) + match.group("particle").lower()


def _span(code: str) -> str:
    """A code span as compared: lower case, spaces collapsed, a path's leading ``/`` dropped.

    ```/process/tasks.md``` and ```./process/tasks.md``` are ```process/tasks.md```, from the
    project root.
    """
    span = " ".join(code.lower().split())
    if "/" in span.lstrip("./") and " " not in span:
        span = span.removeprefix("./").removeprefix("/")
    return span


def _same_code(left: str, right: str) -> bool:
    """Two code spans name the same code.

    Equal; or one opens with the other (a word: ```git mv``` and ```git mv old new```); or
    the shorter is an option or a method named alone that the longer names on its command
    or object (```--help``` and ```minsky <command> --help```, ```.skip()``` and
    ```test.skip()```).
    """
    short, long = sorted((left, right), key=len)
    if long == short or long.startswith(short + " "):
        return True
    if short.startswith("-"):
        return long.endswith(" " + short)
    return short.startswith(".") and len(short) > 1 and long.endswith(short)


def code_matches(left: frozenset[str], right: frozenset[str]) -> tuple[frozenset[str], ...]:
    """``left`` and ``right``, a code span of ``left`` naming one of ``right`` spelled so.

    Then a shared name is a shared term (```git mv``` and ```git mv old new```).
    """
    mapped = set(left)
    for term in left:
        if term.startswith("code:") and term not in right:
            for other in right:
                if other.startswith("code:") and _same_code(term[5:], other[5:]):
                    mapped.discard(term)
                    mapped.add(other)
                    break
    return frozenset(mapped), right


def weight(found: frozenset[str]) -> int:
    """How much a set of terms weighs: a code span :data:`IDENTIFIER_WEIGHT`, a word 1."""
    return sum(IDENTIFIER_WEIGHT if t.startswith("code:") else 1 for t in found)


def similarity(left: frozenset[str], right: frozenset[str]) -> float:
    """The weighted Jaccard index of two rules' terms (code spans weigh more)."""
    union = weight(left | right)
    return weight(left & right) / union if union else 0.0


def restates(
    left: frozenset[str], right: frozenset[str], *, containment: float = CONTAINMENT
) -> bool:
    """True when two rules' terms say one rule: alike overall, or one holds the other.

    The second way: one rule is the other with more detail ("Always use `git mv`" and
    "Always use `git mv` to move or rename tracked files"), so the smaller set of terms,
    :data:`CONTAINED_TERMS` of them at least, lies almost whole (:data:`CONTAINMENT`, by
    weight: a code span the larger does not name weighs as in :func:`similarity`) in the
    larger; unless each names code the other does not (two tools, two functions). Their
    negation is no shared term there: the caller compares polarity, and "never" shared by
    two prohibitions says nothing of what they forbid.
    """
    left, right = code_matches(left, right)
    if similarity(left, right) >= RESTATEMENT_THRESHOLD:
        return True
    left, right = left - {NEGATION}, right - {NEGATION}
    shared = left & right
    smaller = min(weight(left), weight(right))
    if len(shared) < CONTAINED_TERMS or weight(shared) < containment * smaller:
        return False
    code_left = {t for t in left if t.startswith("code:")}
    code_right = {t for t in right if t.startswith("code:")}
    return not (code_left - code_right and code_right - code_left)


def turned_down(rule: str) -> frozenset[str]:
    """The word terms of the alternatives a rule turns down ("rather than X", ", not in Y").

    Code spans are blanked first, so an alternative named only in code ("instead of
    `pip`") gives nothing. Empty for a prohibition: what it forbids is its own terms.
    """
    prose = _CODE.sub(lambda m: " " * len(m.group(0)), rule)
    found = " ".join(m.group(0) for m in _ALTERNATIVE.finditer(prose))
    return rule_terms(found) - {NEGATION} if found else frozenset()


__all__ = [
    "ACTIONS",
    "CONTAINED_TERMS",
    "CONTAINMENT",
    "FORM_WORDS",
    "IDENTIFIER_WEIGHT",
    "ONE_ACTION",
    "RESTATEMENT_THRESHOLD",
    "code_matches",
    "restates",
    "rule_terms",
    "similarity",
    "turned_down",
    "weight",
]
