"""The drafts bootstrap stages for one section of a document: one per rule it states.

- A Markdown section (a README, ``docs/``, CLAUDE.md, AGENTS.md) and a rule file (a Cursor
  rule, a Copilot instructions file) give one draft per rule :mod:`lorebook.bootstrap.distil`
  finds in them. A document not written for the people who change the project is read
  strictly (:func:`lorebook.bootstrap.documents.for_contributors`). A rule file's globs
  anchor every note; its front matter ``description`` is not read: it says when the rule
  applies (Cursor shows it to the agent to choose rules), not what the rule is.
- An architecture decision record gives one decision: the first sentence of its decision
  section, else its title without its number.
- A changelog (named so, or most of its outermost headings name a version or a date) gives
  none: what it says changed is history.
- A tutorial (its file name, a folder or its first heading says so: *tutorial*, *walkthrough*,
  *quickstart*, *getting started*) gives none: it walks its reader through building an
  example, so what it says must hold is the example's ("Length must be at least 2"), and
  what it explains is for a newcomer to the tool ("The `-e` stands for editable").
- What the instructions say about themselves gives none: a rule file whose globs name only
  instruction documents, and a rule file's rule that speaks of rules
  (:mod:`lorebook.bootstrap.roles`; counted as ``about the instructions``).

Each draft's title is the rule, its description the whole sentence, its quote the sentence
as the document writes it, and its body that quote with the block around it and where it
comes from (``CLAUDE.md``, under Testing). Its origin names the document and the section
(``docs/setup.md#testing``; a rule file: the heading above the rule).
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from pathlib import PurePosixPath
from typing import TYPE_CHECKING

from lorebook.bootstrap.distil import Rule, description_of, distil, plain, sentences, title_of
from lorebook.bootstrap.drafts import Draft
from lorebook.bootstrap.roles import instruction_globs, names_rules
from lorebook.bootstrap.titles import completed
from lorebook.slug import slugify

if TYPE_CHECKING:
    from lorebook.bootstrap.documents import Document
    from lorebook.bootstrap.sections import Section

DOC_TAGS = {"rule": "cursor-rule", "adr": "adr", "instructions": "instructions", "doc": "docs"}
CONTEXT_CHARS = 600
"""A note's body quotes the lines of its block (and the detail folded into it) up to this
many characters; a first line longer than this is replaced by the sentence alone."""

MAX_TAGS = 4
_HEADINGS = re.compile(r"^(#{1,3})[ \t]+(.+)$", re.MULTILINE)
_CHANGELOG = re.compile(
    r"^(?:change[-_ ]?log|changes|history|historical[-_ ]notes|news|release[-_ ]?notes"
    r"|what['\u2019]?s[-_ ]new|release[-_ ]?v?\d[\w.-]*)$",
    re.IGNORECASE,
)
_HISTORY_FOLDER = re.compile(r"^(?:announce(?:ments)?|releases|changelog|changes)$", re.IGNORECASE)
_VERSION = re.compile(r"^\[?v?\d+\.\d+|\b\d{4}-\d{2}-\d{2}\b", re.IGNORECASE)
_ADR_NUMBER = re.compile(r"^\s*(?:adr|rfc|decision)?[\s#-]*\d+\s*[:.)-]?\s*", re.IGNORECASE)
_TUTORIAL = re.compile(r"tutorial|walk-?through|quick-?start|getting[-_ ]started", re.IGNORECASE)
_FIRST_HEADING = re.compile(r"^#[ \t]+(.+)$", re.MULTILINE)
_DECISION_HEADING = re.compile(r"^#{2,6}\s+.*\bdecision\b", re.IGNORECASE | re.MULTILINE)


def rule_hash(rule: Rule) -> str:
    """16 hex digits of the sha256 of the rule's sentence (what a rerun compares)."""
    return hashlib.sha256(" ".join(rule.quote.split()).encode()).hexdigest()[:16]


def _where(rel: str, headings: tuple[str, ...]) -> str:
    path = " > ".join(plain(h) for h in headings)
    return f"`{rel}`, under {path}" if path else f"`{rel}`"


def _within(context: str, quote: str) -> list[str]:
    """The lines of ``context`` that fit in :data:`CONTEXT_CHARS`, "…" for the rest.

    The first line always does; when it alone is longer, the quote stands for it.
    """
    lines = [line for line in context.splitlines() if line.strip()]
    if not lines or len(lines[0]) > CONTEXT_CHARS:
        return [quote]
    kept, size = [lines[0]], len(lines[0])
    for line in lines[1:]:
        size += len(line) + 1
        if size > CONTEXT_CHARS:
            return [*kept, "…"]
        kept.append(line)
    return kept


def body_of(rule: Rule, rel: str) -> str:
    """The note's body: the block the rule stands in, quoted, and where it comes from.

    The detail folded into the rule comes with it, within :data:`CONTEXT_CHARS`.
    """
    quoted = "\n".join(f"> {line}".rstrip() for line in _within(rule.context, rule.quote))
    return f"{quoted}\n\nFrom {_where(rel, rule.headings)}."


def _origin(doc: Document, section: Section, rule: Rule) -> str:
    if not section.whole:
        return f"{doc.rel}#{section.anchor}"
    anchor = slugify(plain(rule.headings[-1])) if rule.headings else ""
    return f"{doc.rel}#{anchor}" if anchor else doc.rel


def is_changelog(doc: Document) -> bool:
    """True when the document is a changelog: by its name, or by its headings.

    Its file name or first heading says so (*changelog*, *changes*, *history*, *historical
    notes*, *news*, *release notes*, *what's new*, ``release-2.3.0``), or a folder it is in
    (``announce/``, ``releases/``; a rule file named ``changelog.mdc`` says how to keep one,
    and is none), or, of three headings or more, most of those of the outermost level
    that has two or more (a release's "### Features" and "### Docs" sit under it) name a
    version or a date. A changelog tells what changed; the rules it mentions are history,
    not the project's.
    """
    heading = _FIRST_HEADING.search(doc.text)
    path = PurePosixPath(doc.rel)
    named = (
        _CHANGELOG.match(path.stem)
        or any(_HISTORY_FOLDER.match(part) for part in path.parts[:-1])
        or (heading and _CHANGELOG.match(plain(heading.group(1))))
    )
    if named and doc.kind == "doc":
        return True
    levels: dict[int, list[str]] = {}
    for marks, text in _HEADINGS.findall(doc.text):
        levels.setdefault(len(marks), []).append(text)
    outer = next((levels[n] for n in sorted(levels) if len(levels[n]) >= 2), [])
    versions = sum(bool(_VERSION.search(plain(h))) for h in outer)
    every = sum(map(len, levels.values()))
    return every >= 3 and bool(outer) and 2 * versions >= len(outer)


def is_tutorial(doc: Document) -> bool:
    """True when the document's name, a folder on its path or its first heading says tutorial.

    ``docs/tutorial/options/required.md`` is one, as is ``# Tutorial: a model plugin``.
    """
    heading = _FIRST_HEADING.search(doc.text)
    named = PurePosixPath(doc.rel).parts
    return any(_TUTORIAL.search(part) for part in named) or bool(
        heading and _TUTORIAL.search(heading.group(1))
    )


def _tags(doc: Document, rule: Rule) -> tuple[str, ...]:
    """``bootstrap``, the kind of document, and the code names the rule mentions."""
    from lorebook.extractors.terms import as_tag, backticked

    named = [tag for span in backticked(rule.title) if (tag := as_tag(span))]
    return tuple(dict.fromkeys(["bootstrap", DOC_TAGS[doc.kind], *named[:MAX_TAGS]]))


FOLDER_INSTRUCTIONS = frozenset({"AGENTS.md", "CLAUDE.md"})
"""Instruction files a host reads for the folder they are in (``tests/AGENTS.md``); one in a
dot-folder (``.claude/CLAUDE.md``, ``.github/``) is the project's, not its folder's."""
_FILE_GLOB = re.compile(r"^[\w./-]*\*[\w./*-]*\.\w+$")


def _files(doc: Document, section: Section, rule: Rule) -> tuple[str, ...]:
    """The files a rule applies to; a note so anchored is given at a tool event on one.

    Its section's globs, the folder of a folder's instructions (``tests/AGENTS.md``:
    ``tests/**``), and a file glob its sentence names in code ("Never hand-edit a
    `*.lock.yml`": ``**/*.lock.yml``).
    """
    from lorebook.extractors.terms import backticked

    found = list(section.files)
    where = PurePosixPath(doc.rel)
    folder = where.parent
    if (
        doc.kind == "instructions"
        and where.name in FOLDER_INSTRUCTIONS
        and folder.name
        and not any(part.startswith(".") for part in folder.parts)
    ):
        found.append(f"{folder}/**")
    for span in backticked(rule.statement):
        if _FILE_GLOB.match(span) and ".." not in span:
            found.append(span if "/" in span else f"**/{span}")
    return tuple(dict.fromkeys(found))


def draft_of(doc: Document, section: Section, rule: Rule) -> Draft:
    """The draft a rule becomes."""
    return Draft(
        origin=_origin(doc, section, rule),
        title=completed(rule.title, rule.statement, rule.context),
        description=rule.statement,
        text=rule.context,
        kind=rule.kind,
        files=_files(doc, section, rule),
        tags=_tags(doc, rule),
        body=body_of(rule, doc.rel),
        quote=rule.quote,
    )


_STATUS = re.compile(
    r"^(?:[*-][ \t]*)?\**status\**[ \t]*:\**[ \t]*\**(?P<inline>\w+)"
    r"|^#{2,6}[ \t]+status[ \t]*\n+[ \t]*(?:[*-][ \t]*)?\**(?P<below>\w+)",
    re.IGNORECASE | re.MULTILINE,
)
NOT_IN_FORCE = frozenset({"proposed", "draft", "rejected", "superseded", "deprecated", "withdrawn"})
"""An ADR status that records no decision the project follows now: not yet taken, or no longer."""


def in_force(text: str) -> bool:
    """False when the ADR's status says its decision is not taken yet or no longer holds.

    The status is a ``Status: Proposed`` line (a list item or bold too) or the first word
    under a ``## Status`` heading (``Superseded by ADR-0007``); with none, the ADR holds.
    """
    match = _STATUS.search(text)
    status = (match.group("inline") or match.group("below")) if match else ""
    return status.lower() not in NOT_IN_FORCE


def adr_rule(doc: Document, section: Section) -> Rule:
    """The decision an ADR records: its decision section's first sentence, else its title."""
    match = _DECISION_HEADING.search(section.text)
    if match is not None:
        line_end = section.text.find("\n", match.end())  # "## Decision (proposed)": all of it
        rest = section.text[len(section.text) if line_end < 0 else line_end :]
        for block in rest.split("\n\n"):
            block = block.strip()
            if block and not block.startswith(("#", "```", "|")):
                quote = sentences(block)[0]
                text = plain(quote)
                return Rule("decision", title_of(text), description_of(text), quote, block, ())
            if block.startswith("#"):
                break
    title = _ADR_NUMBER.sub("", plain(section.title)) or plain(section.title)
    return Rule("decision", title_of(title), section.description, section.title, section.text, ())


def rules_of(
    doc: Document, section: Section, *, strict: bool, tally: Counter[str] | None = None
) -> list[Rule]:
    """The rules one section of ``doc`` states (see the module docstring)."""
    if is_changelog(doc):
        return []
    if doc.kind == "doc" and is_tutorial(doc):
        if tally is not None:
            tally["tutorial"] += len(sentences(section.text))
        return []
    if doc.kind == "adr":
        if not in_force(doc.text):
            if tally is not None:
                tally["decision not in force"] += 1
            return []
        return [adr_rule(doc, section)]
    found = distil(section.text, tally, strict=strict)
    if doc.kind != "rule":
        return found
    whole = instruction_globs(section.files)
    kept = [r for r in found if not whole and not names_rules(r.title)]
    if tally is not None and len(kept) < len(found):
        tally["rule"] -= len(found) - len(kept)
        tally["about the instructions"] += len(found) - len(kept)
    return kept


__all__ = [
    "DOC_TAGS",
    "adr_rule",
    "body_of",
    "draft_of",
    "is_changelog",
    "is_tutorial",
    "rule_hash",
    "rules_of",
]
