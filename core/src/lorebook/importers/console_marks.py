"""Claude Code's pointer ``❯`` (U+276F) at column 0 of a console copy: a prompt, or not.

Claude Code 2.1 shows each prompt in the transcript as ``❯ prompt`` (older versions as
``> prompt``). The same pointer marks two things that are not prompts:

* the input box: a ``❯`` line (empty, or a draft not yet sent) right under a ``─`` rule;
* a menu's cursor (a permission dialog, an AskUserQuestion widget): ``❯ 1. Yes`` among
  options ``  2. …`` indented under or over it, the widget's own lines (option descriptions
  indented deeper, ``─`` rules) between them. The cursor is a menu's when an option lies
  over it, or when options follow it and then, after any blank lines, the menu's footer
  (``Esc to cancel``, ``Enter to select``, ``↑/↓ to navigate``) or nothing: a live menu is
  the last thing on the screen, while a numbered list typed as a prompt is answered.
"""  # noqa: RUF002 (the pointer is named on purpose)

from __future__ import annotations

import re

POINTER = "\u276f"
"""Claude Code 2.1's prompt mark, and its input box's and menus' cursor."""

POINTER_PROMPT = POINTER + " "
"""How a prompt begins in a copy of Claude Code 2.1 (``> `` in older versions)."""

_RULE = re.compile(r"^─{3,}\s*$")
_MENU_CURSOR = re.compile(r"^\u276f \d+\. \S")
_OPTION = re.compile(r"^ +\d+\. \S")
_MENU_PART = re.compile(r"^(?: +\d+\. \S| {3,}\S|─{3,}\s*$)")
"""A menu's line besides its cursor: an option, a description indented deeper, a rule."""
_FOOTER = re.compile(r"Esc to cancel|Enter to (?:select|confirm|submit)|to navigate")


def pointer_prompt(lines: list[str], index: int) -> str | None:
    """The prompt a column-0 ``❯ `` line ``lines[index]`` shows, or None: it is none.

    None also for the input box and a menu's cursor (see the module docstring).
    """  # noqa: RUF002
    line = lines[index]
    text = line.removeprefix(POINTER_PROMPT)
    if text == line or not text.strip():
        return None
    if index > 0 and _RULE.match(lines[index - 1]):
        return None
    return None if _menu_cursor(lines, index) else text


def _menu_cursor(lines: list[str], index: int) -> bool:
    """True when ``lines[index]`` (``❯ N. label``) is the cursor of a numbered menu."""  # noqa: RUF002
    if not _MENU_CURSOR.match(lines[index]):
        return False
    above = index - 1
    while above >= 0 and _MENU_PART.match(lines[above]):
        if _OPTION.match(lines[above]):
            return True
        above -= 1
    below, options = index + 1, 0
    while below < len(lines) and _MENU_PART.match(lines[below]):
        options += bool(_OPTION.match(lines[below]))
        below += 1
    if not options:
        return False
    after = next((line for line in lines[below:] if line.strip()), None)
    return after is None or bool(_FOOTER.search(after))


_TYPED_BREAK = re.compile(r"(?<!\\)\\[ \t]*$")
r"""A backslash ending a line (not an escaped one, ``\\``), spaces after it allowed."""
_FENCE = re.compile(r"^\s*(?:```|~~~)")


def typed_breaks(text: str) -> str:
    r"""``text`` of a prompt without the backslashes its person typed to break lines.

    In Claude Code a backslash then Enter starts a new line of the prompt, and the copy
    shows the backslash at the end of each such line, on a line of its own where the person
    left one empty ("next tasks will be:\" then "\"). A prompt with such a lone backslash
    was typed that way: every line ending in a backslash outside a fenced code block loses
    it. A prompt without one keeps its backslashes (a shell command's continuation lines).
    """
    lines = text.split("\n")
    if not any(line.strip() == "\\" for line in lines):
        return text
    fenced = False
    for at, line in enumerate(lines):
        if _FENCE.match(line):
            fenced = not fenced
        elif not fenced:
            kept, dropped = _TYPED_BREAK.subn("", line)
            lines[at] = kept.rstrip() if dropped else line
    return "\n".join(lines)
