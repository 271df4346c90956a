"""How close two short claims are: normalised token sets compared by Jaccard similarity.

Used by ``lint`` to catch an active note that says again what a refuted note said. Each text
becomes a set of terms: lower-cased word tokens, English stopwords dropped, a light suffix
stemmer applied (``tests``/``testing`` -> ``test``, ``policies`` -> ``policy``,
``deployment`` -> ``deploy``), and every negation (``not``, ``never``, ``no``, ``don't``,
``cannot``, ``avoid``) folded into one term.

The similarity of two texts is the Jaccard index of their term sets,
``|A & B| / |A | B|`` (0.0 when both are empty). Two claims *match* when the similarity is at
least :data:`MATCH_THRESHOLD` and both or neither are negated: "never use uv for X" is the
opposite of "use uv for X", not a rephrasing of it.

Jaccard rather than containment: containment (``|A & B| / min(|A|, |B|)``) rates a short
claim as contained in any longer one that repeats its two words ("use uv" in "never use uv
for deployment"), which is exactly the false positive an error must not raise.
"""

from __future__ import annotations

import re

from lorebook.stopwords import STOPWORDS

MATCH_THRESHOLD = 0.8
"""Jaccard similarity from which two claims are the same claim.

Why 0.8: a rephrasing keeps the content words, so it scores 1.0 (reordered words, plural or
singular, another verb form) or loses one word in five (4/5 = 0.8). A different claim on
the same subject swaps at least one content word: one swap among n shared words scores
n / (n + 2), which stays under 0.8 up to n = 7 (7/9 = 0.78), longer than a note's title and
description usually are. Lowering it to 0.75 would flag a one-word swap in a seven-word
claim ("use Redis ..." vs "use Postgres ..."); raising it would miss a rephrasing that adds
one word. A match fails ``lint`` with an error, so the threshold errs on the side of
precision; a deliberate correction can name the refuted note in an edge instead.
"""

NEGATION = "~not"
"""The term every negation becomes (it cannot collide with a stem: ``notes`` -> ``not``)."""
_NEGATORS = frozenset(
    {"not", "no", "nor", "never", "cannot", "avoid", "avoids", "avoided", "avoiding"}
    | {"dont", "doesnt", "didnt", "isnt", "arent", "shouldnt", "mustnt", "cant"}
)
_KEEP_AS_IS = ("ss", "us", "is")
_VOWEL_RE = re.compile(r"[aeiouy]")
_TOKEN_RE = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")
_STOP = STOPWORDS - _NEGATORS
_SUFFIXES: tuple[tuple[str, str, int], ...] = (
    # (suffix, replacement, shortest stem kept) in the order they are tried
    ("ies", "y", 3),
    ("sses", "ss", 2),
    ("ments", "", 4),
    ("ment", "", 4),
    ("ings", "", 3),
    ("ing", "", 2),
    ("edly", "", 3),
    ("ly", "", 4),
    ("ed", "", 2),  # not after "e": need, feed, speed keep their "d"
    ("es", "e", 2),
    ("s", "", 3),
)


def stem(word: str) -> str:
    """Strip one common English suffix, then normalise the end of the stem.

    The aim is that forms of one word meet (``share``, ``shares``, ``shared``, ``sharing``
    -> ``shar``; ``run``, ``runs``, ``running`` -> ``run``), not linguistic accuracy.
    """
    if word.isdigit() or word.endswith(_KEEP_AS_IS):
        return word
    for suffix, replacement, shortest in _SUFFIXES:
        if not word.endswith(suffix) or (suffix == "ed" and word.endswith("eed")):
            continue
        base = word[: len(word) - len(suffix)]
        if len(base) >= shortest and _VOWEL_RE.search(base):
            word = base + replacement
        break
    if len(word) > 3 and word[-1] == word[-2] and word[-1] not in "lsz":
        word = word[:-1]  # running -> runn -> run
    if len(word) > 2 and word.endswith("e"):
        word = word[:-1]  # share/shared -> shar
    return word


def terms(text: str) -> frozenset[str]:
    """Return the normalised term set of ``text`` (negations folded into ``not``)."""
    found: set[str] = set()
    for token in _TOKEN_RE.findall(text.casefold().replace("\u2019", "'")):
        if token.endswith("n't") or token in _NEGATORS:
            found.add(NEGATION)
            continue
        token = token.split("'", 1)[0]  # team's -> team
        if token in _STOP or (len(token) < 2 and not token.isdigit()):
            continue
        found.add(stem(token))
    return frozenset(found)


def jaccard(left: frozenset[str], right: frozenset[str]) -> float:
    """Return ``|left & right| / |left | right|`` (0.0 when both are empty)."""
    union = left | right
    return len(left & right) / len(union) if union else 0.0


def similarity(left: str, right: str) -> float:
    """Return the Jaccard similarity of the two texts' term sets, from 0.0 to 1.0."""
    return jaccard(terms(left), terms(right))


def same_claim(left: str, right: str, *, threshold: float = MATCH_THRESHOLD) -> bool:
    """Return True when the texts say the same thing by this module's measure.

    Both must be negated or neither, and their similarity must reach ``threshold``.
    """
    a, b = terms(left), terms(right)
    if (NEGATION in a) != (NEGATION in b):
        return False
    return jaccard(a, b) >= threshold


__all__ = ["MATCH_THRESHOLD", "jaccard", "same_claim", "similarity", "stem", "terms"]
