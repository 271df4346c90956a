"""The rule a question carries, for :mod:`lorebook.extractors.statement` to state.

Most questions ask; some carry a rule in their grammar: "why don't you use uv?", "shouldn't
we pin the versions?", a reminder of what was agreed ("I thought we wanted to use Railway
instead of Vercel?"), a better way put as a question ("is it not better, to have all
at the same version?"), a request put politely with a scope or an alternative ("can we use
mstest instead of custom tests?"), and a statement under a tag question ("I'd rather
exclude the folder, is that possible?").
"""

from __future__ import annotations

import re

_I = re.IGNORECASE

_QUESTION_RULE = (
    re.compile(r"^why (?:not|don't|didn't|aren't|won't|can't)(?: you| we)? (?P<rest>.+)$", _I),
    re.compile(r"^(?:shouldn't|should not) (?:we|you) (?P<rest>.+)$", _I),
    re.compile(
        r"^I thought (?:we|you) (?:had )?(?:wanted|agreed|decided|said|were going|were supposed)"
        r" to (?P<rest>.+)$",
        _I,
    ),
    re.compile(
        r"^(?:isn't it|is it not|wouldn't it be|would it not be) (?:better|best|simpler|cleaner"
        r"|easier|safer),? to (?P<rest>.+)$",
        _I,
    ),
)


_TAG = re.compile(
    r",\s*(?:is that (?:possible|ok|okay|alright|fine|right)|right|no|ok|okay|correct|yes)\W*$",
    _I,
)
"""A tag question after a statement: the statement before it is what the person says."""


_POLITE = re.compile(r"^(?:can|could|would|will) (?:you|we) (?P<rest>.+)$", _I)


ASKS = re.compile(
    r"^(?:why|how)\b|\?$|^(?:can|could|would|will) (?:you|we)\b"
    r"|^(?:should|shall|do|does|did|is|are|was|were|must|have|has)"
    r" (?:we|you|I|it|this|that|they)\b",
    _I,
)
"""A clause that asks: a question word or an auxiliary opening it, or a question mark."""


def question_rule(text: str, *, scoped: bool) -> str | None:
    """The rule a question carries ("why don't you use uv?" -> "use uv"), or None.

    A polite request ("can we ...?") carries one when ``scoped`` (the caller found a habit or
    an alternative in it) or when it was typed without a question mark.
    """
    body = text.rstrip("?!. ")
    for pattern in _QUESTION_RULE:
        match = pattern.match(body)
        if match:
            return match.group("rest")
    polite = _POLITE.match(body)
    if polite and (scoped or not text.endswith("?")):
        return polite.group("rest")
    return None


def untagged(text: str) -> str | None:
    """The statement before a tag question ("X, is that possible?" -> "X"), or None."""
    tag = _TAG.search(text)
    if tag is None or ASKS.search(text[: tag.start()]):
        return None
    return text[: tag.start()]


__all__ = ["ASKS", "question_rule", "untagged"]
