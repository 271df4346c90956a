"""The files Claude Code loads by itself at session start: ``CLAUDE.md`` and its imports.

Claude Code 2.x reads ``CLAUDE.md``, ``.claude/CLAUDE.md`` and ``CLAUDE.local.md`` in the
project root and in every folder from there down to where it runs, and every file those
import with ``@path`` (relative to the importing file, or absolute; not inside a code span
or a fenced block; up to :data:`MAX_IMPORT_DEPTH` hops), and puts them in the first user
message whole (shared/HARNESSES.md 1.7). An import of a file outside the folder Claude
runs in is an "external include" that waits for the user's approval, and a headless run
does not load it (seen with 2.1.197: run in ``sub/``, the root ``CLAUDE.md`` was sent but
not what it imports from ``docs/``, while ``sub/local.md`` was): such imports are left
out, so their notes are still served. A file in the home folder (``@~/...``) is not a
repository file and is left out. An import Claude would not resolve as written (a word
that merely starts with ``@``) names no file and is ignored.
"""

from __future__ import annotations

import re

from lorebook.hostkit.loaded import existing, folders, inside, is_file, join, read_text

NAMES = ("CLAUDE.md", ".claude/CLAUDE.md", "CLAUDE.local.md")
"""What Claude Code reads in each folder from the project root down to its cwd."""
MAX_IMPORT_DEPTH = 5
"""Imports are followed this many hops from a ``CLAUDE.md`` (Claude Code's documented cap)."""

_IMPORT = re.compile(r"(?:^|\s)@((?:[^\s\\]|\\ )+)")
_SPAN = re.compile(r"(`+).+?\1")
_FENCES = ("```", "~~~")


def imports(text: str) -> list[str]:
    r"""The ``@path`` imports of a ``CLAUDE.md``, in order (code is not read for them).

    >>> imports("See @docs/testing.md and `@not/this.md`.\n```\n@nor/this.md\n```\n@a\\ b.md")
    ['docs/testing.md', 'a b.md']
    """
    if "@" not in text:
        return []
    found: list[str] = []
    fence = ""
    for line in text.splitlines():
        head = line.lstrip()[:3]
        if fence:
            fence = "" if head == fence else fence
        elif head in _FENCES:
            fence = head
        elif "@" in line:
            found += [m.group(1).replace("\\ ", " ") for m in _IMPORT.finditer(_SPAN.sub("", line))]
    return found


def loaded_files(repo: str, cwd: str | None) -> frozenset[str]:
    """The repository files Claude Code loads whole at session start (repo-relative)."""
    up = folders(repo, cwd)
    roots = existing(repo, [join(f, name) for f in up for name in NAMES])
    here = f"{up[-1]}/" if up[-1] else ""
    found = dict.fromkeys(roots)
    frontier = roots
    for _ in range(MAX_IMPORT_DEPTH):
        following: list[str] = []
        for rel in frontier:
            text = read_text(repo, rel)
            for target in imports(text) if text else ():
                path = inside(repo, rel.rpartition("/")[0], target)
                if path is None or path in found or not path.startswith(here):
                    continue  # outside the cwd: an external include, not loaded headless
                if is_file(repo, path):
                    found[path] = None
                    following.append(path)
        frontier = following
    return frozenset(found)
