"""The words around a rule, for :func:`lorebook.extractors.statement.state_rule` to drop.

:func:`tidy_sentence` restores one sentence (spacing, apostrophes, a lone "i"; emphasis and
emoji gone);
:func:`strip_discourse` drops greetings, apologies, hedges, thanks and a short lead-in.
"""

from __future__ import annotations

import re
import unicodedata

from lorebook.extractors.words import CONTRACTIONS

_CONTRACTION = re.compile(r"\b(?:" + "|".join(CONTRACTIONS) + r")\b", re.IGNORECASE)


_LONE_I = re.compile(r"(?<![\w'`./-])i(?=(?:'(?:m|d|ve|ll))?(?![\w`./-]))")


_MENTION = re.compile(r"(?<![\w`])@(?=[\w-]+\.\w)")


_EMPHASIS = re.compile(r"(?<![\w*])(\*{1,2}|_{1,2})(?=\w)([^*_`\n]+?)(?<=\w)\1(?![\w*])")


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
    r"|[A-Z][\w]{1,15},\s+(?=(?:you|please|can|could|we|I|let's|always|never|don't)\b))",
    re.IGNORECASE,
)


TRAIL = re.compile(
    r"(?:[\s,.;:!-]*\b(?:thanks|thank you|thx|please|pls|cheers|my apologies|sorry|tho|though"
    r"|for example|e\.g|etc)\b\.?)+[\s.!]*$|[\s.!,;:-]+$",
    re.IGNORECASE,
)


def _outside_code(text: str, change: re.Pattern[str], to: str) -> str:
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
