"""Make note text safe to put in a model's context.

A note is text anyone with a pull request can write. Before it is injected, characters a
reader cannot see are removed (zero-width characters, bidirectional overrides and
isolates, Unicode tag characters, soft hyphens: they hide or reorder instructions), and
text that imitates a host's own markup (``<system-reminder>``, ``<user-prompt-submit-hook>``,
``<command-name>``, a role or tool-call tag) is neutralised: its angle brackets become
single guillemets (U+2039, U+203A), so the model reads it as quoted text, not as a
message from the host. Standard library only (the hook path).

Runs on every injection, so it costs nothing for the common case: ASCII text without a
``<`` is returned as it is. The tag pattern is matched with ASCII semantics (compiling it
with Unicode case folding costs ~10 ms, a third of a hook's budget over the interpreter's);
the text is first folded, one character for one, so that a letter Unicode matching would
read as ``s``, ``k`` or ``i`` (long s, the Kelvin sign, dotless i, dotted capital I) and
every space it would read as a space match as they would, and the matches are applied to
the original text. (One difference, on the safe side: a tag name followed by a non-ASCII
letter, as in ``<systemé>``, is neutralised too.)
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re

INVISIBLE_RANGES = (
    (0x00AD, 0x00AD), (0x034F, 0x034F), (0x061C, 0x061C), (0x115F, 0x1160),
    (0x17B4, 0x17B5), (0x180B, 0x180F), (0x200B, 0x200F), (0x202A, 0x202E),
    (0x2060, 0x206F), (0x3164, 0x3164), (0xFE00, 0xFE0F), (0xFEFF, 0xFEFF),
    (0xFFA0, 0xFFA0), (0xFFF9, 0xFFFB), (0xE0000, 0xE007F),
)  # fmt: skip
"""Zero-width, joiner, direction marks, embeddings, overrides, isolates, invisible
operators, variation selectors, BOM, interlinear annotation and tag characters."""

LETTER_FOLDS = {0x017F: "s", 0x212A: "k", 0x0131: "i", 0x0130: "i"}
"""The non-ASCII characters Unicode case-insensitive matching takes for an ASCII letter."""

SPACES = "\x1c\x1d\x1e\x1f\x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007"
SPACES += "\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
"""The characters Unicode ``\\s`` matches and ASCII ``\\s`` does not."""

OPEN, CLOSE = "\u2039", "\u203a"
HOST_TAG = (
    r"<\s*/?\s*(?P<name>system[-_ ]?reminder|system|developer|user|assistant|human|"
    r"user[-_]prompt[-_]submit[-_]hook|[a-z]+[-_]hook|hook[-_][a-z_-]+|command[-_][a-z-]+|"
    r"local[-_]command[-_][a-z-]+|tool[-_](?:use|result|call)s?|function[-_]?(?:calls|results)|"
    r"invoke|parameter|environment[-_]context|user[-_]instructions|instructions|"
    r"important|antml:[a-z_-]+|thinking|context|lorebook[-_a-z]*)\b[^<>]{0,200}>"
)
"""A tag that imitates a host's markup (matched case-insensitively)."""

_tables: dict[str, dict[int, str | None]] = {}
_pattern: list[re.Pattern[str]] = []


def _table(name: str) -> dict[int, str | None]:
    if not _tables:
        _tables["invisible"] = {c: None for lo, hi in INVISIBLE_RANGES for c in range(lo, hi + 1)}
        _tables["fold"] = {**{ord(c): " " for c in SPACES}, **LETTER_FOLDS}
    return _tables[name]


def _host_tag() -> re.Pattern[str]:
    if not _pattern:
        import re

        _pattern.append(re.compile(HOST_TAG, re.IGNORECASE | re.ASCII))
    return _pattern[0]


def prepare() -> None:
    """Build the translation tables and compile the pattern now, not at first use.

    The warm hook process (:mod:`lorebook.hookserver`) calls it once, so that no event's
    child builds them again.
    """
    _table("fold")
    _host_tag()


def sanitize(text: str) -> str:
    """Remove invisible and bidirectional controls; neutralise host-markup imitations."""
    if not text.isascii():
        text = text.translate(_table("invisible"))
    if "<" not in text:
        return text
    folded = text.translate(_table("fold"))
    parts: list[str] = []
    last = 0
    for match in _host_tag().finditer(folded):
        start, end = match.span()
        parts += [text[last:start], OPEN, text[start + 1 : end - 1], CLOSE]
        last = end
    return "".join([*parts, text[last:]]) if parts else text
