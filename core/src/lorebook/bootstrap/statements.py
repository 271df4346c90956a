"""What one sentence of documentation states: a rule, a definition, a decision, or none.

Documentation says many things; a developer keeps the few that bind: what must, must not
or always is done, what a term means, what was chosen and why. :func:`read_sentence` reads
the grammar of one sentence (plain text: :func:`lorebook.bootstrap.distil.plain`) with the
vocabulary of :mod:`lorebook.bootstrap.grammar`, and says which of those it is or why it
is left out. The rules are about how English states a rule, not about any project's words.

**Force, and where it stands.** *Always*, *never*, *do not* and *avoid* bind where they
open a clause (an imperative: "Never push to main"; "If the key is missing, don't fail")
or follow a modal or *please*; *must*, *should*, *shall*, *need to*, *is required*,
*forbidden* bind wherever they stand. "The server never caches pages" and "`MCPServer`
always advertises tools" describe what software does: no rule. Force is read in the main
clause: not in a leading condition ("When an output tool is required, ..."), a relative
clause ("a server that must not ...", ", where the model is required to ...") or a
trailing reason ("..., so uv doesn't rewrite the lock file").

**Left out first**: a question; a sentence of fewer than three words or more than
forty-five; an example (*For example*); history and plans (*was added*, *we fixed*, *now
raises*, *no longer*, *will be supported*, an issue number); a reference entry
(``Lint: `ruff check```, ```False` — never use strict mode``); a sentence that does not
stand alone (a pronoun for its subject, a pointer to "the section above", "Don't build on
it"); a statement that nothing is needed. Then, unless the sentence is **strong** (*always*,
*never*, *must*, *must not*, *is required*, *forbidden* in a binding place): a how-to (a
goal first: *To X, ...*, *If you want X*; a pointer: *See ...*, *This page ...*; a
sequence: *Then*, *Once*; an imperative whose purpose is a capability: "Use `-s` to see a
short log"), hedged or permissive wording (*may*, *might*, *can*, *consider*, *usually*,
*recommended*), a click-through step (*click*, *tap*, *select*, *press*, *navigate*, or
*open*/*enter*/*type* with a button, menu, tab or a quoted label), and any step of a
procedure (the caller says so: "Don't select any options" is that step's instruction).

**What binds**, by kind: a definition (*X means Y*, *X refers to Y*, *X stands for Y*, *X
is short for Y*, *we call X "Y"*, *X is called "Y"*); a prohibition (*never*, *do not*,
*must not*, *should not*, *avoid*, *not allowed*, *forbidden*; a bare "No X" names an
absence as often as it forbids one); a gotcha (*be careful*, *beware*, *watch out*,
*pitfall*); an obligation (*always*, *must*, *is required*, *make sure*, *ensure*,
*should* as an obligation) or a preference (*prefer*); a decision (*we chose/decided X
because/over/rather than Y*, *X was chosen because*, or something said to be done
*deliberately*/*by design* with its reason). A plain imperative, of a practice (*use*,
*keep*, *name* ...: :data:`lorebook.bootstrap.grammar.PRACTICE_VERBS`) or of an action
(*install*, *run*, *clone* ...: :data:`lorebook.bootstrap.grammar.ACTION_VERBS`), binds
only with a scope that makes it a habit (*every time*, *whenever*, *before committing*,
*only*) or with what it is chosen over (*instead of*, *rather than*, "use anyio, not
asyncio"): "Keep comments brief" instructs, "Use anyio, not asyncio" rules.

**Strict reading** (documents not written for the people who change the project: user
guides, READMEs): only strong rules, plain prohibitions (*do not*), definitions and
decisions bind. A user guide says "should" and "use X" on every page about how to use the
software; the project's own rules are said in its instruction files, contributing guides
and decision records, or said strongly.
"""

from __future__ import annotations

from dataclasses import dataclass

from lorebook.bootstrap import grammar as g
from lorebook.models.note import NoteKind

MIN_WORDS, MAX_WORDS = 3, 45
LEAD_IN_WORDS = 5
"""A sentence (or a main clause: "Before calling it done, verify:") this short that ends
with a colon only introduces the list after it."""


@dataclass(frozen=True, slots=True)
class Reading:
    """What a sentence states: a note kind when it binds, else why it is left out."""

    kind: NoteKind | None
    reason: str = ""


def words(text: str) -> list[str]:
    """The words of ``text`` outside code spans."""
    return g.WORD.findall(g.CODE_SPAN.sub(" ", text))


def strip_markers(text: str) -> str:
    """``text`` without a leading label that carries no force of its own.

    A label draws attention ("IMPORTANT:", "Note:") or names a topic ("Payload size:");
    "FORBIDDEN:" carries force and stays.
    """
    text = g.KEBAB_LABEL.sub("", g.MARKERS.sub("", text).strip(), count=1)
    label = g.TOPIC_LABEL.match(text)
    if (
        label is not None
        and not _forceful(label.group(0))
        and len(words(text[label.end() :])) >= MIN_WORDS
    ):
        text = text[label.end() :]
    return text


def _forceful(text: str) -> bool:
    found = (g.STRONG, g.NEGATIVE, g.OBLIGATION, g.GOTCHA)
    return any(pattern.search(text) for pattern in found)


def main_clause(text: str) -> str:
    """The clause that carries a sentence's force.

    That is the sentence without a leading condition ("When an output tool is required,
    ..."), a relative clause (", where the model is required to ..."), a trailing reason
    ("..., so uv doesn't rewrite the lock file") or a trailing condition ("... when the
    sandbox must not ...").
    """
    head = g.CONDITION.sub("", text, count=1)
    head = g.RELATIVE_CLAUSE.sub("", head)
    head = g.REASON_TAIL.sub("", head)
    head = g.SUBORDINATE_TAIL.sub("", head)
    return head if len(head.split()) >= 2 else text


def imperative(text: str) -> str | None:
    """``practice``, ``action`` or None: the kind of verb an imperative sentence opens with.

    A leading condition ("When adding a provider, ...") is skipped first.
    """
    head = g.CONDITION.sub("", text, count=1)
    head = g.PLEASE.sub("", head)
    found = g.WORD.match(head)
    if found is None or found.start() != 0 or g.NOUN_SUBJECT.match(head):
        return None
    first = found.group(0).lower()
    if first in g.PRACTICE_VERBS:
        return "practice"
    if first in g.ACTION_VERBS:
        return "action"
    return None


def _left_out(text: str, *, strong: bool) -> str:
    """Why the sentence is no rule whatever else it says (empty when nothing says so)."""
    if text.rstrip().endswith("?"):
        return "question"
    if _reference_entry(text):
        return "reference"
    count = len(words(text))
    if count < MIN_WORDS:
        return "fragment"
    if count > MAX_WORDS:
        return "too long"
    if g.EXAMPLE.match(text) or g.DIALOGUE.search(text) or _example_pair(text):
        return "example"
    if _mostly_quoted(text) and not g.DEFINITION.search(text):
        return "example"
    if _lead_in(text):
        return "lead-in"
    if g.HISTORY.search(text):
        return "history"
    if refers_back(text):
        return "refers back"
    if g.NO_NEED.match(text):
        return "statement"
    return "" if strong else _weak(text)


def _weak(text: str) -> str:
    """Why a sentence that is not strong is no rule: a click, a how-to, a hedge."""
    if is_click_through(text):
        return "click-through"
    head = main_clause(text)
    if (
        g.HOW_TO.match(text)
        or g.HOW_TO.match(head)
        or (imperative(text) and g.PURPOSE.search(head))
    ):
        return "how-to"
    if g.HEDGE.search(g.PROHIBITED_ADVICE.sub("", head, count=1)):
        return "hedged"
    return ""


def _example_pair(text: str) -> bool:
    """One side of an example pair: an upper-case label before quoted text or code.

    "PREFER const X = 1;", "AVOID "Let me guess ..."".
    """
    label = g.EXAMPLE_LABEL.match(text)
    return label is not None and label.group(0).split()[0].isupper()


def _mostly_quoted(text: str) -> bool:
    """Phrases in quotes and little else ('"make sure to always...", "going forward..."')."""
    quoted = sum(len(words(m.group(0))) for m in g.QUOTED.finditer(text))
    return quoted > 0 and 2 * quoted >= len(words(text))


def _lead_in(text: str) -> bool:
    """A sentence that introduces what follows it ("Use appropriate types:")."""
    text = text.rstrip()
    if not text.endswith(":"):
        return False
    short = len(words(g.CONDITION.sub("", text, count=1)))
    return short <= LEAD_IN_WORDS or bool(g.LEAD_IN.search(text))


def _reference_entry(text: str) -> bool:
    """``Lint: `ruff check .` ``: a label and code, with no rule said in words."""
    label = g.REFERENCE_LABEL.match(text)
    if label is None:
        return False
    rest = g.CODE_SPAN.sub(" ", text[label.end() :])
    return len(words(rest)) < MIN_WORDS


def describes_a_value(text: str) -> bool:
    """```False` — never use strict mode``: an entry describing a value or an option."""
    return bool(g.DESCRIBED_VALUE.match(text))


def refers_back(text: str) -> bool:
    """True when the sentence does not stand alone as a rule.

    It opens with a pronoun for its subject ("It must be async", "However, it must ...") or
    on the case before it ("In this case, ..."), stops at its verb ("Don't,
    in new code"), points elsewhere ("Follow the section above", "this process", "Apply
    alongside session-first-workflow"), or is a few words ending in a pronoun ("Don't
    build on it").
    """
    opening = g.CONNECTIVE.sub("", text, count=1)
    if g.PRONOUN_SUBJECT.match(opening) or g.BACK_CASE.match(opening):
        return True
    if g.ELLIPSIS.match(text) or g.POINTER.search(text):
        return True
    if g.APPLY_WITH.match(text):
        return True
    if g.DEMONSTRATIVE.search(text) or g.DEMONSTRATIVE_PRONOUN.search(text):
        return True
    verb_first = g.FORCE_WORD.sub("", text, count=1)
    doing = imperative(verb_first) or verb_first[:3].lower() == "do "
    if doing and g.PRONOUN_OBJECT.match(verb_first):
        return True
    found = words(text)
    return len(found) <= g.SHORT_RULE_WORDS and found[-1].lower() in g.PRONOUN_OBJECTS


def _foreign(text: str) -> bool:
    """True when most letters are not ASCII: the grammar here is English."""
    letters = [c for c in g.CODE_SPAN.sub("", text) if c.isalpha()]
    return bool(letters) and sum(not c.isascii() for c in letters) * 3 > len(letters)


def is_click_through(text: str) -> bool:
    """An instruction to act on a user interface (click, select, open the settings page)."""
    if g.CLICK.match(text):
        return True
    return bool(g.CLICK_SOFT.match(text) and g.UI_NOUN.search(text))


def _kind(text: str, *, strict: bool) -> NoteKind | None:
    """The kind of binding statement ``text`` is, or None (after nothing left it out)."""
    if g.DEFINITION.search(text):
        return "vocabulary"
    head = main_clause(text)
    if g.STRONG.search(head) or g.PLAIN_PROHIBITION.search(head) or not strict:
        kind = _rule_kind(text, head)
        if kind is not None:
            return kind
    if _decides(text):
        return "decision"
    return None


def _decides(text: str) -> bool:
    """A choice with its reason or alternative, or something done deliberately, and why."""
    choice = g.CHOICE.search(text)
    if choice is not None:
        return bool(g.CHOICE_REASON.search(text, choice.end()))
    deliberate = g.DELIBERATE.search(text)
    if deliberate is None or imperative(text) is not None:  # "Share deliberately" instructs
        return False
    return bool(g.DELIBERATE_REASON.search(text))


def _rule_kind(text: str, head: str) -> NoteKind | None:
    """Prohibition, gotcha or convention, by the force of the main clause ``head``."""
    if g.NEGATIVE.search(head) or (imperative(head) and g.COORDINATED.search(head)):
        return "prohibition"
    if g.GOTCHA.search(text):
        return "gotcha"
    if g.OBLIGATION.search(head) or g.SHOULD.search(head):
        return "convention"
    if imperative(head) is not None and (g.SCOPE.search(text) or g.CONTRAST.search(text)):
        return "convention"
    return None


def read_sentence(text: str, *, procedure: bool = False, strict: bool = False) -> Reading:
    """What ``text`` (one sentence, plain text) states, or why it is left out.

    In a ``procedure`` (the steps of a numbered list), only a strong sentence binds: "Don't
    select any options" is that step's instruction, not a rule of the project. ``strict``
    is the reading of a document not written for the people who change the project (see
    the module docstring).
    """
    text = strip_markers(text)
    if _foreign(text):
        return Reading(None, "not English")
    if describes_a_value(text):
        return Reading(None, "reference")
    text = g.PARENTHESIS.sub("", g.CODE_SPAN.sub("`code`", text))
    text = g.RELATIVE_MODAL.sub(r"\1", text)
    if g.SUBJECT_FIRST.match(text):  # "Decide how the API should behave ..." instructs
        text = g.EMBEDDED_MODAL.sub(r"\1", text)
    strong = bool(g.STRONG.search(main_clause(text)))
    reason = _left_out(text, strong=strong)
    if reason:
        return Reading(None, reason)
    if procedure and not strong:
        return Reading(None, "step")
    kind = _kind(text, strict=strict)
    if kind is None:
        verb = imperative(text)
        reason = {"action": "step", "practice": "instruction"}.get(verb or "", "statement")
        return Reading(None, reason)
    return Reading(kind)


def refine_kind(text: str, kind: NoteKind) -> NoteKind:
    """``tooling`` for a convention about which command or tool to run, else ``kind``."""
    if kind != "convention":
        return kind
    from lorebook.extractors.signals import teaching_kinds

    return "tooling" if "tooling" in teaching_kinds(text) else kind


__all__ = [
    "MAX_WORDS",
    "MIN_WORDS",
    "Reading",
    "describes_a_value",
    "imperative",
    "is_click_through",
    "main_clause",
    "read_sentence",
    "refers_back",
    "refine_kind",
    "strip_markers",
    "words",
]
