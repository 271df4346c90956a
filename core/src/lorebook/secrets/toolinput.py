"""Redact tool calls as text: every string of an input, before any encoding or cut.

A tool input is a mapping (a Bash ``command``, a Write's ``content``, an MCP tool's
``{"password": ...}``). Each string in it is redacted on its own, as the text it is, so a
quoted ``DB_PASSWORD="..."`` inside a command is seen with its quotes (JSON encoding would
have escaped them), and a string under a secret-named key is replaced whole. Only then are
strings cut to their logged length, so no token's prefix survives a cut.
"""

from __future__ import annotations

from lorebook.secrets.redact import REDACTED, lines_to_scan, redact_line, strip_blocks
from lorebook.secrets.values import name_strength, strong_value, weak_value

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Any

    ToolCallRecord = dict[str, Any]
    """A tool call as staged: ``name``, ``input``, ``result_excerpt``, ``is_error``."""

ERROR_EXCERPT = 300
ARG_CHARS = 500
LIST_ITEMS = 50
PRECUT_MARGIN = 4000
"""A string is redacted on its first ``ARG_CHARS + PRECUT_MARGIN`` characters (a secret that
straddles the final cut at ``ARG_CHARS`` is whole in them), so a 5 MB Write costs no more
than a short one."""


def _strings(value: object, key: str, out: list[tuple[str, str]]) -> None:
    """Collect every string of an input with the key it sits under, depth first."""
    if isinstance(value, str):
        out.append((key, value[: ARG_CHARS + PRECUT_MARGIN]))
    elif isinstance(value, dict):
        for k, v in value.items():
            _strings(v, str(k), out)
    elif isinstance(value, list):
        for v in value[:LIST_ITEMS]:
            _strings(v, key, out)


def _rebuilt(value: object, clean: Iterator[str]) -> object:
    """``value`` with its strings replaced (in :func:`_strings` order) and cut."""
    if isinstance(value, str):
        text = next(clean)
        return text if len(text) <= ARG_CHARS else text[:ARG_CHARS] + "…"
    if isinstance(value, dict):
        return {str(k): _rebuilt(v, clean) for k, v in value.items()}
    if isinstance(value, list):
        return [_rebuilt(v, clean) for v in value[:LIST_ITEMS]]
    return value


def _under_secret_key(key: str, value: str) -> bool:
    """A whole value under a secret-named key (``{"password": "x"}``) is the secret."""
    strength = name_strength(key)
    if strength == "strong":
        return strong_value(value)
    return strength == "weak" and weak_value(value)


def redact_strings(strings: list[str]) -> list[str]:
    """:func:`call_strings` redacted, each only as far as what is logged of it needs.

    The same result as :func:`lorebook.secrets.redact.redact_many` once cut to
    ``ARG_CHARS`` (private spans and key blocks first, over the whole string, then line by
    line): lines are redacted until the text is longer than ``ARG_CHARS``, and the lines
    after that, which the cut drops, are not redacted at all. A 4,500-character Write
    costs its first lines. A string the scan block redacted before is answered from its
    memory (:class:`lorebook.secrets.redact.Memo`).
    """
    from lorebook.secrets.redact import memo, scan_settings

    with scan_settings():
        seen = memo()
        if seen is None:  # not reached: the block above is open
            return [_redacted_prefix(text) for text in strings]
        out = []
        for text in strings:  # a session repeats many (paths, commands, files written)
            clean = seen.strings.get(text)
            if clean is None:
                clean = _redacted_prefix(text)
                seen.remember(seen.strings, text, clean)
            out.append(clean)
        return out


def _redacted_prefix(text: str) -> str:
    text = strip_blocks(text)
    if "\n" not in text:
        return redact_line(text)  # one line: kept whole, its own test decides
    cut = text.find("\n", ARG_CHARS + 1)
    head = text if cut < 0 else text[:cut]  # the lines the cut keeps, when none changes
    if not lines_to_scan(head, head.split("\n")):
        return head
    out: list[str] = []
    size = -1  # the joined length: each line adds itself and a newline, the first none
    for group in _groups(text.split("\n")):
        scan = set(lines_to_scan("\n".join(group), group))
        for at, line in enumerate(group):
            clean = redact_line(line) if at in scan else line
            out.append(clean)
            size += len(clean) + 1
            if size > ARG_CHARS:
                return "\n".join(out)  # the cut keeps the first ARG_CHARS characters
    return "\n".join(out)


def _groups(lines: list[str]) -> Iterator[list[str]]:
    """``lines`` in runs of just over ``ARG_CHARS`` characters (most strings need one)."""
    start = 0
    while start < len(lines):
        stop, size = start, 0
        while stop < len(lines) and size <= ARG_CHARS:
            size += len(lines[stop]) + 1
            stop += 1
        yield lines[start:stop]
        start = stop


def call_strings(calls: list[ToolCallRecord]) -> list[str]:
    """The texts to redact for ``calls``: each input string, then the error excerpt."""
    out: list[str] = []
    for call in calls:
        found: list[tuple[str, str]] = []
        _strings(dict(call["input"]), "", found)
        out += [text for _, text in found]
        out.append(call["result_excerpt"] or "")
    return out


def redacted_calls(calls: list[ToolCallRecord], clean: Iterator[str]) -> list[ToolCallRecord]:
    """``calls`` with the redacted texts of :func:`call_strings` put back, then cut."""
    kept = []
    for call in calls:
        found: list[tuple[str, str]] = []
        _strings(dict(call["input"]), "", found)
        texts = [next(clean) for _ in found]
        values = [
            REDACTED if _under_secret_key(key, raw) else text
            for (key, raw), text in zip(found, texts, strict=True)
        ]
        excerpt = next(clean)
        args = _rebuilt(dict(call["input"]), iter(values))
        cut = excerpt[:ERROR_EXCERPT] or None
        kept.append({**call, "input": args, "result_excerpt": cut})
    return kept
