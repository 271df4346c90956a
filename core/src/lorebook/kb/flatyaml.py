"""Frontmatter in the flat form lorebook writes, read without building a YAML node graph.

Nearly every note's frontmatter is one ``key: value`` line per key, each value a plain or
single-quoted string, a small integer or a flow list of those (``tags: [a, b]``), as
:func:`lorebook.kb.frontmatter.dump` writes it. Even with libyaml, PyYAML resolves each
node's tag in Python, which made YAML most of the time an index rebuild spends reading
10,000 notes; this reads that form directly. It accepts only what it can read exactly as
the YAML loader reads it (the loader's own implicit resolvers decide each plain scalar's
type) and answers None for anything else: a block, a double-quoted string, a nested
mapping, a comment, a number that is not a plain decimal, a repeated key. The caller then
parses the text with YAML, so errors and unusual documents are the loader's business.
"""

from __future__ import annotations

import re
from typing import Any

_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_DECIMAL = re.compile(r"0|[1-9][0-9]{0,17}")
_STR = "tag:yaml.org,2002:str"
_INT = "tag:yaml.org,2002:int"
_INDICATORS = frozenset("-?:,[]{}#&*!|>'\"%@` ")
"""Characters a plain scalar may not start with (YAML's indicators, and a space)."""
_FLOW_BREAKS = frozenset(",[]{}:#'\"")
"""Characters this reader does not accept inside a plain item of a flow list."""


class _Unread(Exception):
    """The text is not in the flat form: YAML reads it."""


Resolvers = dict[str | None, list[tuple[str, "re.Pattern[str]"]]]
"""First character of a plain scalar ("" for the empty one, None for any other) -> the
(tag, pattern) pairs tried, in order."""


def by_first_character(
    loader_resolvers: dict[Any, list[tuple[str, re.Pattern[str]]]],
) -> Resolvers:
    """A loader's ``yaml_implicit_resolvers`` with its wildcard ones added to every entry.

    ``BaseResolver.resolve`` tries the resolvers of a scalar's first character, then the
    wildcard ones (keyed None), which alone apply to a character without resolvers.
    """
    wildcard = list(loader_resolvers.get(None, []))
    found: Resolvers = {k: [*v, *wildcard] for k, v in loader_resolvers.items() if k is not None}
    found[None] = wildcard
    return found


_LINES: dict[str, tuple[str, Any]] = {}
"""Lines read before (key, value; a list as a tuple): most lines recur in every note."""
_LINES_LIMIT = 4096


def read_flat(raw: str, resolvers: Resolvers) -> Any:
    """The mapping ``raw`` holds, or None when it is not in the flat form.

    ``resolvers`` are the YAML loader's implicit resolvers (:func:`by_first_character`);
    the same ones must be passed every time (lines read are remembered).
    """
    if not raw.endswith("\n"):
        return None
    data: dict[str, Any] = {}
    seen = _LINES
    try:
        for line in raw[:-1].split("\n"):
            known = seen.get(line)
            if known is None:
                known = _line(line, resolvers)
                if len(seen) < _LINES_LIMIT:
                    seen[line] = known
            key, value = known
            if key in data:
                return None
            data[key] = list(value) if type(value) is tuple else value
    except _Unread:
        return None
    return data


def _line(line: str, resolvers: Resolvers) -> tuple[str, Any]:
    key, sep, value = line.partition(": ")
    if not sep or not value or not _KEY.fullmatch(key) or _tag(key, resolvers) != _STR:
        raise _Unread
    found = _value(value, resolvers)
    return key, tuple(found) if type(found) is list else found


def _value(value: str, resolvers: Resolvers) -> Any:
    if value[0] == "[" and value[-1] == "]":
        return _flow_list(value[1:-1], resolvers)
    if value[0] == "'":
        return _single_quoted(value)
    if (
        value[0] in _INDICATORS
        or value[-1] in " :"
        or ": " in value
        or " #" in value
        or not value.isprintable()
    ):
        raise _Unread
    return _plain(value, resolvers)


def _plain(value: str, resolvers: Resolvers) -> str | int:
    """A plain scalar's value, typed as the loader types it (strings and decimals only)."""
    tag = _tag(value, resolvers)
    if tag == _STR:
        return value
    if tag == _INT and _DECIMAL.fullmatch(value):
        return int(value)
    raise _Unread


def _single_quoted(value: str) -> str:
    inner = value[1:-1]
    if len(value) < 2 or value[-1] != "'" or "'" in inner.replace("''", ""):
        raise _Unread
    if not inner.isprintable():
        raise _Unread
    return inner.replace("''", "'")


def _flow_list(inner: str, resolvers: Resolvers) -> list[Any]:
    """The items of ``[a, 'b', c]`` (given without its brackets), each ``, ``-separated."""
    items: list[Any] = []
    at = 0
    while at < len(inner):
        if inner[at] == "'":
            end = at + 1
            while True:
                end = inner.find("'", end)
                if end == -1:
                    raise _Unread
                if inner.startswith("''", end):
                    end += 2
                    continue
                break
            items.append(_single_quoted(inner[at : end + 1]))
            end += 1
        else:
            end = inner.find(", ", at)
            end = len(inner) if end == -1 else end
            item = inner[at:end]
            if (
                not item
                or item[0] in _INDICATORS
                or item[-1] == " "
                or not _FLOW_BREAKS.isdisjoint(item)
                or not item.isprintable()
            ):
                raise _Unread
            items.append(_plain(item, resolvers))
        if end == len(inner):
            return items
        if not inner.startswith(", ", end) or end + 2 == len(inner):
            raise _Unread
        at = end + 2
    if inner:
        raise _Unread
    return items


def _tag(value: str, resolvers: Resolvers) -> str:
    """The tag YAML's implicit resolvers give a plain scalar (as ``BaseResolver.resolve``)."""
    candidates = resolvers.get(value[0] if value else "")
    for tag, pattern in resolvers[None] if candidates is None else candidates:
        if pattern.match(value):
            return tag
    return _STR
