"""Deterministic sectioning: a rule file, a decision record, or a document's sections.

- A Cursor rule (``.mdc``) or a Copilot instructions file (``.github/instructions/``) is one
  draft: its front matter (read leniently, :mod:`lorebook.evaluation.lenient`) gives the
  description and the file globs (``globs``, ``applyTo``) that become the note's file
  anchors; its first heading (else its description, else its file name) the title.
- An architecture decision record is one draft of kind ``decision``.
- Any other Markdown (READMEs, ``docs/``, CLAUDE.md, AGENTS.md, Copilot's repository
  instructions) is split at its headings of levels 1 to 3 (deeper ones stay inside their
  section; a ``#`` inside a code fence is no heading), keeping each section with enough
  words of prose (:data:`MIN_WORDS` by default). The text before the first heading is
  titled by the file name. A section's anchor is what notes cite (``#testing``); the
  rules in it are :mod:`lorebook.bootstrap.distil`'s to find.
- lorebook's own managed block in CLAUDE.md and AGENTS.md (:mod:`lorebook.pointer`) is cut
  out before anything is read.

The same bytes always give the same sections, anchors and drafts.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from lorebook.bootstrap.documents import Document
from lorebook.evaluation.lenient import split_lenient
from lorebook.slug import slugify

MIN_WORDS = 8
"""Sections with fewer words of prose than this (a heading over a code block) are not given
to an extractor; bootstrap's own reading takes any section with :data:`MIN_RULE_WORDS`."""
MIN_RULE_WORDS = 3

_HEADING = re.compile(r"^(#{1,6})[ \t]+(.+?)[ \t#]*$")
_FENCE = re.compile(r"^\s*(```|~~~)")
_WORD = re.compile(r"[A-Za-z0-9][\w'-]*")
_MATCH_ALL = frozenset({"*", "**", "**/*", "**/*.*", "./**/*", "/**/*"})
_BRACES = re.compile(r"\{([^{}]*)\}")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z`\"'(*_\[])")
_MARKUP = re.compile(r"^\s*(?:[-*+>]|\d+[.)])\s+|\*\*|__|^#+\s*")
DESCRIPTION_CHARS = 300


@dataclass(frozen=True, slots=True)
class Section:
    """One draftable unit of a document.

    Attributes:
        anchor: The section's anchor in the document (``""``: the whole file).
        title: Its heading (or the rule's title).
        text: What the section says, as the staged turn holds it.
        description: One line: the rule's description or the section's first sentence.
        files: File globs the section applies to (from a rule's front matter).
        whole: True when the section is the whole document (a rule, an ADR).
    """

    anchor: str
    title: str
    text: str
    description: str
    files: tuple[str, ...] = ()
    whole: bool = False


def strip_managed_block(text: str) -> str:
    """``text`` without lorebook's managed pointer block (CLAUDE.md, AGENTS.md)."""
    from lorebook.pointer import BEGIN, END

    start = text.find(BEGIN)
    end = text.find(END, start) if start != -1 else -1
    if start == -1 or end == -1:
        return text
    return text[:start] + text[end + len(END) :]


def expand_braces(glob: str) -> list[str]:
    """``src/**/*.{ts,tsx}`` -> ``src/**/*.ts``, ``src/**/*.tsx`` (anchors have no braces)."""
    match = _BRACES.search(glob)
    if match is None:
        return [glob]
    head, tail = glob[: match.start()], glob[match.end() :]
    out: list[str] = []
    for option in match.group(1).split(","):
        out += expand_braces(head + option.strip() + tail)
    return out


def rule_globs(value: Any) -> tuple[str, ...]:
    """File globs from a ``globs`` / ``applyTo`` value: a list, or a comma-separated string.

    Globs matching every file (``**/*``) are dropped: a note anchored to everything would be
    pushed before every tool call, which is what the catalog and ranking are for.
    """
    if isinstance(value, str):
        text = value.strip().strip("[]")
        items: list[Any] = [part for part in text.split(",")]
    elif isinstance(value, list):
        items = list(value)
    else:
        return ()
    found: list[str] = []
    for item in items:
        raw = str(item).strip().strip("\"'").strip()
        raw = raw[2:] if raw.startswith("./") else raw.lstrip("/")
        for glob in expand_braces(raw):
            if glob and glob not in _MATCH_ALL and ".." not in glob.split("/"):
                found.append(glob)
    return tuple(dict.fromkeys(found))


def prose_words(text: str) -> int:
    """Words outside code fences and heading lines."""
    count, fenced = 0, False
    for line in text.splitlines():
        if _FENCE.match(line):
            fenced = not fenced
        elif not fenced and not _HEADING.match(line):
            count += len(_WORD.findall(line))
    return count


def first_sentence(text: str, fallback: str) -> str:
    """The first sentence of the prose of ``text`` on one line, cut to a readable length."""
    fenced = False
    paragraph: list[str] = []
    for line in text.splitlines():
        if _FENCE.match(line):
            fenced = not fenced
            continue
        if fenced or _HEADING.match(line) or line.strip().startswith(("|", "<!--", "---")):
            if paragraph:
                break
            continue
        if not line.strip():
            if paragraph:
                break
            continue
        paragraph.append(_MARKUP.sub("", line.strip()))
    joined = " ".join(" ".join(paragraph).split())
    sentence = _SENTENCE_END.split(joined, maxsplit=1)[0] if joined else ""
    return clip_line(sentence or fallback)


def clip_line(text: str, limit: int = DESCRIPTION_CHARS) -> str:
    """One line of at most ``limit`` characters, cut at a word."""
    line = " ".join(text.split())
    if len(line) <= limit:
        return line
    return line[:limit].rsplit(" ", 1)[0].rstrip(",;:") + " …"


def _file_title(rel: str) -> str:
    stem = rel.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    return " ".join(stem.replace("_", " ").replace("-", " ").split()) or rel


def _heading_title(body: str) -> str | None:
    fenced = False
    for line in body.splitlines():
        if _FENCE.match(line):
            fenced = not fenced
        elif not fenced and (match := _HEADING.match(line)):
            return match.group(2).strip()
    return None


def whole_file(doc: Document) -> Section | None:
    """A rule or an ADR as one section (None when it says too little)."""
    meta, body = split_lenient(doc.text)
    body = body.strip("\n")
    if prose_words(body) < MIN_WORDS:
        return None
    described = clip_line(str(meta.get("description") or "").strip())
    title = _heading_title(body) or described or _file_title(doc.rel)
    files = rule_globs(meta.get("globs")) + rule_globs(meta.get("applyTo"))
    return Section(
        anchor="",
        title=clip_line(title, 200),
        text=body,
        description=described or first_sentence(body, title),
        files=tuple(dict.fromkeys(files)),
        whole=True,
    )


def _split_headings(text: str) -> list[tuple[str | None, list[str]]]:
    """``(heading or None, lines)`` pieces at headings of levels 1 to 3, outside fences."""
    pieces: list[tuple[str | None, list[str]]] = [(None, [])]
    fenced = False
    for line in text.splitlines():
        if _FENCE.match(line):
            fenced = not fenced
        match = None if fenced else _HEADING.match(line)
        if match and len(match.group(1)) <= 3:
            pieces.append((match.group(2).strip(), [line]))
        else:
            pieces[-1][1].append(line)
    return pieces


def markdown_sections(doc: Document, min_words: int = MIN_WORDS) -> list[Section]:
    """Every section of a Markdown document with ``min_words`` words of prose or more."""
    meta, body = split_lenient(strip_managed_block(doc.text))
    del meta  # a README's front matter (if any) is not knowledge
    sections: list[Section] = []
    used: set[str] = set()
    for heading, lines in _split_headings(body):
        text = "\n".join(lines).strip("\n")
        if prose_words(text) < min_words:
            continue
        title = heading or _file_title(doc.rel)
        anchor = _unique(slugify(title) or "section", used)
        sections.append(
            Section(
                anchor=anchor,
                title=clip_line(title, 200),
                text=text,
                description=first_sentence(text, title),
            )
        )
    return sections


def _unique(anchor: str, used: set[str]) -> str:
    candidate, n = anchor, 1
    while candidate in used:
        n += 1
        candidate = f"{anchor}-{n}"
    used.add(candidate)
    return candidate


def sections_of(doc: Document, min_words: int = MIN_WORDS) -> list[Section]:
    """The sections bootstrap drafts from ``doc``, in document order.

    ``min_words``: the fewest words of prose a Markdown section needs (a rule can be
    three words long; a section given whole to an extractor says more).
    """
    if doc.kind in ("rule", "adr"):
        section = whole_file(doc)
        return [] if section is None else [section]
    return markdown_sections(doc, min_words)
