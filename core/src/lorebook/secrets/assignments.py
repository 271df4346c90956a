"""Values given to a secret-named key, in whatever syntax names it.

``DB_PASSWORD=hunter2``, ``"apiKey": "..."``, ``password: x`` (env files, JSON, YAML, INI,
TOML, connection strings' ``Password=x;``), XML elements (Maven's
``<password>x</password>``), attribute pairs (NuGet's ``<add key="ClearTextPassword"
value="x"/>``), and a name followed by a quoted literal as Groovy, Kotlin and Ruby call
them (Gradle's ``storePassword 'x'``). The name is judged by
:func:`lorebook.secrets.values.name_strength` (``DB_PASSWORD`` holds a secret,
``max_tokens`` and ``TOKEN_FILE`` do not), the value by its strength.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from lorebook.secrets.values import (
    REFERENCE,
    Span,
    followed_by_code,
    matches_at,
    name_strength,
    password_last,
    strong_value,
    weak_value,
)

_SECRET_NAME = (
    r"[A-Za-z0-9_.-]*(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD|PASS|PWD|CREDENTIALS?|AUTH)"
    r"[A-Za-z0-9_]*"
)
ASSIGNMENT_RE = re.compile(
    rf"(?P<name>\b{_SECRET_NAME})(?P<sep>['\"]?\]?\s*(?::=|[:=])\s*)"
    r"(?:(?P<quote>['\"])(?P<quoted>[^'\"\n]{1,500}?)(?P=quote)|(?P<value>[^\s'\"`,;()]{3,}))",
    re.IGNORECASE,
)
"""``NAME=value``, ``name: "value"``, ``"apiKey": "value"`` for a secret-named key."""
NAME_THEN_SIGN = re.compile(
    r"(?:key|token|secret|pass|pwd|credential|auth)[a-z0-9_]*['\"]?\]?\s*[:=]"
)
"""What :data:`ASSIGNMENT_RE` cannot match without, in the folded line."""
ELEMENT_RE = re.compile(
    rf"<(?P<name>[\w:.-]*?{_SECRET_NAME})(?:\s[^<>]*)?>(?P<value>[^<>\n]{{1,500}})</(?P=name)>",
    re.IGNORECASE,
)
"""``<password>x</password>``, ``<apiKey>x</apiKey>``."""
ATTRIBUTE_RE = re.compile(
    r"\b(?:key|name)\s*=\s*(?P<nq>['\"])"
    r"(?P<name>[^'\"\n]{0,80}?(?:key|token|secret|pass|pwd|credential|auth)[^'\"\n]{0,80}?)(?P=nq)\s+"
    r"value\s*=\s*(?P<q>['\"])(?P<value>[^'\"\n]{1,500})(?P=q)",
    re.IGNORECASE,
)
"""``<add key="ClearTextPassword" value="x"/>``, ``<entry name="api.token" value="x"/>``."""
CALL_RE = re.compile(
    rf"(?P<name>\b{_SECRET_NAME})[ \t]+(?P<q>['\"])(?P<value>[^'\"\s]{{3,200}})(?P=q)",
    re.IGNORECASE,
)
"""``storePassword 'x'``, ``keyPassword "x"``: a name, a space, a quoted literal."""


SHELL_DEFAULT_RE = re.compile(
    rf"\$\{{(?P<name>{_SECRET_NAME}):?[-=](?P<q>['\"]?)(?P<value>[^'\"}}\s]{{3,500}})(?P=q)\}}",
    re.IGNORECASE,
)
"""``${JWT_SECRET:-"value"}``, ``${DB_PASSWORD-value}``: a shell's (and Compose's) default for
a secret-named variable."""


_WORD = r"(?:key|token|secret|pass|pwd|credential|auth)"
_ELEMENT_GATE = re.compile(_WORD + r"[a-z0-9_:.-]*(?:\s[^<>\n]*)?>[^<>\n]+</")
_ATTRIBUTE_GATE = re.compile(r"\b(?:key|name)\s*=\s*['\"][^'\"\n]*" + _WORD)
_CALL_GATE = re.compile(_WORD + r"[a-z0-9_]*[ \t]+['\"]")
"""What each pattern cannot match without, in the folded line (a secret word its name ends
in or holds, then what follows the name)."""


_NL = r"(?:\n|\\n)"
"""A line break, or its JSON escape (a YAML file quoted in a transcript line)."""
_IN_LINE = r"(?:(?!\\n)[^\n])"
_IN_VALUE = r"(?:(?!\\n)[^\n\"])"
YAML_BLOCK_RE = re.compile(
    r"(?P<indent>[ \t]*)(?:"
    + _IN_LINE
    + r"*?[ \t\"'`>(])?(?:-[ \t]+)?(?P<name>[\w.-]*"
    + _WORD
    + r"[\w.-]*)[ \t]*:[ \t]*(?P<block>[|>][-+0-9]*)?[ \t]*"
    + _NL
    + r"(?P<value>(?:(?P=indent)[ \t]+[^\s\"\\]"
    + _IN_VALUE
    + r"*(?:"
    + _NL
    + r"|(?=\")|\Z))+)",
    re.IGNORECASE,
)
"""A YAML key named for a secret whose value is on the lines below it (a block scalar,
``password: |``, or a plain scalar on the next line), the key after a label or not.
Matched from the start of its line (see :func:`block_spans`)."""
_KEY_AT_END = re.compile(_WORD + r"[\w.-]*[ \t]*:[ \t]*(?:[|>][-+0-9]*)?[ \t]*" + _NL)
"""What :data:`YAML_BLOCK_RE` cannot match without (in the folded text)."""
_MAPPING_LINE = re.compile(r"^[ \t]*(?:-|[\w.\"'-]+[ \t]*:(?:[ \t]|$))")
_LINES = re.compile(r"\n|\\n")


def block_spans(text: str) -> list[Span]:
    """The values of :data:`YAML_BLOCK_RE` in ``text`` (not nested mappings or lists).

    Tried only from the start of a line where a secret-named key ends the line.
    """
    if ":" not in text:
        return []
    starts = set()
    for found in _KEY_AT_END.finditer(text.lower()):
        real, escaped = text.rfind("\n", 0, found.start()), text.rfind("\\n", 0, found.start())
        starts.add(max(real + 1, escaped + 2 if escaped >= 0 else 0))
    found_spans = []
    for match in matches_at(YAML_BLOCK_RE, text, sorted(starts)):
        lines = [line for line in _LINES.split(match.group("value")) if line.strip()]
        if not lines or any(_MAPPING_LINE.match(line) for line in lines):
            continue  # a nested mapping or a list: its own lines are judged line by line
        value = " ".join(line.strip() for line in lines)
        if match.group("block") is None and (len(lines) > 1 or " " in value):
            continue  # a plain value below its key is one token; prose is not YAML
        if _judged(match.group("name"), value) or _judged(match.group("name"), lines[0].strip()):
            start, end = match.span("value")
            while end > start and (text[end - 1] == "\n" or text[end - 2 : end] == "\\n"):
                end -= 1 if text[end - 1] == "\n" else 2
            found_spans.append((start, end))
    return found_spans


def _judged(name: str, value: str) -> bool:
    strength = name_strength(name)
    if strength == "strong":
        return strong_value(value, numeric=password_last(name))
    return strength == "weak" and weak_value(value)


_NAME_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-")


def assignment_matches(line: str, low: str) -> Iterator[re.Match[str]]:
    r"""``ASSIGNMENT_RE.finditer(line)``, tried only where a name can begin.

    A match's name runs back from a secret word followed by a sign (:data:`NAME_THEN_SIGN`)
    to the start of the name characters before it, where ``\b`` lets it begin.
    """
    starts: set[int] = set()
    for found in NAME_THEN_SIGN.finditer(low):
        at = found.start()
        while at > 0 and low[at - 1] in _NAME_CHARS:  # folded: as IGNORECASE reads it
            at -= 1
        starts.update(range(at, found.start() + 1))
    return matches_at(ASSIGNMENT_RE, line, sorted(starts))


def _assignment_spans(line: str, low: str) -> Iterator[Span]:
    for match in assignment_matches(line, low):
        group = "quoted" if match.group("quoted") is not None else "value"
        if group == "value" and followed_by_code(line, match.end(group)):
            continue
        if REFERENCE.fullmatch(match.group(group)):
            continue  # a variable's reference; its default, if any, is SHELL_DEFAULT_RE's
        if _judged(match.group("name"), match.group(group)):
            yield match.span(group)


def _markup_spans(line: str, low: str) -> Iterator[Span]:
    for regex in (ELEMENT_RE, ATTRIBUTE_RE, CALL_RE, SHELL_DEFAULT_RE):
        if not GATES[regex](line, low):
            continue
        for match in regex.finditer(line):
            if _judged(match.group("name").rsplit(":", 1)[-1], match.group("value").strip()):
                yield match.span("value")


GATES: dict[re.Pattern[str], Callable[[str, str], bool]] = {
    ASSIGNMENT_RE: lambda line, low: NAME_THEN_SIGN.search(low) is not None,
    ELEMENT_RE: lambda line, low: "</" in line and _ELEMENT_GATE.search(low) is not None,
    ATTRIBUTE_RE: lambda line, low: "value" in low and _ATTRIBUTE_GATE.search(low) is not None,
    CALL_RE: lambda line, low: ("'" in line or '"' in line) and _CALL_GATE.search(low) is not None,
    SHELL_DEFAULT_RE: lambda line, low: "${" in line,
}
"""Each pattern's gate ``(line, folded line)``: False only where the pattern cannot match.

Every pattern also needs a secret word in the line (``key``, ``pass``, ...), which the
line's own selection has checked before any rule runs."""


def spans(line: str, low: str) -> Iterator[Span]:
    """The values of secret-named keys in ``line`` (``low``: the folded line)."""
    if GATES[ASSIGNMENT_RE](line, low):
        yield from _assignment_spans(line, low)
    yield from _markup_spans(line, low)
