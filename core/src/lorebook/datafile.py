"""The one reader for YAML and JSON that a repository, a pack or a host's files hand us.

Such a file is refused, in one line naming it, before it can cost more than its size: a
file over its byte limit before a byte more is read, YAML with an alias (``*name``: a few
hundred bytes of nested aliases expand to billions of nodes in whatever walks the result)
before anything is built from it, and YAML or JSON nesting deeper than
:data:`lorebook.kb.safeyaml.MAX_DEPTH` levels (which would otherwise end in a
``RecursionError`` wherever the value is walked). The YAML rules are
:mod:`lorebook.kb.safeyaml`'s, which notes and ``config.yaml`` use too.

Internal state lorebook writes itself (``.cache/``, ``.state/``, staged logs) is read by
its own code, not here. Standard library only until a YAML function is called, so hooks
may read JSON with it.
"""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING, Any

from lorebook.bounds import TooLargeError, clip, read_bounded
from lorebook.errors import LorebookError

if TYPE_CHECKING:
    import yaml

MAX_DEPTH = 64
"""Deepest nesting of objects and lists accepted (the same as safeyaml's for YAML)."""


class DataFileError(LorebookError):
    """A YAML or JSON file is too large, holds an alias, nests too deep or does not parse.

    The message is one line: the file, then what is wrong with it.
    """


def _one_line(text: str) -> str:
    return clip(" ".join(text.split()), 200, quote=False)


def parse_yaml(
    text: str, *, source: str, max_bytes: int, loader: type[yaml.SafeLoader] | None = None
) -> Any:
    """Parse YAML text from ``source`` (a file name for messages), bounded.

    ``loader`` is a :class:`lorebook.kb.safeyaml.SafeLoader` subclass (its resolvers are
    used); the default reads as PyYAML's ``safe_load`` does.

    Raises:
        DataFileError: larger than ``max_bytes`` UTF-8 bytes, an alias, too deep, or not YAML.
    """
    import yaml

    from lorebook.kb import safeyaml

    try:
        return safeyaml.load(text, max_bytes=max_bytes, loader=loader or safeyaml.SafeLoader)
    except safeyaml.UnsafeYAMLError as exc:
        raise DataFileError(f"{source}: {_one_line(str(exc))}") from None
    except yaml.YAMLError as exc:
        raise DataFileError(f"{source}: {_yaml_problem(exc)}") from None


def _yaml_problem(exc: yaml.YAMLError) -> str:
    """PyYAML's four-line error as one: where it gave up, what it missed, what it read."""
    problem = getattr(exc, "problem", None)
    mark = getattr(exc, "problem_mark", None)
    if not problem or mark is None:
        return f"invalid YAML: {_one_line(str(exc))}"
    text = f"invalid YAML at line {mark.line + 1}, column {mark.column + 1}: {_one_line(problem)}"
    context, start = getattr(exc, "context", None), getattr(exc, "context_mark", None)
    if context and start is not None:
        text += f" ({context} from line {start.line + 1}, column {start.column + 1})"
    elif context:
        text += f" ({context})"
    return text


def parse_json(text: str | bytes, *, source: str, max_bytes: int) -> Any:
    """Parse JSON text (or UTF-8 bytes) from ``source``, bounded.

    Raises:
        DataFileError: larger than ``max_bytes`` bytes, nesting deeper than
            :data:`MAX_DEPTH`, or not JSON.
    """
    size = len(text) if isinstance(text, bytes) else len(text.encode("utf-8", "surrogatepass"))
    if size > max_bytes:
        more = f"more than the {max_bytes:,} accepted"
        raise DataFileError(f"{source}: {size:,} bytes of JSON, {more}")
    try:
        value = json.loads(text)
    except RecursionError:
        raise DataFileError(f"{source}: nested deeper than {MAX_DEPTH} levels") from None
    except json.JSONDecodeError as exc:
        one_line = "\n" not in exc.doc.rstrip("\n")  # a JSON Lines line: its column says it
        where = f"column {exc.colno}" if one_line else f"line {exc.lineno}, column {exc.colno}"
        raise DataFileError(f"{source}: not valid JSON at {where}: {exc.msg}") from None
    except ValueError as exc:  # not UTF-8, or an integer too long to convert
        raise DataFileError(f"{source}: not valid JSON: {_one_line(str(exc))}") from None
    _check_depth(value, source)
    return value


def _check_depth(value: Any, source: str) -> None:
    """Refuse a parsed JSON value nesting deeper than :data:`MAX_DEPTH` (walked, no recursion)."""
    if not isinstance(value, dict | list):
        return
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise DataFileError(f"{source}: nested deeper than {MAX_DEPTH} levels")
        children = item.values() if isinstance(item, dict) else item
        stack.extend((child, depth + 1) for child in children if isinstance(child, dict | list))


def read_data_bytes(
    path: str | os.PathLike[str], *, max_bytes: int, source: str | None = None
) -> bytes:
    """A regular file's bytes, at most ``max_bytes`` of them.

    Raises:
        FileNotFoundError: there is no such file (callers often read that as "empty").
        DataFileError: too large, not a regular file, or unreadable.
    """
    label = source or os.fspath(path)
    try:
        return read_bounded(path, max_bytes)
    except FileNotFoundError:
        raise
    except TooLargeError:
        raise DataFileError(f"{label}: the file is larger than {max_bytes:,} bytes") from None
    except OSError as exc:
        raise DataFileError(f"{label}: cannot be read: {exc.strerror or exc}") from None


def read_data_text(
    path: str | os.PathLike[str], *, max_bytes: int, source: str | None = None
) -> str:
    """:func:`read_data_bytes` decoded as UTF-8 (not UTF-8 is a :class:`DataFileError`)."""
    data = read_data_bytes(path, max_bytes=max_bytes, source=source)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        label = source or os.fspath(path)
        raise DataFileError(f"{label}: the file is not valid UTF-8 (byte {exc.start})") from None


def read_yaml(
    path: str | os.PathLike[str],
    *,
    max_bytes: int,
    source: str | None = None,
    loader: type[yaml.SafeLoader] | None = None,
) -> Any:
    """:func:`read_data_text` then :func:`parse_yaml` (``source`` defaults to the path)."""
    label = source or os.fspath(path)
    text = read_data_text(path, max_bytes=max_bytes, source=label)
    return parse_yaml(text, source=label, max_bytes=max_bytes, loader=loader)


def read_json(path: str | os.PathLike[str], *, max_bytes: int, source: str | None = None) -> Any:
    """:func:`read_data_bytes` then :func:`parse_json` (``source`` defaults to the path).

    The bytes go to the parser undecoded, so a UTF-8 byte-order mark (which some Windows
    editors write) or UTF-16 reads as the standard library reads it.
    """
    label = source or os.fspath(path)
    data = read_data_bytes(path, max_bytes=max_bytes, source=label)
    return parse_json(data, source=label, max_bytes=max_bytes)


__all__ = [
    "MAX_DEPTH",
    "DataFileError",
    "parse_json",
    "parse_yaml",
    "read_data_bytes",
    "read_data_text",
    "read_json",
    "read_yaml",
]
