"""Which files ``lorebook bootstrap`` reads, and what kind of document each one is.

Without paths it reads a repository's usual knowledge: every ``README*.md``, ``CLAUDE.md``
and ``AGENTS.md`` (at any depth) and the Markdown files they link to, ``CONTRIBUTING*.md``
(at the root or in ``.github/``),
Markdown under ``docs/`` and ``doc/`` (of a docs site's MDX pages, those for contributors:
:func:`contributor_page`), architecture
decision records (Markdown in a folder named ``adr``, ``adrs`` or ``decisions``), Cursor
rules (``.cursor/rules/**/*.mdc``), ``.github/copilot-instructions.md`` and
``.github/instructions/**/*.md``. Where Markdown is named, reStructuredText (``.rst``) is
read too (``CONTRIBUTING.rst``, a Sphinx ``docs/``). Paths narrow that to the files named,
or to the Markdown (``.md``, ``.mdx``), reStructuredText and ``.mdc`` files under the
folders named.

Dependency, build and tool folders (``node_modules``, ``.venv``, ``.lorebook`` ...) and
other dot-folders are not searched; a symbolic link is never followed or read through.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Literal

from lorebook.errors import LorebookError

DocKind = Literal["rule", "adr", "instructions", "doc"]
"""``rule`` and ``adr``: one proposal per file; ``instructions`` and ``doc``: one per section."""

MAX_DOC_BYTES = 1 << 20
"""Documents larger than this (1 MiB) are skipped: they are data, not prose."""

SKIPPED_DIRS = frozenset(
    {"node_modules", "venv", "vendor", "dist", "build", "target", "site-packages", "__pycache__"}
)
# Host names core keeps on purpose: a repository's instruction documents are the team's
# knowledge whichever assistant they were written for, and bootstrap reads them whether or
# not that host's plugin is installed here, so it cannot ask only the installed plugins.
DOT_DIRS_READ = frozenset({".cursor", ".github", ".claude"})
ADR_FOLDERS = frozenset({"adr", "adrs", "decisions"})
_ADR_INDEX = re.compile(r"^(?:readme|index|template|\d+-template)\b", re.IGNORECASE)
"""A file of an ADR folder that is no record: its index or the template new ones copy."""
INSTRUCTION_FILES = frozenset({"CLAUDE.md", "AGENTS.md", "copilot-instructions.md"})
PROSE_SUFFIXES = frozenset({".md", ".rst"})
"""Markdown, and reStructuredText (read as Markdown: :mod:`lorebook.bootstrap.rst`)."""


FOR_CONTRIBUTORS = re.compile(
    r"contribut|develop|hacking|convention|guideline|standard|style|rules|polic|practice"
    r"|architecture|decision|design|workflow|process|coding",
    re.IGNORECASE,
)
"""Words that, in a document's file name or first heading, say who it is written for."""
_FIRST_HEADING = re.compile(r"^#[ \t]+(.+)$", re.MULTILINE)


class BootstrapError(LorebookError):
    """A path given to bootstrap cannot be read (the message names it)."""


@dataclass(frozen=True, slots=True)
class Document:
    """One document to draft notes from: its repo-relative path, kind, text and hash."""

    rel: str
    kind: DocKind
    text: str
    sha256: str


def for_contributors(doc: Document) -> bool:
    """True when the document is written for the people who change the project.

    Instruction files, rules and decision records are; so is a document whose file name
    or first heading says it is about contributing, development, conventions, guidelines,
    style, process, architecture or decisions (:data:`FOR_CONTRIBUTORS`). A user guide or
    a README is not: bootstrap reads it strictly
    (:func:`lorebook.bootstrap.statements.read_sentence`).
    """
    if doc.kind != "doc":
        return True
    if doc.rel.endswith(".mdx") and contributor_page(PurePosixPath(doc.rel)):
        return True
    stem = PurePosixPath(doc.rel).stem
    heading = _FIRST_HEADING.search(doc.text)
    return bool(
        FOR_CONTRIBUTORS.search(stem) or (heading and FOR_CONTRIBUTORS.search(heading.group(1)))
    )


def contributor_page(rel: PurePosixPath) -> bool:
    """True when a docs site's page is for contributors by its name or folder.

    A site built from MDX pages (Mintlify, Docusaurus) is mostly the product's manual for its
    users; its pages for the people who change the project say so in their file name or a
    folder (``docs/development/tests.mdx``, ``docs/contributing.mdx``).
    """
    return any(FOR_CONTRIBUTORS.search(part) for part in (*rel.parts[1:-1], rel.stem))


def kind_of(rel: PurePosixPath) -> DocKind:
    """The kind of the document at ``rel`` (repo-relative)."""
    parts = [p.lower() for p in rel.parts[:-1]]
    if rel.suffix == ".mdc" or (parts[:2] == [".github", "instructions"]):
        return "rule"
    if rel.name in INSTRUCTION_FILES:
        return "instructions"
    if any(p in ADR_FOLDERS for p in parts) and not _ADR_INDEX.match(rel.name):
        return "adr"
    return "doc"


def _wanted_by_default(rel: PurePosixPath) -> bool:
    parts = rel.parts
    name = rel.name
    if rel.suffix == ".mdc":
        return parts[:2] == (".cursor", "rules")
    if rel.suffix == ".mdx":
        return parts[0] in {"docs", "doc"} and contributor_page(rel)
    if rel.suffix not in PROSE_SUFFIXES:
        return False
    if name in INSTRUCTION_FILES or name.upper().startswith("README"):
        return True
    if name.upper().startswith("CONTRIBUTING") and (len(parts) == 1 or parts[0] == ".github"):
        return True
    if parts[:2] in {(".github", "copilot-instructions.md"), (".github", "instructions")}:
        return True
    if parts[0] in {"docs", "doc"}:
        return True
    return any(p.lower() in ADR_FOLDERS for p in parts[:-1])


def _skip_dir(name: str, *, explicit: bool) -> bool:
    if name in SKIPPED_DIRS or name in {".git", ".lorebook", ".venv"}:
        return True
    return name.startswith(".") and not explicit and name not in DOT_DIRS_READ


def _walk(root: Path, base: Path, *, explicit: bool) -> Iterator[PurePosixPath]:
    """Regular files under ``root``, repo-relative, sorted; links are neither followed nor read."""
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        here = Path(dirpath)
        dirnames[:] = sorted(
            d
            for d in dirnames
            if not _skip_dir(d, explicit=explicit) and not (here / d).is_symlink()
        )
        for name in sorted(filenames):
            path = here / name
            if not path.is_symlink() and path.is_file():
                yield PurePosixPath(path.relative_to(base).as_posix())


def _inside(repo: Path, given: str) -> Path:
    path = Path(given)
    if not path.is_absolute():  # relative to where the command runs, else to the repository
        path = Path.cwd() / given if (Path.cwd() / given).exists() else repo / given
    if path.is_symlink():
        raise BootstrapError(f"{given}: is a symbolic link; bootstrap does not follow links")
    resolved = path.resolve()
    if resolved != repo and repo not in resolved.parents:
        raise BootstrapError(f"{given}: is outside the repository ({repo.name})")
    if not resolved.exists():
        raise BootstrapError(f"{given}: no such file or folder")
    return resolved


def find_documents(repo: Path, targets: Sequence[str] = ()) -> list[PurePosixPath]:
    """The documents to read, repo-relative and sorted (see the module docstring).

    A relative target is read from the current folder, or from the repository's root when
    the current folder has no such path (``lorebook -C REPO bootstrap docs``).

    Raises:
        BootstrapError: a target is missing, outside the repository or a symbolic link.
    """
    repo = repo.resolve()
    found: set[PurePosixPath] = set()
    if not targets:
        found.update(r for r in _walk(repo, repo, explicit=False) if _wanted_by_default(r))
        found.update(linked_documents(repo, found))
        return sorted(found)
    for given in targets:
        path = _inside(repo, given)
        if path.is_file():
            found.add(PurePosixPath(path.relative_to(repo).as_posix()))
            continue
        found.update(
            r
            for r in _walk(path, repo, explicit=True)
            if r.suffix in {*PROSE_SUFFIXES, ".mdx", ".mdc"}
        )
    return sorted(found)


_LINKED = re.compile(
    r"\]\(<?(?P<link>[^)\s<>#:]+\.md)>?(?:#[^)]*)?\)|(?:^|\s)@(?P<at>[^\s`]+\.md)\b"
)
"""A Markdown link to a local ``.md`` file, or a ``@path.md`` import (Claude Code's)."""


def linked_documents(repo: Path, rels: Iterable[PurePosixPath]) -> set[PurePosixPath]:
    """The Markdown files inside ``repo`` that its instruction files among ``rels`` link to.

    "Always read agent_docs/index.md and follow those guidelines": a document an
    instruction file sends the agent to is instructions too, wherever it lives (a README
    stays what it is, a document for the project's users). Links are resolved from the
    linking file's folder; one that leaves the repository, goes through a symbolic link or
    names a file that is not there, is not followed.
    """
    found: set[PurePosixPath] = set()
    for rel in rels:
        if rel.name not in INSTRUCTION_FILES:
            continue
        try:
            text = (repo / rel).read_text(encoding="utf-8", errors="replace")[:MAX_DOC_BYTES]
        except OSError:
            continue
        for match in _LINKED.finditer(text):
            named = Path(os.path.normpath(repo / rel.parent / (match["link"] or match["at"])))
            if named.resolve() != named or repo not in named.parents or not named.is_file():
                continue  # a link on the way, outside the repository, or no such file
            linked = PurePosixPath(named.relative_to(repo).as_posix())
            if not linked.name.upper().startswith("README") and not any(
                _skip_dir(part, explicit=False) for part in linked.parts[:-1]
            ):
                found.add(linked)
    return found


def read_documents(
    repo: Path, rels: Iterable[PurePosixPath], problems: list[str]
) -> Iterator[Document]:
    """Read each document; one that is too large or not UTF-8 becomes a problem line.

    A document an instruction file links to (:func:`linked_documents`) is read as
    instructions, whatever its name.
    """
    rels = list(rels)
    linked = linked_documents(repo.resolve(), rels)
    for rel in rels:
        path = repo / rel
        try:
            data = path.read_bytes()
        except OSError as exc:
            problems.append(f"{rel}: cannot be read ({exc.strerror})")
            continue
        if len(data) > MAX_DOC_BYTES:
            problems.append(f"{rel}: skipped, larger than {MAX_DOC_BYTES} bytes")
            continue
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError:
            problems.append(f"{rel}: skipped, not valid UTF-8")
            continue
        digest = hashlib.sha256(data).hexdigest()
        text = text.replace("\r\n", "\n")
        if rel.suffix == ".rst":
            from lorebook.bootstrap.rst import RstError, as_markdown

            try:
                text = as_markdown(text)
            except RstError as exc:
                problems.append(f"{rel}: skipped, {exc}")
                continue
        kind = kind_of(rel)
        yield Document(
            rel.as_posix(),
            "instructions" if kind == "doc" and rel in linked else kind,
            text,
            digest,
        )
