"""The words around a rule, for :func:`lorebook.extractors.statement.state_rule` to drop.

:func:`tidy_sentence` restores one sentence (spacing, apostrophes, a lone "i"; emphasis and
emoji gone);
:func:`strip_discourse` drops greetings, apologies, hedges, thanks and a short lead-in;
:func:`calm` takes the shouting and the swearing out of a title (the quote keeps them).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable

from lorebook.extractors.words import CONTRACTIONS, FUNCTION_WORDS

_CONTRACTION = re.compile(r"\b(?:" + "|".join(CONTRACTIONS) + r")\b", re.IGNORECASE)


_LONE_I = re.compile(r"(?<![\w'`./-])i(?=(?:'(?:m|d|ve|ll))?(?![\w`./-]))")


_MENTION = re.compile(r"(?<![\w`])@(?=[\w-]+\.\w)")


_EMPHASIS = re.compile(
    r"(?<![\w*])(\*{1,2}|_(?!_)|__(?![a-z0-9]+__))(?=\w)([^*_`\n]+?)(?<=\w)\1(?![\w*])"
)
"""Emphasis marks around words ("**never**", "_always_", "__Never__"); a dunder name
("__init__.py", "__main__"), a lowercase word between double underscores, is code and
stays."""


CODE_SPAN = re.compile(r"(`[^`\n]*`)")


_ASIDE_WORD = re.compile(r",\s+however,?(?=\s)|\s+however,\s+", re.IGNORECASE)


_APOLOGY = re.compile(
    r"^(?:(?:i(?:'m| am) )?(?:so |very |really )?sorry|(?:my )?apologies|my bad|excuse me"
    r"|pardon(?: me)?)\b.*?(?:[,;:.!?]+\s*(?:but\s+)?|\s+but\s+|$)",
    re.IGNORECASE,
)


_LEAD = re.compile(
    r"^(?:(?:ok(?:ay)?|so(?! long| that| far| much| many)|hey|hi|hello|hmm+|ah+|oh+|um+|uh+"
    r"|yes|yeah|yep|actually|btw|by the way|also|and|but|anyway|alright|fyi|tbh|honestly"
    r"|basically|just|please|kindly|well|like|maybe|perhaps|possibly|overall|the (?:thing|point) is"
    r"|i(?:'d| would)? (?:think|believe|guess|suppose|feel like|reckon|say)(?: that)?"
    r"|it seems(?: like| that)?|(?:note|keep in mind)(?: that)?|remember that"
    r"|as (?:i said|mentioned)|in (?:the )?future|going forward|from now on)\b[\s,.;:!\u2026]*"
    r"|(?:no|not|nope|nah|right|sure|wait|ouch|oops|now|then|first|finally|next|thanks"
    r"|thank you|(?:great|good|nice|perfect|awesome|excellent|amazing|fantastic|brilliant|cool"
    r"|wonderful|lovely)(?: (?:work|job|stuff|catch|idea|point|question|progress|find))?"
    r"|one (?:more|other|last|final|minor|small) (?:thing|note|clarification|correction))"
    r"\b(?:\s*[,.;:!\u2026-]+\s*|\s*$)"
    r"|[A-Z][\w]{1,15},\s+(?=(?:you|please|can|could|we|I|let's|always|never|don't)\b)"
    r"|(?:wait|hold on|stop)\s+(?=(?:don't|dont|do not|never)\b))",
    re.IGNORECASE,
)


TRAIL = re.compile(
    r"(?:[\s,.;:!-]*\b(?:thanks|thank you|thx|please|pls|cheers|my apologies|sorry|tho|though"
    r"|for example|e\.g|etc)\b\.?)+[\s.!]*$|[\s.!,;:-]+$",
    re.IGNORECASE,
)


_EXPLETIVE = re.compile(
    r"\s*\b(?:for (?:fuck|god|christ|heaven|pete)(?:['\u2019]?s)? sake|the (?:fuck|hell|heck)\b"
    r"|(?:fucking|freaking|frigging|effing|goddamn(?:ed)?)"
    r"(?=\s+(?!(?:it|you|me|with|up|around|about|over)\b)\w))\b[ ,!]*",
    re.IGNORECASE,
)
"""Words that only add force: "WE DON'T WANT FUCKING CITIES", "for fuck's sake, ...",
"what the hell are you doing". A modifier before a word, or a fixed phrase."""


_CAPS_WORD = re.compile(r"(?<![\w'\u2019`./-])([A-Z][A-Z'\u2019]+)(?![\w`./-])")


_SPACES = re.compile(r"(?<=\S)  +(?=\S)")
"""The room a dropped expletive leaves between two words."""
_MARKS = re.compile(r"([?!])[?!]+")
"""Repeated question and exclamation marks ("???", "?!?")."""


SHOUTED = 0.6
"""A sentence whose words are this share or more in capitals (three at least) is shouted."""


def calm(text: str) -> str:
    """``text`` as a title says it: without expletives, and not shouted.

    In a shouted sentence, one that opens in capitals ("WHY ARE YOU CHECKING IP AT ALL BEFORE
    CONNECTING???"; not "Always show ZREADINGPROGRESS = 1.0 AND ZISFINISHED = 1"), a word in
    capitals is lower-cased unless it is a short name that is not an English function word
    (IP, UX, API, ZIP), and the sentence gets its capital back; a capital word in a sentence
    typed in lower case ("use the LIVE IP CHECK") is emphasis the person chose and stays, as
    do code spans. Repeated ``?`` or ``!`` become one.
    """
    prose = " ".join(p for p in CODE_SPAN.split(text) if not p.startswith("`"))
    words = re.findall(r"[A-Za-z][A-Za-z'\u2019]*", prose)
    caps = sum(1 for w in words if len(w) > 1 and w.isupper())
    opens_shouting = bool(words) and words[0].isupper()
    shouted = opens_shouting and caps >= 3 and caps >= SHOUTED * len(words)
    calmed = _outside_code(text, _EXPLETIVE, " ")
    if shouted:
        calmed = _outside_code(calmed, _CAPS_WORD, _quieter)
    calmed = _outside_code(_outside_code(calmed, _SPACES, " "), _MARKS, r"\1").strip()
    if not calmed:
        return text
    opened = text.lstrip()[:1]
    return calmed[:1].upper() + calmed[1:] if opened.isupper() or shouted else calmed


def _quieter(match: re.Match[str]) -> str:
    word = match.group(1)
    if len(word) <= 3 and word.lower() not in FUNCTION_WORDS and not re.search("['\u2019]", word):
        return word
    return word.lower()


def _outside_code(
    text: str, change: re.Pattern[str], to: str | Callable[[re.Match[str]], str]
) -> str:
    """``text`` with ``change`` replaced by ``to`` everywhere but in code spans."""
    parts = CODE_SPAN.split(text)
    return "".join(p if p.startswith("`") else change.sub(to, p) for p in parts)


def tidy_sentence(text: str) -> str:
    """One sentence, its spacing, apostrophes and "I" restored; emoji, emphasis, "@" gone."""
    text = text.replace("\u2019", "'")
    text = "".join(ch for ch in text if unicodedata.category(ch) not in ("So", "Cf", "Mn"))
    text = re.sub(r"\s+", " ", text).strip()
    text = _CONTRACTION.sub(_apostrophe, text)
    text = _outside_code(_outside_code(text, _LONE_I, "I"), _EMPHASIS, r"\2")
    return re.sub(r"\s+", " ", _ASIDE_WORD.sub(" ", _MENTION.sub("", text)))


def _apostrophe(match: re.Match[str]) -> str:
    """A contraction typed without its apostrophe, restored ("dont" -> "don't")."""
    word = match.group(0)
    restored = CONTRACTIONS[word.lower()]
    return restored[:1].upper() + restored[1:] if word[:1].isupper() else restored


def strip_discourse(text: str) -> str:
    """The sentence without the words around its rule: greetings, apologies, hedges, thanks."""
    previous = None
    while previous != text:
        previous = text
        text = _APOLOGY.sub("", text, count=1)
        text = _LEAD.sub("", text, count=1)
        text = re.sub(r"^\(?\d{1,2}[.)]\s+", "", text)
        text = TRAIL.sub("", text).strip(" -(")
        head, colon, tail = text.partition(": ")
        if colon and len(head.split()) <= 5 and len(tail.split()) >= 3:
            text = tail
    return re.sub(r"\bplease\b,?\s*", "", text, flags=re.IGNORECASE).strip()
