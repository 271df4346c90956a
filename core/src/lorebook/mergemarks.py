"""Git's merge-conflict marker lines in a file's text. Standard library only."""

from __future__ import annotations


def conflict_lines(text: str) -> tuple[int, int] | None:
    """The first and last line (1-based) of an unresolved git merge conflict, or None.

    A conflict is git's three marker lines in order, ``<<<<<<< ``, ``=======`` and
    ``>>>>>>> ``, outside fenced code (where a note may show one).
    """
    fence = ""
    start = middle = 0
    for number, line in enumerate(text.splitlines(), 1):
        mark = line.lstrip()[:3]
        if mark in ("```", "~~~"):
            fence = "" if fence == mark else fence or mark
            continue
        if fence:
            continue
        if line.startswith("<<<<<<<") and line[7:8] in ("", " "):
            start, middle = number, 0
        elif start and line.rstrip() == "=======":
            middle = number
        elif start and middle and line.startswith(">>>>>>>") and line[7:8] in ("", " "):
            return start, number
    return None
