"""The rule a wish or a preference in the first person states (for the titles of notes).

"I'd rather you not touch the migrations" is "Don't touch the migrations"; "I prefer tabs"
is "Prefer tabs"; "I want the batch mode to use the manual approach" is "The batch mode
should use the manual approach". Each pattern reads the grammar of the wish, not its topic.
"""

from __future__ import annotations

import re

from lorebook.extractors.words import word_set

_I = re.IGNORECASE


_PREFERENCE = (
    (re.compile(r"^(?:I|we)(?:'d| would) rather (?:you )?not (?P<rest>.+)$", _I), "Don't "),
    (re.compile(r"^(?:I|we)(?:'d| would) rather (?:you )?(?P<rest>.+)$", _I), ""),
    (re.compile(r"^(?:I|we)(?:'d| would)? prefer (?:to |that you |you )(?P<rest>.+)$", _I), ""),
    (re.compile(r"^(?:I|we) prefer (?P<rest>.+)$", _I), "Prefer "),
    (re.compile(r"^(?:I|we) (?:don't|do not) want (?:you )?to (?P<rest>.+)$", _I), "Don't "),
    (re.compile(r"^I(?: want| need|'d like| would like) you to (?P<rest>.+)$", _I), ""),
    (re.compile(r"^I(?:'d| would)? lean (?:more )?towards? (?P<rest>.+)$", _I), "Prefer "),
    (re.compile(r"^I (?:don't|do not) like (?P<rest>(?!to |it\b|that\b|this\b).+)$", _I), "Avoid "),
    (re.compile(r"^(?:there(?:'s| is) )?no need to (?P<rest>.+)$", _I), "Don't "),
    (re.compile(r"^I(?: want| need|'d like| would like) (?P<rest>no .+)$", _I), ""),
)


_WANT_DONE = re.compile(
    r"^I(?: want| need|'d like| would like) (?P<thing>(?!(?:you|to|no|it|this|that|them|him|her"
    r"|me|us)\b)[^,;:]{1,60}?) to (?P<rest>(?!(?:the|a|an|this|that|these|those"
    r"|my|our|your|their|its|all|each|every|me|us|you|it)\b)[a-z][\w-]*\b.*)$",
    _I,
)
"""A wish that a thing do something: "I want the batch mode to use the manual approach" is
the rule "The batch mode should use the manual approach". Help, time, a way or a chance
wished for is not the doer ("I'd like some help to understand it": a purpose)."""
_NOT_A_DOER = word_set("help time way chance option something anything someone")
_DETERMINERS = word_set("the a an this that these those my our your its their all every each some")


def _names_a_doer(thing: str) -> bool:
    """True when ``thing`` reads as a noun phrase that can do what is wished of it.

    It opens with a determiner, a name (capitalised, or with code characters) or a plural
    ("styles"); "also use Kiro" or "replace Kiro" open with a verb the person left "to" out
    before, and help, time or a way is wished for, not a doer.
    """
    words = thing.split()
    first = words[0]
    named = first[:1].isupper() or bool(re.search(r"[._+/@`\d-]", first))
    plural = first.endswith("s") and len(first) > 3 and not first.endswith("ss")
    opens = first.lower() in _DETERMINERS or named or plural
    return opens and not _NOT_A_DOER & {word.lower() for word in words}


def wish_rule(text: str) -> str | None:
    """The rule a first-person wish or preference states, or None when ``text`` is none."""
    for pattern, lead in _PREFERENCE:
        match = pattern.match(text)
        if match:
            return lead + match.group("rest")
    wish = _WANT_DONE.match(text)
    if wish and _names_a_doer(wish.group("thing")):
        return f"{wish.group('thing')} should {wish.group('rest')}"
    return None


__all__ = ["wish_rule"]
