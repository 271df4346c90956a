"""Whether one text already says another.

What keeps the text served to a model from saying anything twice: a note's description
beside its title or its body, a pointer's title beside its description. Standard library
only: the hook path imports it.
"""

from __future__ import annotations

import re

REFERRING = frozenset(
    [
        "a",
        "an",
        "the",
        "it",
        "its",
        "this",
        "that",
        "these",
        "those",
        "they",
        "them",
        "their",
        "there",
        "here",
        "to",
        "of",
        "in",
        "on",
        "at",
        "for",
        "with",
        "by",
        "from",
        "and",
        "or",
    ]
)
"""Articles, pronouns and the plainest prepositions: what a title names in full ("its
trigger" as "the workflow's trigger") without changing the rule."""


def plain(line: str) -> str:
    """A line as compared for repeats: no heading or quote marks, emphasis, case, outer space."""
    return line.strip().lstrip("#>").strip().strip("*_").strip().rstrip(".:").casefold()


def cut(text: str) -> str:
    """``text`` on one line, without the ellipsis a cut description ends with."""
    return " ".join(text.split()).removesuffix("\u2026").removesuffix("...").rstrip()


def opens_with(body: str, description: str) -> bool:
    """True when ``body`` opens with ``description``, whose end may be cut ("... mark …").

    Spacing and line breaks aside: an extracted note's description is its quote's first
    sentence on one line, cut at a word with an ellipsis when it is long.
    """
    return " ".join(body.split()).startswith(cut(description))


def says(body: str, description: str) -> bool:
    """True when ``body`` says ``description`` somewhere, quoted or not (spacing aside)."""
    lines = [line.strip().lstrip(">").strip() for line in body.splitlines()]
    return cut(description).casefold() in " ".join(" ".join(lines).split()).casefold()


def holds(description: str, title: str) -> bool:
    """True when ``description`` has every word of ``title`` (case and punctuation aside)."""
    words = set(re.findall(r"\w+", title.lower()))
    return bool(words) and words <= set(re.findall(r"\w+", description.lower()))


def says_title(description: str, title: str) -> bool:
    """Whether a description stands for its title too: it opens with it or holds each word."""
    return opens_with(description, title) or holds(description, title)


def within(description: str, title: str) -> bool:
    """True when ``title`` holds every word of ``description`` but its stop words.

    "Do not add a `paths:` filter to its trigger" is within "Do not add a `paths:` filter to
    the Protect .github workflow trigger". Only the words that refer (:data:`REFERRING`)
    are passed over: "not", "only", "before" change what a rule says.
    """
    words = set(re.findall(r"\w+", description.lower())) - REFERRING
    return bool(words) and words <= set(re.findall(r"\w+", title.lower()))
