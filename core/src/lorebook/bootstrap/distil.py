"""The rules a section of documentation states, one per note, each titled by the rule.

A section is read as blocks (:mod:`lorebook.bootstrap.blocks`), a block as sentences, a
sentence by its grammar (:mod:`lorebook.bootstrap.statements`). What a block's place adds:

- **A procedure** is a numbered list most of whose items open with an action (*install*,
  *run*, *click* ...), or the blocks under a heading of steps ("Step N", "Rule update
  steps", or numbered and opening with an action: "#### 2. Add a new task"). **A
  checklist** is a list of three items or more most of which state no rule by themselves
  ("Include the design constraints", "Explain why the change was needed"): what to do now
  or what to write, not how things are always done; under a heading of style or
  conventions, a list whose items mostly open with no verb ("No barrel files", "One
  resource per route file") describes instead. The items of both are steps, and only a
  strong sentence in one (*always*, *never*, *must*) is a rule
  (:mod:`lorebook.bootstrap.lists` reads which lists are which).
- **A heading that names its items rules** (*Rules*, *Requirements*, *Constraints*,
  *Policy*, *Don'ts*, *Never* ...) makes each instruction under it (an item that opens
  with a verb) a rule, in the heading's polarity; its list is no
  checklist. *Guidelines*, *Conventions* or *Best practices* name advice and description
  as often as rules, and give no force; a *rule of thumb* is advice.
- **A lead-in that binds**: an item under a lead-in that is nothing but the rule's force
  ("Never:", "Avoid the following:", :data:`BINDING_LEAD`) is read as the lead-in followed
  by the item ("Never" + "commit secrets").
- **One rule per list item**: the item's first binding sentence is its rule, the rest of
  the item its explanation. In a paragraph every binding sentence is a rule of its own.
- **What a rule introduces is its detail**: the items nested under an item that states a
  rule ("**NEVER test console output** / - Tests MUST NOT assert on output strings / -
  Test what is passed to the output function instead"), and the list a binding sentence
  ending in a colon introduces, say how that rule is kept: they are quoted in its note,
  not notes of their own. An item that states no rule (a label: "**Code quality**")
  introduces nothing; its items are read on their own, unless it names a check
  (:data:`CHECK`: "Before marking a task done, do a final verification:", "**Test success
  criteria**"): a checklist is one rule, its first item's, with the others quoted in it
  (titled by its lead-in when that says when to check: "Before marking a task done, do a
  final verification").
  A heading that states a rule, strongly ("CRITICAL: Always create tasks in the main
  workspace", "Core rule: never use grep for JSON") or as an instruction of practice
  under its section number ("2. Avoid complex mocking"), introduces the rules under it: they
  say how it is kept, and its note is the first of them, with the others quoted in it.
- **Pointers and examples are no rules**: what stands under a heading that lists related
  material (*Related rules*, *See also*, *References*: :data:`POINTER_HEADING`) points
  elsewhere; what stands under *Examples* (:data:`EXAMPLE_HEADING`), or in a list a
  paragraph introduces as examples ("Examples:", "For example:"), illustrates; the items
  of a list under a heading of reasons (*Why ...*, *Rationale*, *Benefits*:
  :data:`REASON_HEADING`) say why (a paragraph there may still state a rule).
- **A preference after a rule names its alternative**: in one paragraph, a sentence that
  says which way to go ("Prefer static imports", "Bun is the preferred runtime") after a
  rule ("Avoid dynamic imports", "Always use bun instead of node") is that rule said from
  its other side: part of its note, not a note of its own.

A rule's title and description are its sentence's (:mod:`lorebook.bootstrap.titles`).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field, replace

from lorebook.bootstrap.blocks import Block, read_blocks
from lorebook.bootstrap.grammar import NO_SUCH, PROGRAM_DOES, STRONG
from lorebook.bootstrap.lists import (
    SECTION_NUMBER,
    STYLE_HEADING,
    heading_force,
    procedures,
    step_heading,
)
from lorebook.bootstrap.statements import (
    Reading,
    describes_a_value,
    imperative,
    read_sentence,
    refine_kind,
    strip_markers,
    words,
)
from lorebook.bootstrap.titles import (
    LABEL_WORDS,
    TITLE_WORDS,
    clauses_of,
    description_of,
    plain,
    sentences,
    title_case_label,
    title_of,
)
from lorebook.models.note import NoteKind

FORCEABLE = frozenset({"statement", "instruction", "step"})
"""What an item under a heading that says it holds rules may be and still be one."""
BINDING_LEAD = re.compile(
    r"^(?P<lead>(?:you |we )?(?:never|always|avoid|don'?t|do not|must(?: not)?|should(?: not)?"
    r"|prefer|do)(?: (?:not|ever|never))?)(?: (?:do|use|the following|these|this|things"
    r"|rules))*\s*:$",
    re.IGNORECASE,
)
"""A lead-in that is nothing but the rule's force ("Never:", "Avoid the following:")."""

CHECK = re.compile(
    r"\b(?:verif(?:y|ication|ications)|check(?:list|s)?|criteria|validation|confirm)\b",
    re.IGNORECASE,
)
"""A lead-in or label that names a check: its items are criteria, one rule."""
COLLECTING = -1
EXAMPLE_HEADING = re.compile(r"^\W*(?:examples?|example\s+\w+(?:\s+\w+)?)\W*$", re.IGNORECASE)
"""A heading of examples ("Examples", "Example usage"): what stands under it illustrates."""
EXAMPLE_LEAD = re.compile(
    r"^\W*(?:for\s+(?:example|instance)|e\.\s?g\.|examples?(?:\s+\w+)?)\W*:\W*$", re.IGNORECASE
)
"""A paragraph that introduces a list of examples ("Examples:", "For example:")."""
PREFERENCE = re.compile(r"^\W*prefer\b|\bis\s+(?:the\s+)?preferred\b|\binstead\W*$", re.I)
"""A sentence that says which way to go ("Prefer static imports", "Bun is the preferred
runtime", "Use an explicit `if` block instead"): after a rule in one paragraph, it names
that rule's alternative (unless that rule is a preference too: "For unit tests prefer X.
Prefer Y for session tests.")."""
REASON_HEADING = re.compile(
    r"^\W*(?:why\b.*|rationale|reasons?|benefits?|motivation|advantages?)\W*$", re.IGNORECASE
)
"""A heading of reasons ("Why we still need `__init__.py` files", "Rationale"): what stands
under it says why, not what to do."""
CONDITION_HEADING = re.compile(r"^\W*(?:conditions?|criteria)\s+(?:for|of|to)\b", re.IGNORECASE)
"""A heading of conditions ("Conditions for permitted use"): its items say when something
else is allowed, not what is always done."""
TRANSITION = re.compile(
    r"^\W*[\w-]+(?:\s+[\w-]+){0,3}\W*\s*(?:\u2192|->|=>|\u21d2)\s*[\w-]+(?:\s+[\w-]+){0,3}\W*$"
)
"""A label naming a change of state ("**IN-PROGRESS \u2192 IN-REVIEW**"): the items under it
("All tests should be passing", "PR should be generated") are what that change requires."""
_LINK_ENTRY = re.compile(r"^\W*\[[^\]]+\]\([^)]*\)\W*\s*(?::|\s[-\u2013\u2014])\s")
"""An item that opens with a link and says what it links to ("[guide](guide.md): how to ...")."""
_PREFERS = re.compile(r"\bprefer", re.IGNORECASE)
POINTER_HEADING = re.compile(
    r"^\W*(?:related(?:\s+(?:rules?|docs?|documents?|documentation|guides?|files?|links?"
    r"|resources?|reading))?|see\s+also|references?|further\s+reading|cross[- ]references?"
    r"|links?)\W*$",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class Rule:
    """One rule a section states.

    Attributes:
        kind: The note kind (prohibition, convention, tooling, gotcha, decision, vocabulary).
        title: The rule in a short sentence.
        statement: The whole sentence, as plain text.
        quote: The sentence as the document writes it.
        context: The block it comes from (its lead-in first when one binds it).
        headings: The headings above it, outermost first.
    """

    kind: NoteKind
    title: str
    statement: str
    quote: str
    context: str
    headings: tuple[str, ...]


def _binding_lead(block: Block) -> str | None:
    """The lead-in that carries an item's rule ("Never:", "Avoid:"), when one does."""
    lead = strip_markers(plain(block.lead)).strip()
    if not (block.item and lead.endswith(":")):
        return None
    match = BINDING_LEAD.match(lead)
    return match.group("lead") if match else None


@dataclass(slots=True)
class _Context:
    procedure: bool
    lead: str | None
    force: NoteKind | None
    strict: bool
    styled: bool = False
    """Under a heading of style or conventions: a verbless "No ..." prohibits."""


def _read(sentence: str, context: _Context) -> tuple[str, Reading]:
    """The statement a sentence makes in its place, and what it states."""
    text = plain(sentence)
    if context.lead is not None:
        composed = f"{context.lead} {text[:1].lower()}{text[1:]}"
        reading = read_sentence(composed, procedure=context.procedure, strict=context.strict)
        if reading.kind is not None:
            return composed, reading
    reading = read_sentence(text, procedure=context.procedure, strict=context.strict)
    forced = context.force
    if forced is not None and reading.kind is None and reading.reason in FORCEABLE:
        return text, Reading(forced)
    if context.styled and reading.kind is None and NO_SUCH.match(text):
        return text, Reading("prohibition")  # "No barrel files" under "Code Style"
    return text, reading


def _binding_clause(statement: str, context: _Context) -> str:
    """The first clause (between semicolons, colons or dashes) that binds on its own."""
    clauses = clauses_of(statement)
    if len(clauses) < 2 or len(words(statement)) <= TITLE_WORDS:
        return statement
    for clause in clauses:
        if title_case_label(clause):
            continue  # a label before the rule ("**Mandatory Pre-Edit Message:** Before ...")
        reading = read_sentence(clause, procedure=context.procedure, strict=context.strict)
        if reading.kind is not None:
            return clause
    return statement


def _block_rules(block: Block, context: _Context, tally: Counter[str]) -> list[Rule]:
    rules: list[Rule] = []
    evidence = f"{block.lead}\n{block.text}" if context.lead is not None else block.text
    if block.item and describes_a_value(plain(block.text)):
        tally["reference"] += 1  # "`False` — never use strict mode": an option described
        return rules
    for sentence in sentences(block.text):
        statement, reading = _read(sentence, context)
        if reading.kind is None:
            tally[reading.reason] += 1
            continue
        if rules and PREFERENCE.search(plain(sentence)) and not _PREFERS.search(rules[-1].quote):
            tally["detail"] += 1  # "Avoid dynamic imports. Prefer static imports.": one rule
            continue
        tally["rule"] += 1
        kind = refine_kind(statement, reading.kind)
        rules.append(
            Rule(
                kind=kind,
                title=title_of(_binding_clause(statement, context)),
                statement=description_of(statement),
                quote=sentence,
                context=evidence,
                headings=block.headings,
            )
        )
        if block.item:
            break  # the rest of an item explains its rule
    return rules


def _under(block: Block) -> str | None:
    """What stands under ``block``: a pointer, example, reason, condition or description.

    A heading says its items point elsewhere, illustrate, say why or when ("Conditions for
    permitted use"), or the lead-in does ("Examples:", a change of state "TODO \u2192
    IN-PROGRESS", what a program does: "The `client.py` will:").
    """
    heading = plain(block.headings[-1]) if block.headings else ""
    if POINTER_HEADING.match(heading):
        return "pointer"
    if EXAMPLE_HEADING.match(heading):
        return "example"
    if block.item and _LINK_ENTRY.match(block.text):
        return "pointer"  # "[testing-boundaries](...): rules for what to test": a link described
    if block.item and REASON_HEADING.match(heading):
        return "reason"
    if block.item and (
        CONDITION_HEADING.match(heading)
        or (block.depth and block.lead and TRANSITION.match(plain(block.lead.splitlines()[0])))
    ):
        return "condition"
    if block.item and EXAMPLE_LEAD.match(plain(block.lead.splitlines()[0] if block.lead else "")):
        return "example"
    if block.item and block.lead and PROGRAM_DOES.match(block.lead.splitlines()[-1].strip()):
        return "description"
    return None


@dataclass(slots=True)
class _Owners:
    """Which rule a block's detail belongs to: the rule of the item or lead-in above it.

    An index of :data:`COLLECTING` marks a check (a lead-in or label naming one) whose
    first rule below is still to come: that rule becomes the owner of the rest.
    """

    items: list[tuple[int, int | None]]
    """The open items above, outermost first: (depth, index of the rule it stated)."""
    lead: tuple[str, int] | None = None
    """A binding paragraph (or a check) that ends with a colon, and the index of its rule."""
    headings: dict[tuple[str, ...], int] = field(default_factory=dict)
    """A heading that states a rule (with the headings above it) -> its note's rule."""
    claim: int | None = None
    """Where the check the current block's first rule will own is: an item's position, or
    -1 for the lead-in."""

    def owner(self, block: Block) -> int | None:
        """The index of the rule ``block`` details, if any (and remember ``block``)."""
        self.claim = None
        if not block.item:
            self.items.clear()
            return None
        while self.items and self.items[-1][0] >= block.depth:
            self.items.pop()
        for position, (_, index) in enumerate(self.items):
            if index == COLLECTING:
                self.claim = position
                return None
            if index is not None:
                return index
        if block.depth == 0 and self.lead is not None and block.lead == self.lead[0]:
            if self.lead[1] == COLLECTING:
                self.claim = -1
                return None
            return self.lead[1]
        return None

    def claimed(self, index: int) -> None:
        """The check waiting for its first rule has it: ``index``.

        A check a lead-in names ("Before marking a task done, do a final verification:")
        owns its whole list, its labelled groups ("**Requirements validation**") included.
        """
        if self.claim == -1 and self.lead is not None:
            self.lead = (self.lead[0], index)
        elif self.claim is not None and self.claim >= 0:
            depth, _ = self.items[self.claim]
            self.items[self.claim] = (depth, index)
            if self.lead is not None and self.lead[1] == COLLECTING and self.claim == 0:
                self.lead = (self.lead[0], index)
        self.claim = None


_CHECK_WITH_OCCASION = re.compile(
    r"^\W*(?:before|after|when|whenever|once|prior\s+to)\b[^,]*,\s+(?:always\s+)?"
    r"(?:(?:do|perform|run|complete)\s+(?:an?\s+|the\s+)?(?:[\w-]+\s+){0,2}"
    r"(?:verification|check|checklist|validation|review)\b|(?:verify|check|confirm|validate)\b)",
    re.IGNORECASE,
)
"""An instruction to check, with its occasion ("Before marking any task as DONE, do a final
verification"): the rule of the checklist it introduces."""


def _titled_by_check(rule: Rule, lead: str) -> Rule:
    """The checklist's rule titled by its lead-in when that says when to check.

    "Before marking any task as DONE, do a final verification:" is the rule its items
    ("All requirements in the task document should be implemented", ...) are criteria of;
    without its occasion the first criterion alone does not say when it holds.
    """
    sentence = plain(lead).rstrip(" :")
    if "\n" in lead.strip() or not _CHECK_WITH_OCCASION.match(sentence):
        return rule
    return replace(rule, title=title_of(sentence), statement=sentence)


def _names_a_check(block: Block) -> bool:
    """A lead-in or a short label naming a check: its items are the check's criteria.

    "Do a final verification:", "**Test Success Criteria**".
    """
    text = plain(block.text)
    label = block.item and len(words(text)) <= LABEL_WORDS
    return (label or text.rstrip().endswith(":")) and bool(CHECK.search(text))


def _binding_heading(block: Block) -> tuple[str, ...] | None:
    """The headings down to the outermost one above ``block`` that states a rule.

    Strongly ("CRITICAL: Always create tasks in the main workspace"), or as an instruction
    of practice, its section number aside ("2. Avoid complex mocking", "Prefer integration
    over end-to-end tests"): the section is that rule, what it says under it how to keep it.
    """
    for depth, heading in enumerate(block.headings):
        text = SECTION_NUMBER.sub("", strip_markers(plain(heading)))
        if read_sentence(text).kind is None:
            continue
        if STRONG.search(text) or imperative(text) == "practice":
            return block.headings[: depth + 1]
    return None


def _fold(rules: list[Rule], index: int, block: Block) -> None:
    """Add ``block`` to the context of the rule it details."""
    rule = rules[index]
    indent = "  " * block.depth
    detail = "\n".join(f"{indent}- {line}" if n == 0 else f"{indent}  {line}"
                       for n, line in enumerate(block.text.splitlines()))  # fmt: skip
    rules[index] = replace(rule, context=f"{rule.context}\n{detail}")


def distil(text: str, tally: Counter[str] | None = None, *, strict: bool = False) -> list[Rule]:
    """The rules ``text`` (a section of a document, in markdown) states, in order.

    ``tally`` counts the sentences read, by what they were: ``rule``, or the reason they
    were left out (``step``, ``click-through``, ``how-to``, ``hedged``, ``statement``,
    ``detail`` of a rule above, ``pointer`` ...). ``strict`` reads a document not written
    for the people who change the project
    (:func:`lorebook.bootstrap.statements.read_sentence`): a heading does not make its
    items rules there either.
    """
    tally = Counter() if tally is None else tally
    blocks = read_blocks(text)
    steps = procedures(blocks)
    rules: list[Rule] = []
    owners = _Owners([])
    for block in blocks:
        if (under := _under(block)) is not None:
            tally[under] += 1
            if under == "example" and block.item and block.lead and rules:
                _fold(rules, len(rules) - 1, block)  # what the rule before looks like
            continue
        owner = owners.owner(block)
        if owner is not None:
            tally["detail"] += 1
            _fold(rules, owner, block)
            if block.item:
                owners.items.append((block.depth, owner))  # what it holds details it too
            continue
        in_steps = block.list_id in steps or step_heading(block.headings)
        force = None if strict else heading_force(block)
        nearest = plain(block.headings[-1]) if block.headings else ""
        styled = bool(STYLE_HEADING.search(nearest))
        context = _Context(in_steps, _binding_lead(block), force, strict, styled)
        found = _block_rules(block, context, tally)
        bound = _binding_heading(block) if found else None
        if bound is not None and bound in owners.headings:
            tally["detail"] += len(found)
            tally["rule"] -= len(found)
            _fold(rules, owners.headings[bound], block)
            continue
        if bound is not None:
            owners.headings[bound] = len(rules)
        first = len(rules) if found else None
        if first is not None:
            lead = owners.lead
            if lead is not None and lead[1] == COLLECTING and owners.claim in (-1, 0):
                found[0] = _titled_by_check(found[0], lead[0])  # the lead-in's check
            owners.claimed(first)
        elif _names_a_check(block):
            first = COLLECTING
        if block.item:
            owners.items.append((block.depth, first))
        elif block.text.rstrip().endswith(":"):
            owners.lead = (block.text, first) if first is not None else None
        rules += found
    return rules


__all__ = ["Rule", "description_of", "distil", "plain", "sentences", "title_of"]
