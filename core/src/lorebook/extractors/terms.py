"""The terms a sentence names: code identifiers, paths and multi-word proper names.

The deterministic extractor uses them three ways: as merge keys (two teaching moments
that name the same identifier or system are one piece of knowledge), as tags, and, for
repository-relative paths, as file anchors. Everything here is a pure function of its text.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from lorebook.models.note import TAG_RE

_BACKTICK = re.compile(r"`([^`\n]+)`")
_SNAKE = re.compile(r"\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b")
_CAMEL = re.compile(r"\b[a-z][a-z0-9]*(?:[A-Z][a-z0-9]+)+\b")
_PATH = re.compile(r"(?<![\w/.@~-])[\w.@-]+(?:/[\w.*@-]+)+")
_NAME_RUN = re.compile(
    r"[A-Z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)*(?:[ \t]+[A-Z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)*)+"
)
_TAG_BAD = re.compile(r"[^a-z0-9._/+-]+")
_DASHES = re.compile(r"-{2,}")
_GLOB = re.compile(r"[*?\[]")
_EXTENSION = re.compile(r"\.[A-Za-z0-9]{1,8}$")
MAX_TAG = 64

_COMMON = """a an the this that these those here there we our us i you your it its they their
    he she no yes yep correct right exactly good great ok okay agreed indeed please and but or
    so if when then before after while because do don't never always every each add use run
    fix keep put make ensure treat only also just now first next finally again still even
    not all any some both either neither what why how where who which note remember see look
    cover show drop finish start stop end try let let's go give write read check update
    move remove rename create delete patch queue set get ignore is are was were be"""
COMMON_WORDS = frozenset(_COMMON.split())
"""Capitalised at the start of a sentence, these do not begin a proper name."""


def backticked(text: str) -> list[str]:
    """Return the contents of the inline code spans of ``text``, in order."""
    return [span.strip() for span in _BACKTICK.findall(text) if span.strip()]


def _unique(items: Iterable[str]) -> list[str]:
    seen: set[str] = set()
    kept: list[str] = []
    for item in items:
        if item and item not in seen:
            seen.add(item)
            kept.append(item)
    return kept


def code_identifiers(text: str) -> list[str]:
    """Return the code identifiers of ``text``: backticked spans, snake_case and camelCase.

    Snake and camel tokens are found inside code spans too, so ``modules/custom/x_y`` yields
    both the span and ``x_y``. Order of first appearance, without repeats.
    """
    tokens = backticked(text)
    tokens += _SNAKE.findall(text)
    tokens += _CAMEL.findall(text)
    return _unique(tokens)


def paths(text: str) -> list[str]:
    """Return the path-like tokens of ``text`` (with a ``/``), trailing punctuation dropped."""
    found = [match.group(0).rstrip(".,;:") for match in _PATH.finditer(text)]
    return _unique(token for token in found if "/" in token and "://" not in token)


def proper_names(text: str) -> list[str]:
    """Return the multi-word proper names of ``text`` (``Beacon Review Lane``).

    A proper name is a run of two or more capitalised words outside code spans, once the
    common words that merely start or end one (``The``, ``Never``, ``Use``, ``I`` ...) are
    trimmed.
    """
    plain = _BACKTICK.sub(" . ", text)
    names: list[str] = []
    for match in _NAME_RUN.finditer(plain):
        words = match.group(0).split()
        while words and words[0].lower() in COMMON_WORDS:
            words.pop(0)
        while words and words[-1].lower() in COMMON_WORDS:
            words.pop()
        if len(words) >= 2:
            names.append(" ".join(words))
    return _unique(names)


def merge_keys(text: str) -> set[str]:
    """Return the lower-cased identifiers, paths and proper names two candidates may share."""
    keys = code_identifiers(text) + paths(text) + proper_names(text)
    return {key.lower() for key in keys}


def as_tag(term: str) -> str | None:
    """Return ``term`` as a valid tag (lower case, ``[a-z0-9._/+-]``), or None if impossible.

    A term longer than :data:`MAX_TAG` is not cut (half a word is no tag): None.
    """
    tag = _TAG_BAD.sub("-", term.lower())
    tag = _DASHES.sub("-", tag).strip("-./+")
    return tag if tag and len(tag) <= MAX_TAG and TAG_RE.match(tag) else None


def file_anchor(term: str) -> str | None:
    """Return a repository-relative glob for a path the human wrote, or None.

    Absolute, home-relative, parent-relative paths, URLs, scoped packages (``@a/b``) and
    slash commands are not anchors. A path without a file extension or glob is taken as a
    directory and becomes ``path/**``; a two-segment directory (``src/Bridge``) is often
    relative to something named nearby, so it is matched anywhere: ``**/src/Bridge/**``.
    """
    path = term.strip().removeprefix("./")
    if "/" not in path or any(ch.isspace() for ch in path) or "://" in path:
        return None
    if path.startswith(("/", "~", "@", "$")) or ".." in path.split("/"):
        return None
    path = path.rstrip("/")
    if _GLOB.search(path) or _EXTENSION.search(path.rsplit("/", 1)[-1]):
        return path
    if path.count("/") < 2:
        return f"**/{path}/**"
    return f"{path}/**"
