"""The files Copilot CLI loads by itself at session start.

``.github/copilot-instructions.md`` and ``AGENTS.md`` (at the repository root and in the
folder it runs in) go whole into the system prompt (verified with 1.0.102, shared/HARNESSES.md
4.7). Copilot's documentation also names ``CLAUDE.md`` and ``GEMINI.md``; that was not seen
in a real run, so a note derived from them is still served to Copilot (a note given twice
costs tokens; a note withheld that the host did not load costs the answer).
"""

from __future__ import annotations

from lorebook.hostkit.loaded import existing, folders, join

ROOT_FILES = (".github/copilot-instructions.md", "AGENTS.md")


def loaded_files(repo: str, cwd: str | None) -> frozenset[str]:
    """The repository files Copilot CLI loads whole at session start (repo-relative)."""
    here = folders(repo, cwd)[-1]
    return frozenset(existing(repo, [*ROOT_FILES, join(here, "AGENTS.md")]))
