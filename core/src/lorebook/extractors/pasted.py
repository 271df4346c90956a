"""What a program printed, not what a person typed: logs, terminal copies, console messages.

:mod:`lorebook.extractors.refusal` leaves such text out (a rule's words in a log line are not
a rule the person gives), and :mod:`lorebook.extractors.rules` reads a console's message as
teaching nothing. The signs are the text's shape, in any language: ``label: value`` lines,
``[TAG]`` prefixes, colour codes, box drawing, timestamps, a shell prompt, a source
location or a URL before the message.
"""

from __future__ import annotations

import re
from collections import Counter
from functools import lru_cache

LOG_LINE = re.compile(
    r"^\s*(?:[^\s:]{1,30}:\s+\S|\[[^\]\s]{1,20}\]|.*(?:\x1b)?\[\d+(?:;\d+)*m"
    r"|(?:[^`]|`[^`]*`|`(?=[^`]*$))*?[\u2500-\u257f]|\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2})"
)
"""A line a program printed: ``label: value``, a ``[TAG]`` prefix, a terminal colour code,
a table or a panel drawn with box-drawing characters (not one quoted in a code span), a
timestamp opening it (a CI runner's or a container's log:
``2025-10-02T19:23:50.0535462Z ##[endgroup]``)."""


SOURCE_LOCATION = re.compile(
    r"\b[\w-]+\.(?!(?:com|org|net|io|dev|app|co|ai|local|internal)\b)[A-Za-z]{1,5}:\d+\b"
)
"""A source location a program prints with its message: ``FrozenColumns.js:94`` (a host and
its port, ``staging.example.com:8443``, is no file)."""
URL = re.compile(r"\b[a-z][\w+.-]*://\S")
"""A URL: ``https://...``, ``chrome-extension://...``."""


SHELL_PROMPT = re.compile(
    r"^\s*(?:\([\w.-]+\)\s+)?[\w.-]+@[\w.-]+(?:[ :][^\s$%#>]+)?\s?[$%#>] \S|^\s*\$ \S"
)
"""A shell prompt opening a line: ``$ cmd``, ``user@host:~/dir$ cmd``,
``(venv) user@host dir % cmd``."""
_PROMPT_LINE = re.compile(SHELL_PROMPT.pattern.replace(r"^\s*", r"^[ \t]*"), re.MULTILINE)
"""A line below the first that opens with a shell prompt (``user@host dir % pnpm build``):
the person typed a few lines, then pasted the terminal."""
PROMPT_INSIDE = re.compile(r"(?<![\w.@-])[\w.-]+@[\w.-]+:[~/][^\s$#]*[$#] ")
"""A shell prompt with its host and folder anywhere in a line (``... is this right?
user@host:~/src$ python demo.py``): a terminal copy pasted after the words typed before it
(an address, ``ann@example.com``, has no ``:~/...$``)."""


STATUS_GLYPH = re.compile(r"^\s*[\u2800-\u28ff\u2713-\u2718\u274c\u2705\u26a0]")
"""A line a command-line program printed as a status: a spinner frame (``⠏ Connecting...``)
or a check mark or cross opening it (``✗ Failed to connect``)."""


LOG_LEVEL = re.compile(
    r"^\s*(?:\S+\s+-\s+)?(?:[\w.]+:)?\[?(?:TRACE|DEBUG|INFO|NOTICE|WARN|WARNING|ERROR|CRITICAL|FATAL)"
    r"\]?(?::|\s+-\s|\s*\||\]|:[\w.]+:)"
)
"""A logging level opening a line, as a logger prints it: ``INFO: ...``, ``INFO - ...``,
``WARNING:root:...``, ``[ERROR] ...``, ``22:14:45 - LiteLLM:INFO: ...`` (upper case only: a
person's "Warning: ..." is not a logger's)."""


LEVELLED = 2
"""A turn with at least this many :data:`LOG_LEVEL` lines holds a log: a logger prints its
level on every line, a person who types "ERROR: never ..." does so once."""


REPEATED = 3
"""A line of a turn that recurs this often, word for word, was printed: a polling loop's
messages ("OpenVPN process 85031 is running"), not sentences someone typed."""


LOG_LINES = 4
"""A turn of at least this many lines, half of them :data:`LOG_LINE`, is a pasted log."""


def typed_first(text: str, at: int) -> bool:
    """True when offset ``at`` is on the turn's first line, typed before what was pasted."""
    first = text.lstrip()
    head = first.split("\n", 1)[0]
    start = len(text) - len(first)
    return start <= at < start + len(head) and not LOG_LINE.match(head)


def terminal_copy(text: str, at: int = 0) -> bool:
    """True when offset ``at`` of the turn is inside a terminal copy.

    The turn opens with a shell prompt line (a terminal session pasted whole), a line before
    ``at`` does, or a prompt with its host and folder (:data:`PROMPT_INSIDE`) comes before
    ``at``, even in the middle of a line: the person typed a few words and pasted the
    terminal after them. A line typed
    below such a copy is read as part of it (a known loss: the LLM extractor's
    pre-selection still sends it).
    """
    head = text.lstrip().split("\n", 1)[0]
    return (
        bool(SHELL_PROMPT.match(head))
        or PROMPT_INSIDE.search(text, 0, at) is not None
        or _PROMPT_LINE.search(text, 0, at) is not None
    )


def log_like(text: str) -> bool:
    """True when the turn is a program's log: four lines or more, half of them log lines.

    Typed prose wraps into sentences; a log is lines of ``label: value``, ``[DEBUG]``
    prefixes and colour codes, in any language ("動画情報取得完了: Never Gonna Give You Up"
    is a download log, not a prohibition).
    """
    lines = [line for line in text.splitlines() if line.strip()]
    logged = sum(bool(LOG_LINE.match(line)) for line in lines)
    return len(lines) >= LOG_LINES and logged * 2 >= len(lines)


def printed(text: str, start: int, end: int | None = None) -> bool:
    """True when the sentence at offsets ``start`` to ``end`` of ``text`` is a console's message.

    Its line holds a source location ("Grid.js:94 Grid Error - Parent column group must be
    frozen"), or a URL comes before it on its line ("... Denying load of
    chrome-extension://.../content.js. Resources must be listed in ..."): a URL inside a
    typed rule stays the person's. So is a sentence one of whose lines opens with a
    program's status mark (:data:`STATUS_GLYPH`) or a logging level in a turn that holds a
    log (:data:`LOG_LEVEL`, :data:`LEVELLED`), or recurs word for word in the turn
    (:data:`REPEATED`): a sentence run together from a program's lines.
    """
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", start)
    before = text[line_start:start]
    line = text[line_start : len(text) if line_end < 0 else line_end]
    if SOURCE_LOCATION.search(line) or URL.search(before):
        return True
    stop = text.find("\n", end if end is not None else start)
    lines = text[line_start : len(text) if stop < 0 else stop].splitlines()
    levelled = any(LOG_LEVEL.match(one) for one in lines) and _levelled(text)
    return levelled or any(STATUS_GLYPH.match(one) or _recurs(text, one) for one in lines)


@lru_cache(maxsize=4)
def _levelled(text: str) -> bool:
    """``text`` has :data:`LEVELLED` lines or more that open with a logging level."""
    return sum(1 for line in text.splitlines() if LOG_LEVEL.match(line)) >= LEVELLED


def _recurs(text: str, line: str) -> bool:
    """The line, of three words or more, occurs :data:`REPEATED` times in ``text``."""
    stripped = line.strip()
    return len(stripped.split()) >= 3 and _line_counts(text)[stripped] >= REPEATED


@lru_cache(maxsize=4)
def _line_counts(text: str) -> Counter[str]:
    """How often each line of ``text`` occurs, stripped: counted once per turn, not per line."""
    return Counter(line.strip() for line in text.splitlines())


__all__ = [
    "LOG_LINE",
    "PROMPT_INSIDE",
    "SHELL_PROMPT",
    "log_like",
    "printed",
    "terminal_copy",
    "typed_first",
]
