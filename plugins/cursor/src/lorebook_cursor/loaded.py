"""The files Cursor loads by itself in every chat: always-applied rules and ``AGENTS.md``.

Cursor applies a project rule (``.cursor/rules/**/*.mdc``) in every chat when its front
matter says ``alwaysApply: true``; the root ``AGENTS.md`` and the legacy ``.cursorrules``
too (Cursor's documentation; no Cursor client runs here). A rule applied by its ``globs``
or chosen by the agent from its ``description`` is not always there, so notes derived
from it are still served.
"""

from __future__ import annotations

import os

from lorebook.hostkit.loaded import existing, front_matter, read_text

RULES_DIR = ".cursor/rules"
ALWAYS_FILES = ("AGENTS.md", ".cursorrules")
MAX_RULE_FILES = 1000
"""At most this many rule files are read for their front matter."""


def always_applied(repo: str) -> list[str]:
    """The rule files under ``.cursor/rules`` whose front matter says ``alwaysApply: true``."""
    found: list[str] = []
    seen = 0
    top = os.path.join(repo, *RULES_DIR.split("/"))
    for folder, dirs, files in os.walk(top):
        dirs.sort()
        for name in sorted(files):
            if not name.endswith(".mdc") or seen >= MAX_RULE_FILES:
                continue
            seen += 1
            rel = os.path.relpath(os.path.join(folder, name), repo).replace(os.sep, "/")
            text = read_text(repo, rel)
            flags = dict(front_matter(text)) if text else {}
            if flags.get("alwaysApply", "").lower() == "true":
                found.append(rel)
    return existing(repo, found)


def loaded_files(repo: str, cwd: str | None) -> frozenset[str]:
    """The repository files Cursor puts in every chat whole (repo-relative)."""
    return frozenset([*existing(repo, ALWAYS_FILES), *always_applied(repo)])
