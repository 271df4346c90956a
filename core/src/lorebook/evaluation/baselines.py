r"""The two baselines ``lorebook eval retrieval`` puts next to our ranker.

- grep: the query's distinct words of three or more word characters, lower-cased; a note
  scores the number of them found (as substrings, case-insensitively) in its title,
  description, tags and body; notes that contain none are left out; best first, ties by id.
- plain BM25, the reference: rank-bm25's ``BM25Okapi`` with its defaults, over
  ``re.findall(r"\w+", text.lower())`` of the same fields; notes scoring 0 are left out;
  best first, ties by id. rank-bm25 (and numpy) come with the ``lorebook[eval]`` extra and
  are imported only here.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from lorebook.errors import LorebookError
from lorebook.recall.index import IndexedNote

MIN_GREP_WORD = 3
_WORD = re.compile(r"\w+")


def note_text(note: IndexedNote) -> str:
    """Title, description, tags and body, joined by spaces."""
    return " ".join((note.title, note.description, " ".join(note.tags), note.body))


def words(text: str) -> list[str]:
    r"""The reference tokeniser: ``re.findall(r"\w+", text.lower())``."""
    return _WORD.findall(text.lower())


class Grep:
    """Rank notes by how many distinct query words they contain."""

    def __init__(self, notes: Sequence[IndexedNote]) -> None:
        self._texts = sorted((n.id, note_text(n).lower()) for n in notes)

    def rank(self, query: str) -> list[str]:
        """Ids of the notes holding any query word, most words first, ties by id."""
        wanted = sorted({w for w in words(query) if len(w) >= MIN_GREP_WORD})
        counted = []
        for note_id, text in self._texts:
            hits = sum(1 for w in wanted if w in text)
            if hits:
                counted.append((-hits, note_id))
        counted.sort()
        return [note_id for _, note_id in counted]


def _bm25_class() -> Any:
    try:
        from rank_bm25 import BM25Okapi
    except ImportError:
        raise LorebookError(
            "the plain BM25 baseline needs rank-bm25, which is not installed",
            hint="install the eval extra: pip install 'lorebook[eval]'",
        ) from None
    return BM25Okapi


class PlainBm25:
    r"""rank-bm25's ``BM25Okapi`` over lower-cased ``\w+`` words of every note."""

    def __init__(self, notes: Sequence[IndexedNote]) -> None:
        self._ids = [n.id for n in notes]
        self._model = _bm25_class()([words(note_text(n)) for n in notes]) if notes else None

    def rank(self, query: str) -> list[str]:
        """Ids of the notes with a score above 0, best first, ties by id."""
        tokens = words(query)
        if self._model is None or not tokens:
            return []
        scores = self._model.get_scores(tokens)
        scored = [(-float(s), i) for s, i in zip(scores, self._ids, strict=True) if s > 0]
        scored.sort()
        return [note_id for _, note_id in scored]
