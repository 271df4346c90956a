"""One rule written in several places is one note: restatements found across documents.

Projects repeat their rules: CLAUDE.md and AGENTS.md say the same thing in other words, a
README restates a contributing guide. Before anything is staged, every draft of a run is
compared with the drafts before it (documents in path order, rules in document order) by
the terms of their titles (the rule itself), as :mod:`lorebook.bootstrap.wording` reads
them: content words, code spans, negation kept apart. An affirming rule that turns down an
alternative ("use the project's tools rather than modifying files directly") is also read
as the prohibition it implies, so "NEVER modify resource files directly if a management
tool is available" restates it.

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

A draft that restates an earlier one (:func:`~lorebook.bootstrap.wording.restates`) takes the
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
from lorebook.bootstrap.wording import (
    ACTIONS,
    CONTAINMENT,
    IDENTIFIER_WEIGHT,
    code_matches,
    restates,
    rule_terms,
    turned_down,
)
from lorebook.kb.similarity import NEGATION
from lorebook.models.note import NoteKind

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
    turned_down: frozenset[str] = frozenset()
    """The words of the alternative an affirming rule turns down ("rather than modifying
    files directly": *modify*, *file*), which a prohibition of that alternative forbids. Its
    code spans are not read (:func:`~lorebook.bootstrap.wording.turned_down`)."""

    @property
    def negated(self) -> bool:
        """True when the sentence holds a negation."""
        return NEGATION in self.terms


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
    left, right = code_matches(left - {NEGATION}, right - {NEGATION})
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
    found = rule_terms(whole)
    alternative = frozenset() if NEGATION in found else turned_down(whole)
    return Claim(title, description, kind, found, alternative)


def _as_prohibition(claim: Claim) -> Claim:
    """An affirming rule that turns down an alternative, read as the prohibition it implies.

    "If a dedicated tool exists, it MUST be used instead of direct file editing" forbids
    what "NEVER modify resource files directly if a management tool is available" forbids:
    compared with a prohibition, it is the rule's terms with the alternative's, negated.
    """
    if not claim.turned_down:
        return claim
    return replace(
        claim, terms=claim.terms | claim.turned_down | {NEGATION}, turned_down=frozenset()
    )


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
    looked_up = claim.terms | claim.turned_down
    for i in sorted({i for term in looked_up for i in index.get(term, ())}):
        other, where = seen[i]
        if other.negated == claim.negated:
            if _restated(claim, origin, other, where, related):
                return other
            if not (claim.turned_down and other.turned_down):
                continue
        elif not (claim.turned_down or other.turned_down):
            continue
        if _restated(_as_prohibition(claim), origin, _as_prohibition(other), where, related):
            return other
    return None


def _restated(claim: Claim, origin: str, other: Claim, where: str, related: _Related) -> bool:
    """One rule said twice, by the word tests or, where the places relate, by rarity."""
    share = SECTION_CONTAINMENT if origin and where == origin else CONTAINMENT
    if restates(claim.terms, other.terms, containment=share):
        return True
    return related.restates(claim, origin, other, where)


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
    "Claim",
    "Rarity",
    "claim_of",
    "links_between",
    "merge_restatements",
    "rare_containment",
    "rarity",
]
