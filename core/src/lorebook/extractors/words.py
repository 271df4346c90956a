"""The words of a rule: function words, negations, verbs of mind, and a title's content words.

:func:`rule_slug_words` keeps the content words of a title for an id or file name; the word
lists are what :mod:`lorebook.extractors.statement` and :mod:`lorebook.extractors.typos` read
grammar by.
"""

from __future__ import annotations

import re
import unicodedata

MAX_SLUG_WORDS = 6


_URL_FIRST = re.compile(r"^[a-z][a-z0-9+.-]*://")
_CODE_FIRST = re.compile(r"^[a-z][\w.-]*?(?:_|[./]\w|[a-z][A-Z]|\d[a-z_])")
"""A first word that is code and keeps its case: ``test_sql_cache``, ``package.json``,
``useState``, ``h264_decode``, ``src/pay``."""


def capital(text: str) -> str:
    """``text`` with its first character upper-cased.

    Not when it opens with an address or a word of code (an identifier, a file name), whose
    case is its meaning.
    """
    if _URL_FIRST.match(text) or _CODE_FIRST.match(text):
        return text
    return text[:1].upper() + text[1:]


def word_set(text: str) -> frozenset[str]:
    """The whitespace-separated words of ``text``, as a set."""
    return frozenset(text.split())


FUNCTION_WORDS = word_set(
    """a an the this that these those some any each every all both either neither other
    another such same own i me my mine myself we us our ours ourselves you your yours yourself
    yourselves he him his she her hers it its itself they them their theirs themselves what
    which who whom whose am is are was were be been being have has had having do does did
    doing will would shall should can could may might must ought need needs im ive id youre
    youve youd weve wed theyre thats theres lets let to of in on at by for with from into onto
    over under about above below between through during before after against within across
    along around up down out off via per than as and or but nor so if then else when while
    because since though although unless whether also just only very really too quite always
    ever still even already yet now here there please thanks thank ok okay yes yeah yep actually
    basically simply etc eg ie vs how why where like sure"""
)
"""Function words: articles, pronouns, auxiliaries, prepositions, conjunctions, fillers.
Negations are not among them: "dont-use-mocks" and "use-mocks" say opposite things."""


NEGATIONS = word_set("no not never dont doesnt didnt cant cannot wont shouldnt mustnt isnt arent")


STATIVE = word_set(
    """want need like love hate think know see agree disagree believe feel hope guess wonder
    understand mean suppose remember forget care mind prefer"""
)
"""Verbs of mind: "we think", "you know" report a state, they direct nobody."""


IRREGULAR_PAST = word_set(
    """was were had did said ran saw found made got went took thought told gave came kept left
    brought bought wrote broke chose began knew meant sent spent understood"""
)


def ascii_words(text: str) -> list[str]:
    """Lower-case ASCII words of ``text``: accents folded, "'s" dropped, apostrophes closed."""
    folded = unicodedata.normalize("NFKD", text.replace("\u2019", "'"))
    folded = folded.encode("ascii", "ignore").decode("ascii").lower()
    words: list[str] = []
    for token in re.findall(r"[a-z0-9]+(?:'[a-z]+)?", folded):
        token = token.removesuffix("'s").replace("'", "")
        if len(token) > 1 or token.isdigit():
            words.append(token)
    return words


def content_words(text: str) -> list[str]:
    """The words of ``text`` that carry meaning: function words out, negations kept.

    >>> content_words("You should never use the mocks for a DB!")
    ['never', 'use', 'mocks', 'db']
    """
    return [word for word in ascii_words(text) if word not in FUNCTION_WORDS]


DANGLING = (FUNCTION_WORDS | word_set("rather not e.g e.g. i.e etc")) - word_set(
    "it them this that here"
)
"""Words a cut title does not end on."""


def without_dangling(
    words: list[str], dangling: frozenset[str] = DANGLING, *, keep: int = 1
) -> list[str]:
    """``words`` without the trailing ones in ``dangling``, never fewer than ``keep``."""
    end = len(words)
    while end > keep and words[end - 1].lower().strip(",;:") in dangling:
        end -= 1
    return words[:end]


def rule_slug_words(title: str) -> str:
    """The words of a title for an id or file name: content words, at most six, hyphenated.

    Lower case and ASCII, without function words or repeats; a title of function words only
    keeps them. :func:`lorebook.slug.slugify` leaves the result unchanged.

    >>> rule_slug_words("Don't use mocks for the DB")
    'dont-use-mocks-db'
    """
    words = list(dict.fromkeys(content_words(title))) or list(dict.fromkeys(ascii_words(title)))
    return "-".join(words[:MAX_SLUG_WORDS])


_AUXILIARIES = "do does did is are was were should could would must have has had"


CONTRACTIONS = {
    **{f"{aux}nt": f"{aux}n't" for aux in _AUXILIARIES.split()},
    **{"im": "I'm", "ive": "I've", "youre": "you're", "theyre": "they're"},
    **{"thats": "that's", "theres": "there's"},
}
"""Contractions typed without their apostrophe; none of them is also an English word."""
