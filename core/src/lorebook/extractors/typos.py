"""Typo fixing for titles: :func:`fix_typos` corrects a word only when the correction is certain.

The word is not in the vocabulary the caller passes (the words of the session's agent text:
:func:`lorebook.extractors.titles.vocabulary`), it is neither code nor a name, and exactly one
vocabulary word seen at least twice is one slip of the fingers away.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Mapping

from lorebook.extractors.words import CONTRACTIONS, FUNCTION_WORDS

MIN_TYPO = 5
"""Shorter words are corrected only by swapping two adjacent letters ("teh", "liek"): a short
word is one slip from many words ("them", "then"; "fine", "find")."""


MIN_SEEN = 2
"""A correction must be a vocabulary word seen at least this many times."""


_LETTERS = "abcdefghijklmnopqrstuvwxyz"


_KEY_ROWS = (("qwertyuiop", 0.0), ("asdfghjkl", 0.25), ("zxcvbnm", 0.75))
"""QWERTY rows and their stagger, for the keys a slipped finger hits."""


_PROTECTED = re.compile(
    r"```.*?(?:```|\Z)|~~~.*?(?:~~~|\Z)|`[^`\n]*`"  # code
    r"|\b[a-z][a-z0-9+.-]*://\S+|\S*[/\\]\S*|\S+@\S+"  # URLs, paths, addresses
    r"|(?<!\w)'[^'\n]{1,60}'(?!\w)|\"[^\"\n]{1,60}\"|\u201c[^\u201d\n]{1,60}\u201d"
    r"|\u2018[^\u2019\n]{1,60}\u2019",  # quoted names and terms
    re.DOTALL | re.IGNORECASE,
)


_TOKEN = re.compile(r"\S+")


_EDGE = "\"'()[]{}<>*_~.,;:!?\u201c\u201d\u2018\u2019"


_PLAIN = re.compile(r"[A-Za-z]+(?:-[A-Za-z]+)*")


_LINE_START = re.compile(r"(?:^|\n)[ \t]*(?:[-*+\u2022]|\d{1,3}[.)])?[ \t]*$")


def _free_spans(text: str) -> list[tuple[int, int]]:
    """The stretches of ``text`` outside code, URLs, paths and quoted terms."""
    spans: list[tuple[int, int]] = []
    cursor = 0
    for match in _PROTECTED.finditer(text):
        spans.append((cursor, match.start()))
        cursor = match.end()
    spans.append((cursor, len(text)))
    return spans


def _sentence_start(text: str, start: int) -> bool:
    """True when the word at ``start`` opens a sentence, a line or a list item."""
    window = text[max(0, start - 40) : start]  # a bounded look back keeps long texts linear
    before = window.rstrip(" \t\"'(\u201c\u2018[")
    if not before:
        return True
    return before[-1] in ".!?:" or bool(_LINE_START.search(before))


def _neighbour_keys() -> dict[str, str]:
    """Each letter's neighbouring keys on a QWERTY keyboard."""
    place = {
        k: (row, i + shift)
        for row, (keys, shift) in enumerate(_KEY_ROWS)
        for i, k in enumerate(keys)
    }
    return {
        key: "".join(
            other
            for other, (row2, x2) in place.items()
            if other != key and abs(row2 - row) <= 1 and abs(x2 - x) < (1.5 if row2 == row else 1)
        )
        for key, (row, x) in place.items()
    }


_NEIGHBOURS = _neighbour_keys()


def _inflection(word: str, other: str) -> bool:
    """True when the two are forms of one word: "test"/"tests", "use"/"used", "uses"/"used"."""
    short, long = sorted((word, other), key=len)
    if len(long) == len(short) and long[:-1] == short[:-1]:
        return long[-1] in "sdry" and short[-1] in "sdry"
    if len(long) != len(short) + 1 or not long.startswith(short):
        return False
    tail = long[-1]
    return tail in "sy" or (tail in "dr" and short.endswith("e"))


def _edits(word: str) -> set[str]:
    """The words ``word`` may be a slip of the fingers for.

    Two adjacent letters swapped; for words of :data:`MIN_TYPO` letters or more also a letter
    left out, a letter typed twice, or a key's neighbour hit instead of it (QWERTY). A word
    with an extra letter of another kind ("hard", "them") is taken as a word, not a slip.
    """
    splits = [(word[:i], word[i:]) for i in range(len(word) + 1)]
    swaps = {a + b[1] + b[0] + b[2:] for a, b in splits if len(b) > 1}
    if len(word) < MIN_TYPO:
        return swaps
    doubled = {a + b[1:] for a, b in splits if len(b) > 1 and b[0] == b[1]}
    slipped = {a + c + b[1:] for a, b in splits if b for c in _NEIGHBOURS.get(b[0], "")}
    omitted = {a + c + b for a, b in splits for c in _LETTERS}
    return swaps | doubled | slipped | omitted


def _correction(word: str, counts: Mapping[str, int]) -> str | None:
    """The one vocabulary word ``word`` (lower case) is a typo of, or None."""
    if len(word) < 3 or counts.get(word, 0) > 0 or word in CONTRACTIONS or word in FUNCTION_WORDS:
        return None  # function words are known words, whatever the vocabulary holds
    found = [
        other
        for other in _edits(word)
        if other != word
        and other[:1] == word[:1]
        and counts.get(other, 0) >= MIN_SEEN
        and not _inflection(word, other)
    ]
    return found[0] if len(found) == 1 else None


def _fix_part(part: str, correct: Callable[[str], str | None], *, opens: bool) -> str:
    """One run of letters, corrected when certain, its case pattern kept."""
    if part.islower():
        return correct(part) or part
    if opens and part[:1].isupper() and part[1:].islower():
        fixed = correct(part.lower())
        return fixed.capitalize() if fixed else part
    return part  # capitals mid-sentence or throughout: a name or an acronym


def _fix_token(token: str, correct: Callable[[str], str | None], *, opens: bool) -> str:
    """A whitespace token with its plain word (letters and hyphens) corrected."""
    core = token.strip(_EDGE)
    if not core or not _PLAIN.fullmatch(core):
        return token  # code, numbers, contractions, identifiers
    start = token.index(core)
    parts = core.split("-")
    fixed = [_fix_part(p, correct, opens=opens and i == 0) for i, p in enumerate(parts)]
    return token[:start] + "-".join(fixed) + token[start + len(core) :]


def fix_typos(text: str, vocabulary: Mapping[str, int]) -> str:
    """Correct the words of ``text`` whose correction is certain; leave everything else.

    A word is corrected when it is not in ``vocabulary`` (word counts, folded to lower case),
    is not code (inside backticks, a path, a URL, an identifier with ``_``, digits or inner
    capitals) nor a quoted or capitalised name, and exactly one vocabulary word seen at least
    :data:`MIN_SEEN` times, with the same first letter, is one slip of the fingers away: two
    adjacent letters swapped (words of three letters or more), or, for words of
    :data:`MIN_TYPO` letters or more, a letter left out, a letter typed twice, or a
    neighbouring key hit (:func:`_edits`). Two forms of one word ("tests", "test") are not a
    typo, and English function words ("there", "though") are known words. Case is kept:
    lower case, or a capital at the start of a sentence.

    >>> fix_typos("Add doctrings, teh rule.", {"docstrings": 3, "the": 10})
    'Add docstrings, the rule.'
    """
    counts: dict[str, int] = {}
    for word, count in vocabulary.items():
        counts[word.lower()] = counts.get(word.lower(), 0) + count
    if not counts:
        return text
    correct = functools.lru_cache(maxsize=None)(lambda word: _correction(word, counts))
    pieces: list[str] = []
    cursor = 0
    for begin, end in _free_spans(text):
        for match in _TOKEN.finditer(text, begin, end):
            token = match.group(0)
            opens = _sentence_start(text, match.start())
            pieces.append(text[cursor : match.start()])
            pieces.append(_fix_token(token, correct, opens=opens))
            cursor = match.end()
    pieces.append(text[cursor:])
    return "".join(pieces)
