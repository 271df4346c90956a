"""One rule written in several places is one note: restatements found across documents.

Projects repeat their rules: CLAUDE.md and AGENTS.md say the same thing in other words, a
README restates a contributing guide. Before anything is staged, every draft of a run is
compared with the drafts before it (documents in path order, rules in document order) by
the terms of their titles (the rule itself): the stemmed content words of
:func:`lorebook.kb.similarity.terms`, outside code spans and without the words that only
give a rule its form (*always*, *must*, *use*, *instead*, *perform* ...), verbs that name one
action read as one (*edit*, *modify*, *change*: :data:`ONE_ACTION`), and each code span whole,
weighing :data:`IDENTIFIER_WEIGHT` as in curation: a shared name pins the subject; a code
span that opens with another (```git mv``` and ```git mv old new```) names the same code.
Words that only qualify (*all*, *any*, *actual*, *clearly*, *already* ...) do not count.
Negation is kept apart ("never use X" is not a restatement of "use X"), read as a rule
means it: the alternative a rule turns down is not its polarity ("create tasks in the main
workspace, not in session directories" affirms; its alternative's words are left out), and
"never X without Y" ("until Y", "unless Y") requires Y: it affirms, as "only X when Y" does.

A section whose heading is an earlier rule of its document said short ("NEVER test
filesystem operations directly", then "### Direct filesystem operations") details that
rule: its rules are that rule's restatements. In one section, a rule said twice is found at
a looser containment (:data:`SECTION_CONTAINMENT`).

A draft that restates an earlier one (:func:`restates`) takes the
earlier one's title, description and kind, and keeps its own quote, body and origin: so
curation, which merges a proposal that says what a note says, folds it into that note and
the note cites both places. Drafts of one run whose proposals were staged by an earlier,
interrupted run come first, as they are.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from lorebook.bootstrap.drafts import Draft
from lorebook.extract.terms import backticked
from lorebook.kb.similarity import NEGATION, stem, terms
from lorebook.models.note import NoteKind

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
ONE_ACTION = {
    stem(word): stem(group[0])
    for group in (
        ("modify", "edit", "change", "alter", "update"),
        ("verify", "check", "confirm", "validate"),
        ("delete", "remove"),
        ("run", "execute", "invoke"),
        ("repeat", "duplicate"),
        ("guess", "assume"),
        ("directory", "folder"),
    )
    for word in group
}
"""Words that name one action (or one thing) in instructions: each is read as the first of
its group, so "never modify files" and "never edit files" are one rule."""
_CODE = re.compile(r"`[^`\n]*`")
_ALTERNATIVE = re.compile(
    r"(?:,\s*(?:and\s+|but\s+)?|\s+(?:and|but)\s+)(?:not|never)\s+(?!(?:only|just)\b)[^,;:]*"
    r"|\s+(?:rather\s+than|instead\s+of)\s+[^,;:]*",
    re.IGNORECASE,
)
"""The alternative a rule turns down: ", not in session directories", "rather than X"."""
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
HEADING_TERMS = 2
_SECTION_NUMBER = re.compile(r"^(?:\d+-)+")
SECTION_CONTAINMENT = 0.6
"""The same share for two rules of one section: one passage rarely states two rules that
share three terms or more and most of the smaller's ("Before committing, always run the
full test suite" and "The agent must run the full test suite after making any changes")."""


@dataclass(frozen=True, slots=True)
class Claim:
    """What a draft is compared by: the terms of its sentence, and whether it negates."""

    title: str
    description: str
    kind: NoteKind
    terms: frozenset[str]

    @property
    def negated(self) -> bool:
        """True when the sentence holds a negation."""
        return NEGATION in self.terms


def rule_terms(title: str) -> frozenset[str]:
    """The terms a rule is compared by: content words, and code spans as ``code:<span>``.

    A rule affirms (no :data:`~lorebook.kb.similarity.NEGATION` term) when its only negation
    turns down an alternative or says "never X without Y" (see the module docstring).
    """
    spans = {f"code:{' '.join(span.lower().split())}" for span in backticked(title)}
    prose = _CODE.sub(lambda m: " " * len(m.group(0)), title)
    affirmed = _NEVER_WITHOUT.match(prose)
    if affirmed is not None:
        words = terms(f"{affirmed.group('act')} {affirmed.group('need')}") - {NEGATION}
    else:
        words = terms(_ALTERNATIVE.sub("", prose) or prose)
    return frozenset({ONE_ACTION.get(word, word) for word in words - FORM_WORDS} | spans)


def _same_code(left: str, right: str) -> bool:
    """Two code spans name the same code: equal, or one opens with the other (a word)."""
    short, long = sorted((left, right), key=len)
    return long == short or long.startswith(short + " ")


def _code_matches(left: frozenset[str], right: frozenset[str]) -> tuple[frozenset[str], ...]:
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


def _weight(found: frozenset[str]) -> int:
    return sum(IDENTIFIER_WEIGHT if t.startswith("code:") else 1 for t in found)


def similarity(left: frozenset[str], right: frozenset[str]) -> float:
    """The weighted Jaccard index of two rules' terms (code spans weigh more)."""
    union = _weight(left | right)
    return _weight(left & right) / union if union else 0.0


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
    left, right = _code_matches(left, right)
    if similarity(left, right) >= RESTATEMENT_THRESHOLD:
        return True
    left, right = left - {NEGATION}, right - {NEGATION}
    shared = left & right
    smaller = min(_weight(left), _weight(right))
    if len(shared) < CONTAINED_TERMS or _weight(shared) < containment * smaller:
        return False
    code_left = {t for t in left if t.startswith("code:")}
    code_right = {t for t in right if t.startswith("code:")}
    return not (code_left - code_right and code_right - code_left)


def claim_of(title: str, description: str, kind: NoteKind) -> Claim:
    """The claim a draft or a staged proposal makes.

    It is compared by its title, the rule; a title cut short ("... in the session …") by the
    whole sentence it was cut from, so the words cut off still count.
    """
    whole = description.removesuffix(" …") if title.endswith("…") else title
    return Claim(title, description, kind, rule_terms(whole))


def _earlier(
    claim: Claim, seen: Sequence[tuple[Claim, str]], index: dict[str, list[int]], origin: str
) -> Claim | None:
    """The first earlier claim this one restates, if any (one said in its section, looser)."""
    candidates = sorted({i for term in claim.terms for i in index.get(term, ())})
    for i in candidates:
        other, where = seen[i]
        share = SECTION_CONTAINMENT if origin and where == origin else CONTAINMENT
        if other.negated == claim.negated and restates(claim.terms, other.terms, containment=share):
            return other
    return None


def _heading_terms(origin: str) -> frozenset[str]:
    """The content terms of the section an origin names (``file#anchor``), numbers aside."""
    _, _, anchor = origin.partition("#")
    found = rule_terms(_SECTION_NUMBER.sub("", anchor).replace("-", " "))
    return frozenset(t for t in found if not t.isdigit())


def _named_by_heading(
    origin: str, seen: Sequence[tuple[Claim, str]], index: dict[str, list[int]]
) -> Claim | None:
    """The earlier rule of the same document, in another section, that ``origin``'s heading names.

    Every content term of the heading (two at least) is one of the rule's, and they
    are half its words or more: the heading is the rule said short ("NEVER test filesystem
    operations directly", then a section "Direct filesystem operations"), not a topic it
    mentions ("Pull requests"). What that section says details the rule.
    """
    heading = _heading_terms(origin)
    if len(heading) < HEADING_TERMS:
        return None
    doc = origin.partition("#")[0]
    for i in sorted(set.intersection(*(set(index.get(t, ())) for t in heading))):
        other, where = seen[i]
        prose = {t for t in other.terms if not t.startswith("code:")} - {NEGATION}
        if where.partition("#")[0] == doc and where != origin and 2 * len(heading) >= len(prose):
            return other
    return None


def merge_restatements(
    documents: Sequence[list[Draft]], staged: Sequence[Claim] = ()
) -> tuple[list[list[Draft]], int]:
    """Each document's drafts, a restatement given its first statement's claim.

    Returns:
        The drafts, document by document, and how many restated an earlier one.
    """
    seen: list[tuple[Claim, str]] = []
    index: dict[str, list[int]] = {}

    def remember(claim: Claim, origin: str = "") -> None:
        for term in claim.terms:
            index.setdefault(term, []).append(len(seen))
        seen.append((claim, origin))

    for claim in staged:
        remember(claim)
    merged = 0
    out: list[list[Draft]] = []
    for drafts in documents:
        kept: list[Draft] = []
        for draft in drafts:
            claim = claim_of(draft.title, draft.description, draft.kind)
            first = _earlier(claim, seen, index, draft.origin) if claim.terms else None
            if first is None:
                named = _named_by_heading(draft.origin, seen, index)
                first = named if named is not None and named.negated == claim.negated else None
            if first is None:
                remember(claim, draft.origin)
                kept.append(draft)
                continue
            merged += 1
            kept.append(
                replace(draft, title=first.title, description=first.description, kind=first.kind)
            )
        out.append(kept)
    return out, merged


__all__ = ["RESTATEMENT_THRESHOLD", "Claim", "claim_of", "merge_restatements"]
