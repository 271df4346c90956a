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

from lorebook.hostkit.loaded import existing, folders, follow_imports, join

NAMES = ("CLAUDE.md", ".claude/CLAUDE.md", "CLAUDE.local.md")
"""What Claude Code reads in each folder from the project root down to its cwd."""
MAX_IMPORT_DEPTH = 5
"""Imports are followed this many hops from a ``CLAUDE.md`` (Claude Code's documented cap)."""


def loaded_files(repo: str, cwd: str | None) -> frozenset[str]:
    """The repository files Claude Code loads whole at session start (repo-relative)."""
    up = folders(repo, cwd)
    roots = existing(repo, [join(f, name) for f in up for name in NAMES])
    return frozenset(follow_imports(repo, roots, up[-1], MAX_IMPORT_DEPTH))
