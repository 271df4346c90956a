"""The file globs notes name: anchors (``lb_anchors`` files) and dependency trees.

Serving matches the file at hand against anchors (:mod:`lorebook.recall.anchors`); validity
matches a tree's glob against the repository (:mod:`lorebook.validity.check`). Standard
library only: the hook path imports this module.
"""

from __future__ import annotations

import functools
import re


@functools.lru_cache(maxsize=4096)
def glob_regex(pattern: str) -> re.Pattern[str]:
    """Compile a file glob: ``**`` crosses folders, ``*`` and ``?`` do not."""
    out = []
    i = 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return re.compile("".join(out) + r"\Z")
