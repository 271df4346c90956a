"""What the index keeps of a note, and the documents BM25 scores for it.

A note is scored by its best section: the body is cut into sections of about
:data:`SECTION_TOKENS` tokens, and each section's document repeats the note's head (title,
tags, description) with the field weights below. Runs on the hook path: stdlib only.
"""

from __future__ import annotations

import json
import zlib

from lorebook.recall.tokenize import tokenize

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Any


class IndexedNote:
    """What the index keeps of one note (enough to rank it and render it)."""

    __slots__ = (
        "anchors",
        "body",
        "description",
        "enforce",
        "id",
        "kind",
        "mtime_ns",
        "path",
        "refuted_because",
        "reviewed",
        "size",
        "sources",
        "status",
        "superseded_by",
        "tags",
        "title",
    )  # fmt: skip

    def __init__(
        self,
        id: str,
        path: str,
        mtime_ns: int,
        size: int,
        status: str,
        kind: str,
        enforce: str,
        title: str,
        description: str,
        body: str,
        tags: tuple[str, ...] = (),
        superseded_by: tuple[str, ...] = (),
        refuted_because: str | None = None,
        anchors: dict[str, list[str]] | None = None,
        reviewed: bool = False,
        sources: tuple[str, ...] = (),
    ) -> None:
        self.id = id
        self.path = path
        self.mtime_ns = mtime_ns
        self.size = size
        self.status = status
        self.kind = kind
        self.enforce = enforce
        self.title = title
        self.description = description
        self.body = body
        self.tags = tags
        self.superseded_by = superseded_by
        self.refuted_because = refuted_because
        self.anchors = anchors or {}
        self.reviewed = reviewed
        """A person reviewed the note as it is (:mod:`lorebook.reviewstate`); False until
        shown otherwise."""
        self.sources = sources
        """The repository files it was derived from (``lb_derived_from`` without the
        ``#section``; :func:`sources_of`): a host that loads one of
        them by itself is not served the note (:mod:`lorebook.inject.loaded`)."""

    def __repr__(self) -> str:
        return f"IndexedNote(id={self.id!r}, path={self.path!r}, status={self.status!r})"

    def head(self) -> str:
        """Title, tags and description: what the note is about, in its author's words."""
        return " ".join((self.title, " ".join(self.tags), self.description))

    def sections(self) -> list[list[str]]:
        """The documents BM25 scores, one per section of the body (see :func:`sections`)."""
        head = tokenize(self.title) * TITLE_WEIGHT
        head += tokenize(" ".join(self.tags)) * TAGS_WEIGHT
        head += tokenize(self.description) * DESCRIPTION_WEIGHT
        return [head + part for part in body_sections(self.body)]


def sources_of(derived_from: Iterable[str]) -> tuple[str, ...]:
    """The repository files among a note's origins, each once, in order.

    An origin is ``path#section`` or ``path`` for a document (what bootstrap writes), or
    ``harness:session[:turn]`` for a session, a URL, a pack's name: only a relative path
    without ``:`` counts, so a session never reads as a file.

    >>> sources_of(["CLAUDE.md#testing", "claude:s1:4", "CLAUDE.md#setup", "docs/a.md"])
    ('CLAUDE.md', 'docs/a.md')
    """
    found: dict[str, None] = {}
    for origin in derived_from:
        path = origin.partition("#")[0].strip()
        if path and ":" not in path and not path.startswith("/"):
            found.setdefault(path.removeprefix("./"), None)
    return tuple(found)


TITLE_WEIGHT = 3
TAGS_WEIGHT = 2
DESCRIPTION_WEIGHT = 2
"""Field weights: each section's document repeats the note's title, tags and description
this many times (BM25's saturating term frequency makes a repeat worth less than a new
word, so the head weighs more than the body without drowning it)."""
SECTION_TOKENS = 160
"""A body longer than this many tokens is scored by its best section: paragraphs are
grouped up to this size (headings start a new section), so a 30 KB note competes with the
one part of it that matches, not with its whole vocabulary."""


def body_sections(body: str) -> list[list[str]]:
    """The body's tokens cut into sections of about :data:`SECTION_TOKENS` tokens.

    A markdown heading starts a new section; paragraphs are grouped until the next would
    pass the size; a single longer paragraph is cut into windows. An empty body is one
    empty section (the head alone is then the document).
    """
    result: list[list[str]] = []
    current: list[str] = []
    for block in _blocks(body):
        tokens = tokenize(block)
        starts_heading = block.lstrip().startswith("#")
        if current and (starts_heading or len(current) + len(tokens) > SECTION_TOKENS):
            result.append(current)
            current = []
        while len(tokens) > SECTION_TOKENS:
            result.append(tokens[:SECTION_TOKENS])
            tokens = tokens[SECTION_TOKENS:]
        current += tokens
    if current or not result:
        result.append(current)
    return result


def _blocks(body: str) -> list[str]:
    """Paragraphs of ``body``; a heading line is a block of its own."""
    blocks: list[str] = []
    current: list[str] = []
    for line in body.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            if current:
                blocks.append("\n".join(current))
                current = []
            if line.strip():
                current = [line]
            continue
        current.append(line)
    if current:
        blocks.append("\n".join(current))
    return blocks


DOC_COLUMNS = (
    "id, path, mtime_ns, size, len, status, kind, enforce, title, description, body, extra, "
    "reviewed"
)
"""The ``docs`` columns :func:`note_from_row` reads, in order."""


def pack_body(body: str) -> bytes:
    """A note's body as the index keeps it: deflated (bodies are most of an index's bytes)."""
    return zlib.compress(body.encode("utf-8"), 6)


def unpack_body(stored: bytes | str) -> str:
    """The body :func:`pack_body` stored."""
    return zlib.decompress(stored).decode("utf-8") if isinstance(stored, bytes) else stored


def note_from_row(row: tuple[Any, ...]) -> IndexedNote:
    """An IndexedNote from a ``docs`` row (:data:`DOC_COLUMNS`, in order)."""
    extra = json.loads(row[11])
    return IndexedNote(
        id=row[0], path=row[1], mtime_ns=row[2], size=row[3], status=row[5], kind=row[6],
        enforce=row[7], title=row[8], description=row[9], body=unpack_body(row[10]),
        tags=tuple(extra.get("tags", ())), superseded_by=tuple(extra.get("superseded_by", ())),
        refuted_because=extra.get("refuted_because"), anchors=extra.get("anchors", {}),
        reviewed=bool(row[12]), sources=tuple(extra.get("sources", ())),
    )  # fmt: skip
