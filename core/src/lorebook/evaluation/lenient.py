"""Front matter as other tools write it: strict YAML first, then line by line.

Cursor rule files carry "YAML-ish" front matter: unquoted globs (``globs: **/*.ts``) that
strict YAML reads as an alias and rejects, and sometimes two blocks one after the other.
:func:`split_lenient` reads every leading block, keeps what strict YAML accepts and reads a
rejected block as ``key: value`` lines, so no rule file fails to load over its globs.
"""

from __future__ import annotations

import re
from typing import Any

from lorebook.datafile import DataFileError, parse_yaml

FENCE = "---"
MAX_BLOCK_BYTES = 64 * 1024
"""A front-matter block larger than this is not parsed as YAML (it is read line by line)."""
_KEY_LINE = re.compile(r"^([A-Za-z_][\w.-]*)[ \t]*:(?:[ \t]+(.*))?$")


def _unquote(value: str) -> str:
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return value[1:-1]
    return value


def parse_lines(lines: list[str]) -> dict[str, Any]:
    """Read ``key: value`` lines; an indented or ``-`` line continues the previous key."""
    meta: dict[str, Any] = {}
    key: str | None = None
    for line in lines:
        match = _KEY_LINE.match(line)
        if match:
            key = match.group(1)
            meta[key] = _unquote(match.group(2) or "")
        elif key is not None and line.strip():
            item = line.strip()
            item = _unquote(item[1:]) if item.startswith("- ") else item
            meta[key] = f"{meta[key]} {item}".strip()
    return meta


def parse_block(lines: list[str]) -> dict[str, Any]:
    """One front-matter block: strict YAML when it is a valid mapping, else line by line.

    The strict read is :func:`lorebook.datafile.parse_yaml`'s: a block holding an alias,
    nesting too deep or over :data:`MAX_BLOCK_BYTES` is read line by line instead, so a
    hostile rule file costs no more than its size.
    """
    try:
        data = parse_yaml("\n".join(lines), source="front matter", max_bytes=MAX_BLOCK_BYTES)
    except DataFileError:
        data = None
    if isinstance(data, dict) and all(isinstance(k, str) for k in data):
        return data
    return parse_lines(lines)


def _closing(lines: list[str], start: int) -> int | None:
    for at in range(start + 1, len(lines)):
        if lines[at].strip() == FENCE:
            return at
    return None


def _looks_like_block(lines: list[str]) -> bool:
    """A second block must hold key lines only, so a ``---`` rule in a body is not eaten."""
    filled = [line for line in lines if line.strip()]
    return bool(filled) and _KEY_LINE.match(filled[0]) is not None


def split_lenient(text: str) -> tuple[dict[str, Any], str]:
    """Split ``text`` into its merged front matter (later blocks win) and its body."""
    lines = text.replace("\r\n", "\n").lstrip("\ufeff").split("\n")
    meta: dict[str, Any] = {}
    at = 0
    first = True
    while at < len(lines):
        start = at
        if not first:
            while start < len(lines) and not lines[start].strip():
                start += 1
        if start >= len(lines) or lines[start].strip() != FENCE:
            break
        end = _closing(lines, start)
        if end is None or (not first and not _looks_like_block(lines[start + 1 : end])):
            break
        meta.update(parse_block(lines[start + 1 : end]))
        at, first = end + 1, False
    return meta, "\n".join(lines[at:])
