"""Match the file, tool, command or error at hand against note anchors.

Recall by anchor: which notes the files, tool, command or error of a hook event select,
beside the ones the prompt ranker finds. :func:`tool_files` and :func:`tool_command` also
read a tool's input for the ``recall`` hook's query (:func:`lorebook.recall.pipeline.query_for`).
"""

from __future__ import annotations

import functools
import os
import re

# Defined in kb, where a note's dependency trees use the same globs; exported here as before.
from lorebook.kb.globs import glob_regex as glob_regex

TYPE_CHECKING = False  # the hook path does not import typing
if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping
    from typing import Any

FILE_KEYS = ("file_path", "path", "notebook_path", "filePath", "filepath", "file")
COMMAND_KEYS = ("command", "cmd")


@functools.lru_cache(maxsize=4096)
def _regex(pattern: str) -> re.Pattern[str] | None:
    try:
        return re.compile(pattern)
    except re.error:
        return None


def tool_files(tool_input: Mapping[str, Any], repo: str) -> list[str]:
    """Return the repository-relative paths a tool's input names (POSIX form)."""
    found = []
    for key in FILE_KEYS:
        value = tool_input.get(key)
        if isinstance(value, str) and value:
            path = value if os.path.isabs(value) else os.path.join(repo, value)
            rel = os.path.relpath(os.path.normpath(path), repo).replace(os.sep, "/")
            if not rel.startswith("../"):
                found.append(rel)
    return found


def tool_command(tool_input: Mapping[str, Any]) -> str | None:
    """Return the shell command a tool's input holds, if any."""
    for key in COMMAND_KEYS:
        value = tool_input.get(key)
        if isinstance(value, str) and value.strip():
            return value
        if isinstance(value, list) and all(isinstance(v, str) for v in value):
            return " ".join(value)
    return None


def match_files(anchors: Iterable[tuple[str, str]], files: list[str]) -> set[str]:
    """Return the ids of notes whose file glob matches one of ``files``."""
    return {
        note_id for pattern, note_id in anchors if any(glob_regex(pattern).match(f) for f in files)
    }


def match_regex(anchors: Iterable[tuple[str, str]], text: str) -> set[str]:
    """Return the ids of notes whose regular expression is found in ``text``."""
    hits = set()
    for pattern, note_id in anchors:
        compiled = _regex(pattern)
        if compiled is not None and compiled.search(text):
            hits.add(note_id)
    return hits


def match_tools(anchors: Iterable[tuple[str, str]], tool: str) -> set[str]:
    """Return the ids of notes anchored to this tool name (case-insensitive)."""
    wanted = tool.casefold()
    return {note_id for name, note_id in anchors if name.casefold() == wanted}
