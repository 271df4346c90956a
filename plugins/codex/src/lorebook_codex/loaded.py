"""The files Codex CLI loads by itself at session start: ``AGENTS.md``, root down to cwd.

In each folder from the project root down to its cwd Codex reads ``AGENTS.override.md``,
or else ``AGENTS.md``, and sends them, in that order, as one user message, up to
``project_doc_max_bytes`` (32 KiB by default) in all (shared/HARNESSES.md 2.7). A file the
cap cuts is not loaded in full, and neither is any after it.
"""

from __future__ import annotations

from lorebook.hostkit.loaded import folders, is_file, join, within_bytes

NAMES = ("AGENTS.override.md", "AGENTS.md")
"""What Codex reads in a folder: the first of these that exists."""
PROJECT_DOC_MAX_BYTES = 32 * 1024
"""Codex's default ``project_doc_max_bytes``: what it reads of the files together."""


def loaded_files(repo: str, cwd: str | None) -> frozenset[str]:
    """The repository files Codex loads whole at session start (repo-relative)."""
    chosen = []
    for folder in folders(repo, cwd):
        for name in NAMES:
            if is_file(repo, join(folder, name)):
                chosen.append(join(folder, name))
                break
    return frozenset(within_bytes(repo, chosen, PROJECT_DOC_MAX_BYTES))
