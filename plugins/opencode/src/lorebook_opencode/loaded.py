"""The files OpenCode loads by itself at session start: ``AGENTS.md`` and its instructions.

OpenCode looks for ``AGENTS.md`` from where it runs up to the project root and reads every
one it finds; only when there is none, ``CLAUDE.md`` the same way (unless
``OPENCODE_DISABLE_CLAUDE_CODE`` or ``OPENCODE_DISABLE_CLAUDE_CODE_PROMPT`` is set). Every
file ``"instructions"`` in the project's ``opencode.json`` names (a path or a glob) goes in
too; all of them whole, into the system prompt (shared/HARNESSES.md 3.7).
"""

from __future__ import annotations

import glob
import json
import os

from lorebook.hostkit.loaded import existing, folders, is_file, join, read_text

CONFIG_FILES = ("opencode.json", "opencode.jsonc")
_CLAUDE_OFF = ("OPENCODE_DISABLE_CLAUDE_CODE", "OPENCODE_DISABLE_CLAUDE_CODE_PROMPT")
MAX_INSTRUCTION_FILES = 200
"""At most this many files are taken from the instructions' globs."""


def _claude_off() -> bool:
    return any(os.environ.get(name, "").lower() in ("1", "true") for name in _CLAUDE_OFF)


def instructions(repo: str) -> list[str]:
    """The repository files the project's ``opencode.json`` ``instructions`` name."""
    found: list[str] = []
    for name in CONFIG_FILES:
        text = read_text(repo, name)
        try:
            data = json.loads(text) if text else None
        except ValueError:
            continue  # a .jsonc with comments: not read here (the notes are served)
        entries = data.get("instructions") if isinstance(data, dict) else None
        for entry in entries if isinstance(entries, list) else ():
            if not isinstance(entry, str) or "://" in entry or entry.startswith(("~", "/")):
                continue
            if any(c in entry for c in "*?["):
                matches = glob.glob(entry, root_dir=repo, recursive=True)
                found += sorted(m.replace(os.sep, "/") for m in matches)[:MAX_INSTRUCTION_FILES]
            else:
                found.append(os.path.normpath(entry).replace(os.sep, "/"))
    return [rel for rel in dict.fromkeys(found) if not rel.startswith("..") and is_file(repo, rel)]


def loaded_files(repo: str, cwd: str | None) -> frozenset[str]:
    """The repository files OpenCode loads whole at session start (repo-relative)."""
    up = list(reversed(folders(repo, cwd)))
    rules: list[str] = []
    for name in ("AGENTS.md", "CLAUDE.md"):
        if name == "CLAUDE.md" and _claude_off():
            continue
        rules = existing(repo, [join(folder, name) for folder in up])
        if rules:
            break
    return frozenset([*rules, *instructions(repo)])
