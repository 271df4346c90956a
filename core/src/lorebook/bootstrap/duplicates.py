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
"never X without Y" ("until Y", "unless Y") requires Y: it affirms, as "only X when Y" does,
and so does "don't miss opportunities to X" ("forget", "neglect", "fail": "always X").

A section whose heading is an earlier rule of its document said short ("NEVER test
filesystem operations directly", then "### Direct filesystem operations") details that
rule: its rules are that rule's restatements. In one section, a rule said twice is found at
a looser containment (:data:`SECTION_CONTAINMENT`).

A document that links to another document of the run (a Markdown link, or Cursor's
``mdc:`` link) says where its subject is stated: an index, a "start here" router, a summary
restates the rules of what it links to in its own words ("Never use `test.skip()` to avoid
fixing tests" for the linked file's "Tests MUST NEVER be marked as `.skip()` to make the
suite pass"). Across such a link, and between two sections of one document, a rule is
compared with the earlier ones by what its terms say *weighed by rarity*
(:func:`rare_containment`): a term many rules of the run use ("test", "task") tells little
of what a rule is about, a term two rules share and few others use ("skip", "placeholder")
pins the subject. Two documents that do not link are compared by the word tests alone.

A draft that restates an earlier one (:func:`restates`) takes the
earlier one's title, description and kind, and keeps its own quote, body and origin: so
curation, which merges a proposal that says what a note says, folds it into that note and
the note cites both places. Drafts of one run whose proposals were staged by an earlier,
interrupted run come first, as they are.
"""

from __future__ import annotations

import math
import posixpath
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from lorebook.bootstrap.drafts import Draft
from lorebook.bootstrap.grammar import ACTION_VERBS, NEVER_OMIT, PRACTICE_VERBS
from lorebook.extractors.terms import backticked
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


LINKED_CONTAINMENT = 0.55
"""The share of the smaller rule's rarity (:func:`rare_containment`) the larger must hold
for two rules of documents one of which links to the other to be one rule."""
SAME_DOCUMENT_CONTAINMENT = 0.65
"""The same share for two rules of one document in different sections: a document's
summary ("Requirements", "Key principles") restates its own rules."""
LINKED_TERMS = 2
"""Terms two rules must share at least for :func:`rare_containment` to count."""
_LINK = re.compile(r"\]\(\s*(?:mdc:)?(?P<target>[^)\s#]+)(?:#[^)\s]*)?\s*(?:\"[^\"]*\")?\s*\)")
"""A Markdown link's target (Cursor's ``mdc:`` links name a path from the project root)."""


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
    spans = {f"code:{_span(span)}" for span in backticked(title)}
    prose = _CODE.sub(lambda m: " " * len(m.group(0)), title)
    affirmed = _NEVER_WITHOUT.match(prose)
    if affirmed is not None:
        words = terms(f"{affirmed.group('act')} {affirmed.group('need')}") - {NEGATION}
    elif (omitted := NEVER_OMIT.match(prose)) is not None:
        words = terms(omitted.group("act")) - {NEGATION}
    else:
        words = terms(_ALTERNATIVE.sub("", prose) or prose)
    return frozenset({ONE_ACTION.get(word, word) for word in words - FORM_WORDS} | spans)


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


@dataclass(frozen=True, slots=True)
class Rarity:
    """How many of a run's rules use each term, to weigh what two rules share."""

    uses: Mapping[str, int]
    rules: int

    def weight(self, term: str, here: int) -> float:
        """``log((N + 1) / (1 + n))``: N rules in the run, n *other* rules using ``term``.

        ``here`` is how many of the two rules compared use it (they are not counted): a
        term no other rule uses weighs most, one nearly every rule uses almost nothing.
        """
        others = max(self.uses.get(term, 0) - here, 0)
        return math.log((self.rules + 1) / (1 + others))


def rarity(claims: Sequence[frozenset[str]]) -> Rarity:
    """The :class:`Rarity` of the terms of a run's rules (negation is no term here)."""
    return Rarity(Counter(term for terms in claims for term in terms - {NEGATION}), len(claims))


def rare_containment(
    left: frozenset[str],
    right: frozenset[str],
    rare: Rarity,
    *,
    same_action: bool = False,
) -> float:
    """The share of the smaller rule's weight (by :class:`Rarity`) that the two rules share.

    A code span weighs :data:`IDENTIFIER_WEIGHT` times its rarity, as in :func:`similarity`:
    a name both rules give pins their subject.

    0 when they share fewer than :data:`LINKED_TERMS` terms; when the smaller names code the
    larger does not (``Filter keys must match `[a-z]+` `` is not "every filter must
    match"); or when both name an action (:data:`ACTIONS`) and none is the same ("never
    copy files from the main workspace" is not "never modify files in the main workspace"),
    or, with ``same_action``, when they name no action in common.
    """
    left, right = _code_matches(left - {NEGATION}, right - {NEGATION})
    shared = left & right
    if len(shared) < LINKED_TERMS:
        return 0.0

    def weight(found: frozenset[str]) -> float:
        return sum(
            rare.weight(term, 2 if term in shared else 1)
            * (IDENTIFIER_WEIGHT if term.startswith("code:") else 1)
            for term in found
        )

    small, large = sorted((left, right), key=weight)
    if any(t.startswith("code:") for t in small - large):
        return 0.0
    if not shared & ACTIONS and (same_action or (small & ACTIONS and large & ACTIONS)):
        return 0.0
    return weight(shared) / weight(small) if weight(small) else 0.0


def links_between(texts: Mapping[str, str]) -> dict[str, frozenset[str]]:
    """For each document (repo-relative path -> text), the other documents it links to.

    A target is read from the linking document's folder, or from the project root (Cursor's
    ``mdc:`` links, and a path that names a document from the root); only documents of
    ``texts`` count. The relation is returned both ways: a document also lists those that
    link to it.
    """
    linked: dict[str, set[str]] = {rel: set() for rel in texts}
    for rel, text in texts.items():
        folder = posixpath.dirname(rel)
        for match in _LINK.finditer(text):
            target = match.group("target").removeprefix("./")
            if "://" in target:
                continue
            for candidate in (posixpath.normpath(posixpath.join(folder, target)), target):
                if candidate != rel and candidate in texts:
                    linked[rel].add(candidate)
                    linked[candidate].add(rel)
                    break
    return {rel: frozenset(found) for rel, found in linked.items()}


def claim_of(title: str, description: str, kind: NoteKind) -> Claim:
    """The claim a draft or a staged proposal makes.

    It is compared by its title, the rule; a title cut short ("... in the session …") by the
    whole sentence it was cut from, so the words cut off still count.
    """
    whole = description.removesuffix(" …") if title.endswith("…") else title
    return Claim(title, description, kind, rule_terms(whole))


@dataclass(frozen=True, slots=True)
class _Related:
    """What the run knows of how its rules relate: links between documents, term rarity."""

    links: Mapping[str, frozenset[str]]
    rare: Rarity

    def restates(self, claim: Claim, origin: str, other: Claim, where: str) -> bool:
        """True when two rules whose places are related are one rule by rarity.

        Places are related when one document links to the other (share
        :data:`LINKED_CONTAINMENT`) or they are one document (share
        :data:`SAME_DOCUMENT_CONTAINMENT`, and an action in common: a document says parallel
        things of parallel subjects, "use the Responses API to access the web search tool",
        "... the MCP server tool", in sentences alike but for their object).
        """
        doc, elsewhere = origin.partition("#")[0], where.partition("#")[0]
        if not doc or not elsewhere:
            return False
        if doc == elsewhere:
            found = rare_containment(claim.terms, other.terms, self.rare, same_action=True)
            return found >= SAME_DOCUMENT_CONTAINMENT
        if elsewhere not in self.links.get(doc, ()):
            return False
        return rare_containment(claim.terms, other.terms, self.rare) >= LINKED_CONTAINMENT


def _earlier(
    claim: Claim,
    seen: Sequence[tuple[Claim, str]],
    index: dict[str, list[int]],
    origin: str,
    related: _Related,
) -> Claim | None:
    """The first earlier claim this one restates, if any.

    One said in its section is compared looser; one of the same document or of a linked one
    by rarity too (:func:`rare_containment`).
    """
    candidates = sorted({i for term in claim.terms for i in index.get(term, ())})
    for i in candidates:
        other, where = seen[i]
        if other.negated != claim.negated:
            continue
        share = SECTION_CONTAINMENT if origin and where == origin else CONTAINMENT
        if restates(claim.terms, other.terms, containment=share):
            return other
        if related.restates(claim, origin, other, where):
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
    documents: Sequence[list[Draft]],
    staged: Sequence[Claim] = (),
    links: Mapping[str, frozenset[str]] | None = None,
) -> tuple[list[list[Draft]], int]:
    """Each document's drafts, a restatement given its first statement's claim.

    Args:
        documents: Each document's drafts, in the run's order.
        staged: Claims an earlier, interrupted run staged (they come first, as they are).
        links: For each document, the documents it links to or is linked from
            (:func:`links_between`); none when not given.

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
    every = [c.terms for c in staged] + [
        claim_of(d.title, d.description, d.kind).terms for drafts in documents for d in drafts
    ]
    related = _Related(links or {}, rarity(every))
    merged = 0
    out: list[list[Draft]] = []
    for drafts in documents:
        kept: list[Draft] = []
        for draft in drafts:
            claim = claim_of(draft.title, draft.description, draft.kind)
            first = _earlier(claim, seen, index, draft.origin, related) if claim.terms else None
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


__all__ = [
    "RESTATEMENT_THRESHOLD",
    "Claim",
    "Rarity",
    "claim_of",
    "links_between",
    "merge_restatements",
    "rare_containment",
    "rarity",
]
