"""The terms a note is grouped by: its tags, source documents and title words.

The rebalance plan (:mod:`lorebook.rebalance.plan`) groups a folder's notes by the terms
they share; the note splitter (:mod:`lorebook.rebalance.notesplit`) compares a note's
sections by theirs. Words are the same on every machine (no vectors, no locale).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING

from lorebook.errors import UnsafePathError
from lorebook.kb.paths import validate_relpath
from lorebook.stopwords import STOPWORDS

if TYPE_CHECKING:
    from lorebook.kb.catalog import NoteView

TAG_WEIGHT = 3
SOURCE_WEIGHT = 2
"""A shared tag counts three times a shared title word, a shared source document twice."""
WORD_RE = re.compile(r"[a-z][a-z0-9]+")
_NAME_RE = re.compile(r"[^a-z0-9._-]+")
RULE_WORDS = frozenset({
    "always", "never", "use", "using", "used", "uses", "must", "should", "shouldn", "make",
    "sure", "don", "doesn", "can", "cannot", "will", "need", "needs", "instead", "when",
    "where", "which", "what", "why", "how", "run", "runs", "via", "per", "also", "every",
    "each", "first", "before", "after", "only", "any", "all", "new", "old", "one", "two",
    "not", "like", "get", "set", "see", "add", "note", "notes", "rule", "rules", "prefer",
    "avoid", "without", "ensure", "keep", "follow", "write", "code", "change", "changes",
    "file", "files", "project", "type", "types", "function", "functions", "within",
})  # fmt: skip
"""Words of how rules are said, not of what they are about: never a folder."""
PROVENANCE_TAGS = frozenset(
    {"bootstrap", "harvest", "imported", "pack", "cursor-rule", "instructions", "docs", "adr"}
)
"""Tags saying where a note came from, not what it is about: never a folder."""
GENERAL_SOURCES = frozenset(
    {"readme", "agents", "claude", "contributing", "copilot-instructions", "index", "gemini"}
)
"""Documents about everything in a project: sharing one says nothing of a topic."""


def folder_name(term: str) -> str | None:
    """``term`` as a folder name, or None when no valid name comes of it."""
    name = _NAME_RE.sub("-", term.casefold()).strip("-._")[:60].rstrip("-._")
    if not name:
        return None
    try:
        validate_relpath(name, what="folder")
    except UnsafePathError:
        return None
    return name


def source_stem(origin: str) -> str | None:
    """The file name (without extension) of a document a note came from; None for a session.

    A session origin is ``<harness>:<session>:<turn>``; a document is a repository path,
    perhaps with ``#section``.
    """
    path = origin.split("#", 1)[0]
    if not path or ":" in path:
        return None
    return path.rpartition("/")[2].partition(".")[0] or None


def features(note: NoteView, tags: Mapping[str, tuple[str, ...]]) -> dict[str, int]:
    """Term -> weight: the note's tags (as folder names), source documents and title words."""
    found: dict[str, int] = {}
    text = f"{note.title} {note.description}".casefold()
    for word in WORD_RE.findall(text):
        if len(word) >= 3 and word not in STOPWORDS and word not in RULE_WORDS:
            found[word] = 1
    for origin in note.derived_from:
        stem = source_stem(origin)
        name = folder_name(stem) if stem else None
        if name and name not in GENERAL_SOURCES:
            found[name] = max(found.get(name, 0), SOURCE_WEIGHT)
    for tag in tags.get(note.id, ()):
        if tag not in PROVENANCE_TAGS and (name := folder_name(tag)):
            found[name] = TAG_WEIGHT
    return found


def clip(text: str, size: int = 80) -> str:
    """``text`` on one line, cut to ``size`` characters with an ellipsis."""
    text = " ".join(text.split())
    return text if len(text) <= size else text[: size - 1].rstrip() + "…"


__all__ = [
    "GENERAL_SOURCES",
    "PROVENANCE_TAGS",
    "RULE_WORDS",
    "SOURCE_WEIGHT",
    "TAG_WEIGHT",
    "WORD_RE",
    "clip",
    "features",
    "folder_name",
    "source_stem",
]
