r"""A line whose text is a JSON string's inside, read as the string it encodes.

A transcript line quoted whole, a JSON dump printed by a tool, a log line: its quotes are
``\"``, its newlines ``\n``, a word of another script ``\u5bc6\u7801``. The rules read
the text those escapes stand for (:func:`decoded`), and each span they find there is mapped
back to the characters of the line that spell it (:meth:`Decoded.original`), so the
redaction replaces the escaped form whole.
"""

from __future__ import annotations

import bisect
import re

Span = tuple[int, int]

_ESCAPE = re.compile(r"\\(?:u[0-9a-fA-F]{4}|[\"\\/bfnrt'])")
_UNICODE_ESCAPE = re.compile(r"\\u[0-9a-fA-F]{4}")
_SIMPLE = {"\"": "\"", "'": "'", "\\": "\\", "/": "/", "b": " ", "f": " ", "n": "\n",
           "r": "\n", "t": " "}  # fmt: skip
"""What each one-letter escape stands for (a line break splits the text into the lines it
encodes, each judged as a line)."""


def json_escaped(line: str) -> bool:
    """Does ``line`` hold a JSON string's escapes (a quoted transcript line, a JSON dump)?"""
    if "\\" not in line:
        return False
    if '\\"' in line or "\\/" in line or ("\\n" in line and line.lstrip()[:1] in '{["'):
        return True
    return "\\u" in line and _UNICODE_ESCAPE.search(line) is not None


class Decoded:
    """The text a line's escapes stand for, and where each of its characters came from.

    ``text`` is made of segments: a run of the line copied as it is, or the one character
    an escape stands for. ``starts`` holds where each segment begins in ``text``,
    ``origins`` where it begins in the line, ``escapes`` whether it is an escape (and so
    as long in the line as ``lengths`` says).
    """

    __slots__ = ("escapes", "lengths", "origins", "starts", "text")

    def __init__(self, line: str) -> None:
        parts: list[str] = []
        self.starts: list[int] = []
        self.origins: list[int] = []
        self.escapes: list[bool] = []
        self.lengths: list[int] = []
        at, size = 0, 0
        for match in _ESCAPE.finditer(line):
            if match.start() > at:
                size = self._add(parts, line[at : match.start()], size, at, escape=False)
            escape = match.group()
            if escape[1] == "u":
                char = chr(int(escape[2:], 16))
                char = char if char.isprintable() else " "
            else:
                char = _SIMPLE[escape[1]]
            size = self._add(parts, char, size, match.start(), escape=True)
            self.lengths[-1] = len(escape)
            at = match.end()
        if at < len(line):
            self._add(parts, line[at:], size, at, escape=False)
        self.text = "".join(parts)

    def _add(self, parts: list[str], text: str, size: int, origin: int, *, escape: bool) -> int:
        parts.append(text)
        self.starts.append(size)
        self.origins.append(origin)
        self.escapes.append(escape)
        self.lengths.append(len(text))
        return size + len(text)

    def _where(self, at: int) -> int:
        """The index of the segment holding character ``at`` of :attr:`text`."""
        return bisect.bisect_right(self.starts, at) - 1

    def lines(self) -> list[tuple[int, str]]:
        """The lines :attr:`text` holds, each with where it starts in :attr:`text`."""
        out, at = [], 0
        for part in self.text.split("\n"):
            out.append((at, part))
            at += len(part) + 1
        return out

    def original(self, span: Span) -> Span:
        """The span of the line that spells ``span`` of :attr:`text` (escapes whole)."""
        start, end = span
        first, last = self._where(start), self._where(end - 1)
        begin = self.origins[first] + (0 if self.escapes[first] else start - self.starts[first])
        if self.escapes[last]:
            return begin, self.origins[last] + self.lengths[last]
        return begin, self.origins[last] + (end - self.starts[last])


def decoded(line: str) -> Decoded:
    """``line`` read as the JSON string's inside it is (see :class:`Decoded`)."""
    return Decoded(line)
