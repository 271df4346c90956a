"""A host's own memory of a repository, as ``lorebook harvest`` and ``doctor`` read it.

A harness plugin whose host keeps memories on disk (notes the host writes for itself about
the project and the person) implements :class:`HostMemory` beside the
:class:`~lorebook.harness.Harness` methods: ``lorebook harvest --from NAME`` then proposes
those memories for the team's review, and ``lorebook doctor`` says when some wait. The
plugin knows where its host keeps them and how they are laid out; core decides what
becomes of each entry (a note, a conflict, the person's own store).

The helpers below are what two memory readers would otherwise each write: the kind a
memory reads as, its title as a rule, whether it is about the person rather than the
project, one-line descriptions, front matter.

Not for the hook path: the helpers import the rules extractor when first called.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    from lorebook.models.note import NoteKind


@dataclass(frozen=True, slots=True)
class MemoryEntry:
    """One memory of a host's store.

    Attributes:
        key: Its identity within the store (a file name, or a handbook bullet); notes cite
            it as ``<host>-memory:<key>``.
        slot: Where it sits; an entry that vanished from a slot while a new one appeared
            there was edited (a memory whose slot is its file never moves).
        title: Its claim's title.
        description: One line saying what it says.
        text: What it says.
        kind: The note kind it reads as (:func:`kind_of`).
        sha256: Of its text as stored (:func:`text_sha256`): a new hash is an edit.
        personal: It is about the person, not the project (:func:`about_the_person`);
            harvest writes it to the person's own store, never the team's.
    """

    key: str
    slot: str
    title: str
    description: str
    text: str
    kind: NoteKind
    sha256: str
    personal: bool = False


@dataclass(slots=True)
class MemoryListing:
    """A store's entries for one repository, and what was left out and why.

    ``store`` is the folder the entries were read from, None when the host keeps no
    store here (harvest then says there is nothing to harvest).
    """

    store: Path | None
    entries: list[MemoryEntry] = field(default_factory=list)
    skipped: dict[str, int] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)

    def skip(self, why: str) -> None:
        """Count one entry left out for ``why``."""
        self.skipped[why] = self.skipped.get(why, 0) + 1


@runtime_checkable
class HostMemory(Protocol):
    """What a harness offers when its host keeps its own memory of a repository on disk."""

    def memory_entries(self, repo: Path) -> MemoryListing:
        """The memories the host keeps for ``repo``.

        Those of another repository are left out (counted in ``skipped``), unreadable
        files named in ``problems``; ``store`` is None when the host keeps none here.
        Never raises for a missing or malformed store.
        """
        ...

    def memory_store(self, repo: Path) -> Path:
        """Where the host keeps (or would keep) its memories of ``repo``."""
        ...


def text_sha256(text: str) -> str:
    """The hex SHA-256 of ``text`` (UTF-8), for :attr:`MemoryEntry.sha256`."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def kind_of(title: str, text: str, default: NoteKind = "convention") -> NoteKind:
    """The note kind the rules extractor's signals read in a memory, else ``default``.

    >>> kind_of("Never push to main", "Open a pull request instead.")
    'prohibition'
    """
    from lorebook.bootstrap.drafts import guess_kind

    return guess_kind(title, text, default)


def one_line(text: str, limit: int | None = None) -> str:
    """``text`` on one line, cut at a word to ``limit`` characters (default: a description's)."""
    from lorebook.bootstrap.sections import clip_line

    return clip_line(text) if limit is None else clip_line(text, limit)


def first_sentence(text: str, fallback: str) -> str:
    """The first sentence of the prose of ``text``, on one line; ``fallback`` when none."""
    from lorebook.bootstrap.sections import first_sentence as first

    return first(text, fallback)


def stated_rule(text: str) -> str:
    """The rule ``text`` states, in a short sentence; "" when it states none."""
    from lorebook.extractors.statement import state_rule

    return state_rule(text)


def front_matter(text: str) -> tuple[dict[str, Any], str]:
    """Split a Markdown file's text into its front matter (leniently read) and its body."""
    from lorebook.evaluation.lenient import split_lenient

    return split_lenient(text)


def slug(text: str) -> str:
    """``text`` as a lowercase, hyphenated slug ("" when it has no letter or digit)."""
    from lorebook.slug import slugify

    return slugify(text)


_PERSON = re.compile(
    r"^(?:the\s+|this\s+)?(?:user|developer|person)(?:'s\b|\s+preferences?\b|\s+"
    r"(?:(?:always|usually|generally|strongly|really)\s+)?(?:prefers|likes|dislikes|"
    r"wants|hates|loves|is|has|works|speaks|uses|goes\s+by)\b)"
    r"|^I\s+(?:(?:always|usually|really)\s+)?(?:prefer|like|dislike|want|hate|love|am)\b",
    re.IGNORECASE,
)
"""A sentence whose subject is the person and whose verb says what they prefer or are."""
_OF_THE_PROJECT = re.compile(
    r"`|\w/\w|\b\w+\.(?:py|ts|tsx|js|jsx|md|toml|json|ya?ml|go|rs|java|rb|sh|sql|cfg|ini)\b"
    r"|\b(?:this|the|our)\s+(?:repo|repository|project|codebase|code\s+base|service|"
    r"package|app|monorepo)\b",
    re.IGNORECASE,
)
"""What names something of the project: code, a path, a file, "this repository"."""


def about_the_person(text: str) -> bool:
    """Whether a memory is about the person rather than the project.

    Its subject is the person and its verb says what they prefer or are ("The user prefers
    terse answers", "The user's name is Ada"), and it names nothing of the project (code
    in backticks, a path, a file name, "this repository").

    >>> about_the_person("The user prefers terse answers.")
    True
    >>> about_the_person("The user wants the tests run with `tox` in this repository.")
    False
    >>> about_the_person("The staging database is reset every night.")
    False
    """
    text = " ".join(text.split()).lstrip("*_ ")
    return bool(_PERSON.match(text)) and not _OF_THE_PROJECT.search(text)
