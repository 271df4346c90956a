"""Make note text safe to put in a model's context, and to print on a terminal.

A note is text anyone with a pull request can write. Before it is injected, characters a
reader cannot see are removed (zero-width characters, bidirectional overrides and
isolates, Unicode tag characters, soft hyphens: they hide or reorder instructions), and
text that imitates a host's own markup (``<system-reminder>``, ``<user-prompt-submit-hook>``,
``<command-name>``, a role or tool-call tag) is neutralised: its angle brackets become
single guillemets (U+2039, U+203A), so the model reads it as quoted text, not as a
message from the host. A control character (ESC, BEL, the other C0 controls except tab
and newline, DEL, the C1 controls) is shown as a visible picture: ESC as ``␛`` (U+241B),
BEL as ``␇``, a C1 control as its 7-bit form (CSI, U+009B, as ``␛[``), so an ANSI or OSC
escape sequence reads as text and does nothing. Standard library only (the hook path).

:func:`for_terminal` is what a command prints of such text: the same pictures, and the
bidirectional embeddings, overrides and isolates, which reorder what a person sees, shown
as ``[U+202E]``; markup is left as it is (a person reads it as text).
:func:`json_for_terminal` does the same for a JSON document, as JSON unicode escapes.

Runs on every injection, so it costs little for the common case: printable ASCII text
without a ``<`` is returned as it is. The tag pattern is matched with ASCII semantics
(compiling it with Unicode case folding costs ~10 ms, a third of a hook's budget over the
interpreter's); the text is first folded, one character for one, so that a letter Unicode
matching would read as ``s``, ``k`` or ``i`` (long s, the Kelvin sign, dotless i, dotted
capital I) and every space it would read as a space (and every control character) match
as they would, and the matches are applied to the original text. (One difference, on the
safe side: a tag name followed by a non-ASCII letter, as in ``<systemé>``, is neutralised
too.)
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

CONTROLS = (*range(0x00, 0x09), *range(0x0B, 0x20), *range(0x7F, 0xA0))
"""C0 controls except tab and newline, DEL, C1 controls: shown, never passed on."""
CONTROL_BYTES = bytes(c for c in CONTROLS if c < 0x80)
BIDI_CONTROLS = (*range(0x202A, 0x202F), *range(0x2066, 0x206A))
"""Bidirectional embeddings, overrides and isolates: shown on a terminal."""


def control_picture(code: int) -> str:
    """How a control character is shown, as text that does nothing.

    Its Unicode control picture (U+2400 to U+2421); a C1 control as the picture of ESC and
    the character it stands for (ECMA-48: U+009B is ``ESC [``).
    """
    if code == 0x7F:
        return "\u2421"
    if code >= 0x80:
        return "\u241b" + chr(code - 0x40)
    return chr(0x2400 + code)


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
        # A control inside a tag (``<\x1bsystem>``) hides it no better than a space.
        _tables["fold"] = {**{c: " " for c in CONTROLS}, **{ord(c): " " for c in SPACES}}
        _tables["fold"] |= LETTER_FOLDS
        _tables["controls"] = {c: control_picture(c) for c in CONTROLS}
        _tables["terminal"] = _tables["controls"] | {c: f"[U+{c:04X}]" for c in BIDI_CONTROLS}
        _tables["json"] = {c: f"\\u{c:04x}" for c in (*CONTROLS, *BIDI_CONTROLS)}
    return _tables[name]


def _host_tag() -> re.Pattern[str]:
    if not _pattern:
        import re

        _pattern.append(re.compile(HOST_TAG, re.IGNORECASE | re.ASCII))
    return _pattern[0]


def prepare() -> None:
    """Build the translation tables and compile the pattern now, not at first use.

    The warm hook process (:mod:`lorebook.fastpath.server`) calls it once, so that no event's
    child builds them again.
    """
    _table("fold")
    _host_tag()


def _has_controls(text: str) -> bool:
    if text.isascii():  # the common case: deleting the control bytes in C is ~6x faster
        raw = text.encode("ascii")
        return len(raw.translate(None, CONTROL_BYTES)) != len(raw)
    # Every control is unprintable, and so is every non-ASCII space or format character:
    # text that is printable but for its newlines and tabs needs no translation.
    return not text.replace("\n", "").replace("\t", "").isprintable()


def show_controls(text: str) -> str:
    """``text`` with each control character shown as a picture (CRLF read as a newline)."""
    if not _has_controls(text):
        return text
    return text.replace("\r\n", "\n").translate(_table("controls"))


def for_terminal(text: str) -> str:
    """``text`` as a command prints it: controls and bidirectional controls shown, not sent."""
    if not _has_controls(text):
        return text
    return text.replace("\r\n", "\n").translate(_table("terminal"))


def json_for_terminal(text: str) -> str:
    """JSON text with what :func:`for_terminal` shows written as JSON unicode escapes.

    The same JSON value, and nothing a terminal acts on: ``json.dumps`` escapes the C0
    controls itself but leaves DEL, the C1 controls and the bidirectional controls as they
    are when it writes non-ASCII text.
    """
    if not _has_controls(text):
        return text
    return text.translate(_table("json"))


def sanitize(text: str) -> str:
    """Remove invisible characters, neutralise host markup, show control characters.

    See the module docstring; :func:`show_controls` shows the controls.
    """
    if not text.isascii():
        text = text.translate(_table("invisible"))
    if "<" not in text:
        return show_controls(text)
    folded = text.translate(_table("fold"))
    parts: list[str] = []
    last = 0
    for match in _host_tag().finditer(folded):
        start, end = match.span()
        parts += [text[last:start], OPEN, text[start + 1 : end - 1], CLOSE]
        last = end
    return show_controls("".join([*parts, text[last:]]) if parts else text)
