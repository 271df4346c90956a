"""Which lists of a section are steps, and which headings give their items force.

The rules are :mod:`lorebook.bootstrap.distil`'s (its module docstring): a procedure, a
checklist, a heading of steps, a style guide's list, a heading that names its items rules.
"""

from __future__ import annotations

import re

from lorebook.bootstrap.blocks import Block
from lorebook.bootstrap.grammar import NEGATIVE
from lorebook.bootstrap.statements import (
    imperative,
    is_click_through,
    read_sentence,
    strip_markers,
)
from lorebook.bootstrap.titles import plain, sentences
from lorebook.models.note import NoteKind

CHECKLIST_ITEMS = 3
"""A list of this many items or more can be a checklist."""
RULE_HEADING = re.compile(
    r"\b(?:rules?(?!\s+of\s+thumb)|requirements?|policy|policies|constraints?|dos|do's"
    r"|don'?ts|don't|never|always|must|mandatory|forbidden|prohibited|prohibitions?)\b",
    re.IGNORECASE,
)
STYLE_HEADING = re.compile(r"\b(?:style|conventions|coding standards?)\b", re.IGNORECASE)
"""A heading that says its list describes how the code is written ("Code Style", "Naming
conventions"): when its items do not open with verbs, no checklist of what to do now."""
_BOLD_LABEL = re.compile(r"^\s*(?:\*\*[^*\n]+\*\*|__[^_\n]+__)\s*:?\s*$")
_STEP_HEADING = re.compile(r"^\s*step\s*\d", re.IGNORECASE)
SECTION_NUMBER = re.compile(r"^\s*(?:\d+\.)*\d+\.?\s+")
"""A heading's section number ("2. ", "3.1. ")."""
_STEPS_NAMED = re.compile(r"\b(?:steps|procedure)\b", re.IGNORECASE)  # "Rule Update Steps"


def procedures(blocks: list[Block]) -> set[int]:
    """The ids of the lists whose items are steps: see the module docstring."""
    items: dict[int, list[Block]] = {}
    for block in blocks:
        if block.item:
            items.setdefault(block.list_id, []).append(block)
    found = set()
    for list_id, members in items.items():
        if heading_force(members[0]) is not None:
            continue  # a heading says these are rules
        ordered = members[0].ordered
        if (ordered and 2 * sum(_is_step(b.text) for b in members) >= len(members)) or (
            len(members) >= CHECKLIST_ITEMS
            and 2 * sum(map(_forceful, members)) < len(members)
            and not _describes_style(members)
        ):
            found.add(list_id)
    return found


def step_heading(headings: tuple[str, ...]) -> bool:
    """True when the blocks under ``headings`` are the steps of a procedure.

    Some heading says "Step N", the nearest one names steps ("Rule update steps", "Follow
    this exact procedure"), or it is numbered and opens with an action
    ("#### 2. Add a New Task", "3. Run the tests"); a numbered principle opens with a
    practice ("2. Avoid complex mocking", "1. Focus on core functionality") and is no step.
    """
    nearest = plain(headings[-1]) if headings else ""
    if any(_STEP_HEADING.match(h) for h in headings) or _STEPS_NAMED.search(nearest):
        return True
    number = SECTION_NUMBER.match(nearest)
    return number is not None and imperative(strip_markers(nearest[number.end() :])) == "action"


def _forceful(block: Block) -> bool:
    """True when the item's first sentence states a rule by itself (must, never, should ...)."""
    first = plain(sentences(block.text)[0]) if block.text.strip() else ""
    return read_sentence(first).kind is not None


def _describes_style(items: list[Block]) -> bool:
    """True for a style guide's list: most items open with no verb ("No barrel files").

    Under a heading of style or conventions, such a list describes how the code is.
    """
    if not (items[0].headings and STYLE_HEADING.search(plain(items[0].headings[-1]))):
        return False
    opening = [plain(sentences(b.text)[0]) if b.text.strip() else "" for b in items]
    return 2 * sum(imperative(strip_markers(t)) is not None for t in opening) < len(items)


def _is_step(text: str) -> bool:
    first = plain(sentences(text)[0]) if text.strip() else ""
    reading = read_sentence(first)
    return is_click_through(first) or reading.reason in ("step", "how-to", "click-through")


def heading_force(block: Block) -> NoteKind | None:
    """``prohibition`` or ``convention`` when the nearest heading says its items are rules.

    Only an item that is an instruction (it opens with a verb) takes the heading's force.
    """
    if not (block.item and block.headings) or block.depth or _BOLD_LABEL.match(block.text):
        return None  # a bold label ("**Test success criteria**") names, it does not instruct
    first = plain(sentences(block.text)[0]) if block.text.strip() else ""
    if imperative(first) is None:
        return None
    heading = plain(block.headings[-1])
    if not RULE_HEADING.search(heading) or _STEPS_NAMED.search(heading):
        return None  # "Rule update steps" names steps, not rules
    return "prohibition" if NEGATIVE.search(heading) or "don" in heading.lower() else "convention"
