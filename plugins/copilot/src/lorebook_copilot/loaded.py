"""The files Copilot CLI loads by itself at session start.

Seen with Copilot CLI 1.0.102 against a mock model (tests/e2e/test_loaded_files.py): the
root ``.github/copilot-instructions.md``; ``AGENTS.md``, ``CLAUDE.md`` and ``GEMINI.md`` in
every folder from the repository root down to where it runs; and every file an
``AGENTS.md`` or ``CLAUDE.md`` imports with ``@path`` (Claude Code's syntax, followed
anywhere in the repository, also outside the cwd; a full stop right after the path is not
part of it). All go whole into the system prompt.
Not loaded: ``.claude/CLAUDE.md`` and ``CLAUDE.local.md``.
"""

from __future__ import annotations

from lorebook.hostkit.loaded import existing, folders, follow_imports, join

ROOT_FILES = (".github/copilot-instructions.md",)
FOLDER_FILES = ("AGENTS.md", "CLAUDE.md", "GEMINI.md")
"""What Copilot reads in each folder from the root down to its cwd."""
IMPORTING = ("AGENTS.md", "CLAUDE.md")
"""The files whose ``@path`` imports Copilot was seen to follow."""
MAX_IMPORT_DEPTH = 5


def loaded_files(repo: str, cwd: str | None) -> frozenset[str]:
    """The repository files Copilot CLI loads whole at session start (repo-relative)."""
    files = existing(
        repo, [*ROOT_FILES, *(join(f, n) for f in folders(repo, cwd) for n in FOLDER_FILES)]
    )
    importing = [rel for rel in files if rel.rpartition("/")[2] in IMPORTING]
    return frozenset(
        [*files, *follow_imports(repo, importing, "", MAX_IMPORT_DEPTH, strip_punctuation=True)]
    )
