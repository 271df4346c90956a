"""Code-aware tokenisation for ranking notes against prompts, errors and commands.

Text is split into identifier-like runs (letters, digits and ``_``, joined by ``.``, ``/``
or ``-``). Each run yields its parts, lower-cased, split at ``_``, ``.``, ``/``, ``-`` and
camelCase boundaries, and, when it has several parts, the whole run too: so
``src/pay/billing.py`` matches a query for ``billing`` and one for the exact path, and
``getUserName`` matches ``user``; a word of one- and two-letter parts with two capitals
side by side is a name (``PyPI`` is ``pypi``, never ``py``; ``toBe`` is still ``to``, ``be``).
Common English words (as plain words) and one-letter
parts are dropped, and so are the pieces of a contraction: ``we're`` is ``we``, ``isn't``
nothing at all, ``user's`` is ``user``.

Words in any script count: an accented word is one token with its accents folded
(``préfère`` matches ``prefere``, ``größe`` is ``große``), and Chinese and Japanese, written
without spaces, give each two characters side by side (``修改代码`` is ``修改``, ``改代``,
``代码``), the usual way to index them without a dictionary.
"""

from __future__ import annotations

import re
import unicodedata

# Defined in kb, where note similarity and splitting use them too; exported here as before.
from lorebook.stopwords import STOPWORDS as STOPWORDS

_RUN_RE = re.compile(r"\w++(?:[./\-]\w++)*+(?:['\u2019](?i:re|ve|ll|[dmst])\b)?")
"""An identifier-like run, with the tail of a contraction when one follows (``we're``,
``isn't``, ``user's``: see :func:`_run_tokens`). The quantifiers are possessive: a run
never gives characters back (nothing after it could use them), which spares the engine
its backtracking, a fifth of the time a rebuild spends finding runs; the matches are
those of ``+`` and ``*``."""
_PART_RE = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")
_CJK_RE = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]+")
"""Kana, Han and Hangul: indexed by pairs of characters, since Chinese and Japanese put no
space between words and a Korean word carries its particles."""


def _keep(token: str) -> bool:
    return len(token) > 1 and token not in STOPWORDS


_SEPARATORS = re.compile(r"[_./\-]+")
_CAPITALS = re.compile(r"[A-Z]{2}")


def _parts(run: str) -> list[str]:
    """The lower-cased parts of one identifier-like run."""
    if run.isalpha() and (run.islower() or run[1:].islower() or run.isupper()):
        return [run.lower()]  # a plain word: the common case, without the regexes
    return [
        part.lower()
        for chunk in _SEPARATORS.split(run)
        for part in (_PART_RE.findall(chunk) if chunk.isascii() else [chunk])
    ]


def _folded(token: str) -> str:
    """``token`` without its accents (``préfère`` is ``prefere``)."""
    if token.isascii():
        return token
    decomposed = unicodedata.normalize("NFKD", token)
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def _unspaced_tokens(run: str) -> tuple[str, ...]:
    """The tokens of a run holding Chinese or Japanese.

    Each two characters side by side (a lone character is itself); the other pieces of the
    run are tokenised as any run.
    """
    tokens: list[str] = []
    cursor = 0
    for match in _CJK_RE.finditer(run):
        tokens += _spaced_tokens(run[cursor : match.start()])
        chars = match.group(0)
        tokens += [chars] if len(chars) == 1 else [chars[i : i + 2] for i in range(len(chars) - 1)]
        cursor = match.end()
    tokens += _spaced_tokens(run[cursor:])
    return tuple(tokens)


def _spaced_tokens(piece: str) -> list[str]:
    return [t for run in _RUN_RE.findall(piece) for t in _run_tokens(run)]


_RUN_TOKENS: dict[str, tuple[str, ...]] = {}
"""Each run's tokens, as computed: the same words recur throughout a knowledge base."""
_CACHE_LIMIT = 200_000


def _run_tokens(run: str) -> tuple[str, ...]:
    if not run.isascii():
        if _CJK_RE.search(run):
            return _unspaced_tokens(run)
        return tuple(_folded(token) for token in _spelled_run_tokens(run))
    return _spelled_run_tokens(run)


def _spelled_run_tokens(run: str) -> tuple[str, ...]:
    """The tokens of a run of a script with spaces between words (before accents fold)."""
    cut = max(run.rfind("'"), run.rfind("\u2019"))
    if cut > 0:
        return _contraction_tokens(run[:cut], run[cut + 1 :])
    parts = _parts(run)
    if len(parts) == 1:
        return (parts[0],) if _keep(parts[0]) else ()
    if run.isalpha() and all(len(p) <= 2 for p in parts) and _CAPITALS.search(run):
        whole = run.lower()  # PyPI, iOS: a name in mixed case, not a compound of words
        return (whole,) if _keep(whole) else ()
    return (*(p for p in parts if len(p) > 1), run.lower())


def _contraction_tokens(head: str, tail: str) -> tuple[str, ...]:
    """A contraction's tokens: its head's, never its tail's.

    Split at the apostrophe, ``we're`` would give ``re`` and ``isn't`` would give ``isn``,
    words nobody wrote, which matched a note saying "you're right" to a prompt asking
    "we're good, right?". The tail (``'re``, ``'ve``, ``'ll``, ``'d``, ``'m``, ``'s``) is
    dropped and the head is tokenised as any run (``user's`` is ``user``); a negation
    (``n't``) is an auxiliary verb and ``not``, both common words, so it gives nothing.
    """
    if tail.lower() == "t":
        return ()
    return _run_tokens(head)


def tokenize(text: str) -> list[str]:
    """Return the tokens of ``text`` in order (duplicates kept: BM25 counts them).

    Stopwords are dropped only as plain words: inside an identifier (``getUserName``) every
    part is kept.
    """
    tokens: list[str] = []
    cache = _RUN_TOKENS
    for run in _RUN_RE.findall(text):
        found = cache.get(run)
        if found is None:
            found = _run_tokens(run)
            if len(cache) < _CACHE_LIMIT:
                cache[run] = found
        tokens.extend(found)
    return tokens
