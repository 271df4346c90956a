"""detect-secrets' line scan, run only for the detectors a line can match at all.

The library's ``scan_line`` runs every detector's regular expressions over every line, and
most of them (case-insensitive, with optional prefixes) try a match at every position: on
long prose and code lines that is most of capture's time. Each detector's patterns,
though, cannot match unless the line holds some literal text: a provider's prefix
(``ghp_``, ``AKIA``), a keyword (``key``, ``pass``, ``secret``), a quote, or a long run
of word characters (the 24- to 64-character values the IBM, Cloudant, Softlayer, ...
patterns end in). :data:`LITERALS`, :data:`LONG_VALUES` and the keyword gate state that
condition per detector, read off the library's patterns; a detector whose condition
fails is skipped, one that passes runs exactly as ``scan_line`` runs it (same call, same
filters, same order), so the result is the library's own. Case-insensitive patterns are
tested against :func:`folded`, the line as case-insensitive matching sees it. The library
itself (about 0.15 s to import and set up) is loaded only when a line needs a detector.

The conditions hold for the patterns of detect-secrets 1.5; tests pin those patterns and
check this scan against ``scan_line`` on every corpus line, so a library release that
changes them fails the tests instead of weakening redaction.
"""

from __future__ import annotations

import contextlib
import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from typing import Any

    from detect_secrets.plugins.base import BasePlugin


FILENAME = "adhoc-string-scan"
"""The file name ``scan_line`` scans under (no extension: the quotes-required keyword rules)."""
_LONG_RUNS = re.compile(r"[\w-]{24,}")
"""Runs of 24 or more of the characters the long-value patterns use (``\\d`` too)."""
_RUN_MARKS = bytes(
    ord("t") if re.fullmatch(r"[\w-]", chr(byte)) else ord(" ") for byte in range(256)
)
"""Each ASCII byte a :data:`_LONG_RUNS` character (``t``) or not (a space)."""
FOLDS = {0x130: "i", 0x131: "i", 0x17F: "s", 0x212A: "k"}
"""The characters beyond ASCII that Python's case-insensitive matching takes for an ASCII
letter (a test recomputes this over every code point)."""
_FOLD_TABLE: dict[int, int | str] = {
    **{c: c + 32 for c in range(ord("A"), ord("Z") + 1)},
    **FOLDS,
}
_KEYWORDS = ("key", "pass", "pwd", "secret", "contrase")
"""Every word of the KeywordDetector's deny list holds one of these."""
_QUOTES = ("'", '"', "`")
_QUOTE_SEMICOLON = ("';", '";', "`;")
_SIGNS = ("==", "!=", "=!", "!!")
_QUOTE_SIGNS = re.compile(r"['\"`]\s*[!=]{2}")
_KEYWORD_SIGN = re.compile(
    r"(?:key|pass|pwd|secret|contrase)\w*[\]'\"]{0,2}\s*(?::|={1,3}|!==?|=>)\s*['\"`]"
)


def folded(line: str) -> str:
    """``line`` lower-cased, with each letter case-insensitive matching takes for an ASCII one.

    Every character keeps its place, and a case-insensitive pattern of a lower-case ASCII
    word matches ``line`` only where the word occurs in ``folded(line)``, so a word missing
    from it rules the pattern out. (Lower-casing keeps word characters word characters and
    spaces spaces; a test checks both, and :data:`FOLDS`, over every code point.)
    """
    low = line.lower()
    if line.isascii():
        return low
    if len(low) != len(line):  # "İ" lower-cases to two characters
        return line.translate(_FOLD_TABLE)
    return low.replace("\u0131", "i").replace("\u017f", "s")


def has_any(text: str, words: tuple[str, ...]) -> bool:
    """Does ``text`` hold one of ``words``? The gates' test, run on every candidate line."""
    for word in words:  # noqa: SIM110 (a loop: no generator per call, on every line)
        if word in text:
            return True
    return False


def _keyword(line: str, low: str) -> bool:
    # Each quotes-required pattern names a deny-list word and holds a quote. One ends in a
    # closing quote and a semicolon; one has a closing quote, spaces and two of ! and =
    # before the word; the others have the word, word characters, up to two closing
    # marks, spaces, one of : = == === != !== =>, spaces, and an opening quote.
    if not (has_any(low, _KEYWORDS) and has_any(line, _QUOTES)):
        return False
    return (
        has_any(line, _QUOTE_SEMICOLON)
        or (has_any(line, _SIGNS) and _QUOTE_SIGNS.search(line) is not None)
        or _KEYWORD_SIGN.search(low) is not None
    )


LITERALS: tuple[tuple[str, bool, str, tuple[str, ...]], ...] = (
    # (detector, in the folded line?, a part every word has, one of these words):
    # case-sensitive patterns are looked for in the line as it is, case-insensitive ones
    # in the folded line; the shared part rules out all the words with one look.
    ("AWSKeyDetector", False, "A", ("A3T", "ABIA", "ACCA", "AKIA", "ASIA")),
    ("AWSKeyDetector", True, "aws", ("aws",)),
    ("AzureStorageKeyDetector", False, "AccountKey=", ("AccountKey=",)),
    ("GitHubTokenDetector", False, "gh", ("ghp_", "gho_", "ghu_", "ghs_", "ghr_")),
    ("GitLabTokenDetector", False, "gl", (
        "glpat-", "gldt-", "glft-", "glsoat-", "glrt-", "glcbt-", "glimt-", "glptt-",
        "glagent-", "gloas-",
    )),
    ("GitLabTokenDetector", False, "GR1348941", ("GR1348941",)),
    ("JwtTokenDetector", False, "eyJ", ("eyJ",)),
    ("NpmDetector", False, ":_authToken=", (":_authToken=",)),
    ("OpenAIDetector", False, "T3BlbkFJ", ("T3BlbkFJ",)),
    ("PrivateKeyDetector", False, "P", ("PRIVATE KEY", "PuTTY-User-Key-File-2")),
    ("PypiTokenDetector", False, "pypi-AgE", ("pypi-AgE",)),
    ("SlackDetector", True, "", ("xox", "hooks.slack.com")),
    ("SquareOAuthDetector", False, "sq0csp-", ("sq0csp-",)),
    ("StripeDetector", False, "k_live_", ("k_live_",)),
)  # fmt: skip
"""Detectors whose every pattern holds one of a few words."""
LONG_VALUES: tuple[tuple[str, int, bool, tuple[str, ...]], ...] = (
    # (detector, its value's length, in the folded line?, one of these words)
    # [a-z]{24} or [0-9a-f]{64}, after cl... and a key word, or in a cloudant.com URL
    ("CloudantDetector", 24, True, ("key", "pw", "pass", "token", "cloudant")),
    # [MNO] and 23 more token characters, a dot, 6 characters, a dot, 27 characters
    ("DiscordBotTokenDetector", 27, False, (".",)),
    # a 44-character value after key, pwd, pass(word) or token
    ("IbmCloudIamDetector", 44, True, ("key", "pwd", "pass", "token")),
    # a 48-character hex value after secret...key
    ("IbmCosHmacDetector", 48, True, ("secret",)),
    # 32 characters, then -us and digits
    ("MailchimpDetector", 32, False, ("-us",)),
    # SG. 22 characters . 43 characters
    ("SendGridDetector", 43, False, ("SG.",)),
    # a 64-character value after (softlayer|sl) and a key word, or in an api.softlayer URL
    ("SoftlayerDetector", 64, True, ("key", "pwd", "pass", "token", "softlayer")),
    # 8-10 digits, a colon, 35 token characters
    ("TelegramBotTokenDetector", 35, False, (":",)),
    # AC or SK, then 32 letters and digits
    ("TwilioKeyDetector", 34, False, ("AC", "SK")),
)
"""Detectors whose patterns also need a run of that many word characters (the value)."""
VALUE_SHAPES: dict[str, tuple[bool, tuple[re.Pattern[str], ...]]] = {
    # (in the folded line?, what every pattern of the detector holds, each of these):
    # tested only once the long run and the words above are there
    "CloudantDetector": (True, (
        re.compile(r"[a-z]{24}|[0-9a-f]{64}"),
        re.compile(r"cl(?:oudant|ou)?[_-]?(?:api)?(?:key|pw|pass|token)|cloudant\.com"),
    )),
    "DiscordBotTokenDetector": (
        False, (re.compile(r"\.[a-zA-Z\d_-]{6}\.[a-zA-Z\d_-]{27}"),),
    ),
    "TelegramBotTokenDetector": (False, (re.compile(r"\d:[0-9A-Za-z_-]{35}"),)),
}  # fmt: skip
"""Detectors of :data:`LONG_VALUES` whose value is narrower than a run of word characters:
Cloudant's is 24 letters or 64 hex digits (case-insensitive, so looked for in the folded
line), Discord's ends in ``.`` six characters ``.`` and 27 more, Telegram's follows
digits and a colon. Most long identifiers in code and prose are none of these. Cloudant's
patterns also need its name: ``cl``, ``clou`` or ``cloudant`` and a key word, or a
``cloudant.com`` host."""
_BASIC_AUTH = re.compile(r"://[^\s:/?#\[\]@]+:[^\s:/?#\[\]@]+@")
"""What BasicAuthDetector's pattern holds (it excludes more characters than this)."""
KNOWN = frozenset(
    [entry[0] for entry in (*LITERALS, *LONG_VALUES)]
    + ["ArtifactoryDetector", "BasicAuthDetector", "KeywordDetector"]
)
_ARTIFACTORY = re.compile(r"AKC|AP[\dA-F]")


def detectors_for(line: str, low: str) -> set[str]:
    """The names of the detectors that can match ``line`` (``low``: :func:`folded`)."""
    names = {
        name
        for name, fold, part, words in LITERALS
        if part in (low if fold else line) and has_any(low if fold else line, words)
    }
    longest = _longest_run(line)
    if longest:
        names.update(
            name
            for name, length, fold, words in LONG_VALUES
            if longest >= length
            and has_any(low if fold else line, words)
            and _shaped(name, line, low)
        )
    if ("AKC" in line or "AP" in line) and _ARTIFACTORY.search(line) is not None:
        names.add("ArtifactoryDetector")  # AKC, or AP and a digit or A-F
    if "://" in line and "@" in line and _BASIC_AUTH.search(line) is not None:
        names.add("BasicAuthDetector")  # scheme://user:password@
    if _keyword(line, low):
        names.add("KeywordDetector")
    return names


def _longest_run(line: str) -> int:
    """The length of the longest :data:`_LONG_RUNS` match in ``line`` (0: none).

    An ASCII line is mapped to run / not-run marks and split, which finds the same runs
    several times faster than the pattern.
    """
    if not line.isascii():
        runs = _LONG_RUNS.findall(line)
        return max(map(len, runs)) if runs else 0
    marks = line.encode("ascii").translate(_RUN_MARKS)
    if b"t" * 24 not in marks:
        return 0
    return max(map(len, marks.split()))


def _shaped(name: str, line: str, low: str) -> bool:
    """Does ``line`` hold the value shape :data:`VALUE_SHAPES` gives detector ``name``?"""
    shape = VALUE_SHAPES.get(name)
    if shape is None:
        return True
    fold, patterns = shape
    text = low if fold else line
    return all(pattern.search(text) is not None for pattern in patterns)


class _Scope:
    """An open :func:`scope`: the settings to use, and the block that will restore them."""

    def __init__(
        self, stack: contextlib.ExitStack[bool | None], config: Callable[[], dict[str, Any]]
    ) -> None:
        self.stack = stack
        self.config = config
        self.ready = False
        used = config().get("plugins_used", [])
        self.all_known = all(plugin.get("name") in KNOWN for plugin in used)


_OPEN: list[_Scope] = []


@contextlib.contextmanager
def scope(config: Callable[[], dict[str, Any]]) -> Iterator[None]:
    """A block in which detectors run under ``config()``'s library settings.

    The library is imported and set up the first time a line needs a detector (most texts
    never do), once for the whole block; a nested block shares the outer one's.
    """
    if _OPEN:
        yield
        return
    with contextlib.ExitStack() as stack:
        _OPEN.append(_Scope(stack, config))
        try:
            yield
        finally:
            _OPEN.pop()


def set_up() -> None:
    """Enter the open scope's settings, as ``scan_line`` puts them, if not done yet.

    :func:`secret_values` calls this before its first detector; code that calls the
    library itself inside a scope calls it first.
    """
    if not _OPEN:
        raise RuntimeError("detectors run only inside redact.scan_settings()")
    current = _OPEN[0]
    if current.ready:
        return
    from detect_secrets.settings import get_filters, get_settings, transient_settings

    current.stack.enter_context(transient_settings(current.config()))
    get_settings().disable_filters("detect_secrets.filters.common.is_invalid_file")
    get_filters.cache_clear()
    current.ready = True


def secret_values(line: str, low: str) -> Iterator[str]:
    """The values ``scan_line(line)`` reports, from the detectors that can match it.

    ``low`` is ``folded(line)``. A detector this module has no gate for always runs. Call
    inside :func:`scope`.
    """
    names = detectors_for(line, low)
    if not names and _OPEN and _OPEN[0].all_known:
        return  # no detector can match, and the library need not even be imported
    set_up()
    from detect_secrets.settings import get_plugins

    plugins = [p for p in get_plugins() if _named(p) in names or _named(p) not in KNOWN]
    if plugins:
        yield from _scan(plugins, line)


def _named(plugin: object) -> str:
    return type(plugin).__name__


def _scan(plugins: list[BasePlugin], line: str) -> Iterator[str]:
    """``scan_line``'s loop over ``plugins`` (the library's own calls and filters)."""
    from detect_secrets.core.scan import _is_filtered_out, _scan_line
    from detect_secrets.util.code_snippet import get_code_snippet

    context = get_code_snippet(lines=[line], line_number=1)
    for plugin in plugins:
        for secret in _scan_line(plugin=plugin, filename=FILENAME, line=line, line_number=0,
                                 enable_eager_search=True, context=context):  # fmt: skip
            if not _is_filtered_out(required_filter_parameters=["context"],
                                    filename=secret.filename, secret=secret.secret_value,
                                    plugin=plugin, line=line, context=context):  # fmt: skip
                yield secret.secret_value or ""
