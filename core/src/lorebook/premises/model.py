"""Premises: ground atoms and rules of one to three premises, in a small text syntax.

An atom is ``predicate(subject, object)``, optionally negated (``not uses(billing, paypal)``)
and scoped (``uses(billing, paypal)@past``; the scope is an opaque word, ``present`` when
none is given, and atoms of different scopes never match). A term is a word of letters,
digits and ``_ . : / -``, a double-quoted string, or, in rules only, a variable ``?name``. A
rule is ``head :- premise, premise, premise`` (one to three premises); every variable of its
head appears in a premise, so a rule derives only ground atoms.

The syntax is what a person writes and reviews in the premise files and on the command line;
:func:`parse_atom` and :func:`parse_rule` name the text and the position of every mistake.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from lorebook.errors import LorebookError

DEFAULT_SCOPE = "present"
MAX_PREMISES = 3

_WORD = r"[A-Za-z0-9_][A-Za-z0-9_.:/-]*"
_TERM = rf'(?:\?[A-Za-z_][A-Za-z0-9_]*|{_WORD}|"(?:[^"\\]|\\.)*")'
_ATOM = re.compile(
    rf"\s*(?P<not>not\s+)?(?P<pred>{_WORD})\s*\(\s*(?P<subj>{_TERM})\s*,\s*(?P<obj>{_TERM})\s*\)"
    rf"(?:@(?P<scope>{_WORD}))?\s*"
)


class PremiseSyntaxError(LorebookError):
    """A fact or rule that does not parse; the message quotes it and says what is wrong."""


@dataclass(frozen=True, slots=True, order=True)
class Atom:
    """``predicate(subject, object)``, negated or not, in a scope; terms may be variables."""

    predicate: str
    subject: str
    object: str
    negated: bool = False
    scope: str = DEFAULT_SCOPE

    @property
    def ground(self) -> bool:
        """True when no term is a variable."""
        return not (is_variable(self.subject) or is_variable(self.object))

    def opposite(self) -> Atom:
        """The same atom with the negation flipped."""
        return Atom(self.predicate, self.subject, self.object, not self.negated, self.scope)

    def __str__(self) -> str:
        scope = "" if self.scope == DEFAULT_SCOPE else f"@{self.scope}"
        negation = "not " if self.negated else ""
        return f"{negation}{self.predicate}({self.subject}, {self.object}){scope}"


@dataclass(frozen=True, slots=True)
class Rule:
    """``head :- premises``: when every premise holds, the head holds."""

    head: Atom
    premises: tuple[Atom, ...]

    def __str__(self) -> str:
        return f"{self.head} :- {', '.join(str(p) for p in self.premises)}"


def is_variable(term: str) -> bool:
    """True for ``?name``."""
    return term.startswith("?")


def _atom(text: str, what: str) -> Atom:
    match = _ATOM.fullmatch(text)
    if match is None:
        raise PremiseSyntaxError(
            f"{what} {text.strip()!r} is not an atom: write predicate(subject, object), "
            "optionally 'not ' before it and '@scope' after it"
        )
    return Atom(
        predicate=match["pred"],
        subject=match["subj"],
        object=match["obj"],
        negated=match["not"] is not None,
        scope=match["scope"] or DEFAULT_SCOPE,
    )


def parse_atom(text: str) -> Atom:
    """A ground atom (a fact or a goal).

    Raises:
        PremiseSyntaxError: it does not parse, or it holds a variable.
    """
    atom = _atom(text, "fact")
    if not atom.ground:
        raise PremiseSyntaxError(
            f"fact {text.strip()!r} holds a variable; a fact is ground (variables are for rules)"
        )
    return atom


def _split_premises(text: str) -> list[str]:
    """Split on the commas between atoms, not the ones inside parentheses or quotes."""
    parts: list[str] = []
    depth, quoted, start, escaped = 0, False, 0, False
    for at, char in enumerate(text):
        if quoted:
            escaped = char == "\\" and not escaped
            if char == '"' and not escaped:
                quoted = False
            continue
        if char == '"':
            quoted = True
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        elif char == "," and depth == 0:
            parts.append(text[start:at])
            start = at + 1
    parts.append(text[start:])
    return parts


def parse_rule(text: str) -> Rule:
    """``head :- premise[, premise[, premise]]``.

    Raises:
        PremiseSyntaxError: it does not parse, has no premise or more than three, or its
            head has a variable no premise binds.
    """
    if ":-" not in text:
        raise PremiseSyntaxError(f"rule {text.strip()!r} has no ':-' (write head :- premise, ...)")
    head_text, body_text = text.split(":-", 1)
    head = _atom(head_text, "the head of rule")
    premises = tuple(_atom(part, "a premise of rule") for part in _split_premises(body_text))
    if not 1 <= len(premises) <= MAX_PREMISES:
        raise PremiseSyntaxError(
            f"rule {text.strip()!r} has {len(premises)} premises; a rule has 1 to {MAX_PREMISES}"
        )
    bound = {t for p in premises for t in (p.subject, p.object) if is_variable(t)}
    unbound = sorted({t for t in (head.subject, head.object) if is_variable(t)} - bound)
    if unbound:
        raise PremiseSyntaxError(
            f"rule {text.strip()!r}: {', '.join(unbound)} in its head appears in no premise"
        )
    return Rule(head, premises)


__all__ = [
    "DEFAULT_SCOPE",
    "MAX_PREMISES",
    "Atom",
    "PremiseSyntaxError",
    "Rule",
    "is_variable",
    "parse_atom",
    "parse_rule",
]
