"""Remove ``<private>`` spans and redact secrets before anything touches disk.

Secrets are found by three sets of rules, and every span any of them finds is replaced:

- detect-secrets (Yelp's detector library, a dependency already: AWS, GitHub, GitLab,
  Slack, Stripe, npm, PyPI, OpenAI, JWT, private keys, credentials in URLs, keyword
  assignments, ...), without its entropy detectors, which would flag every session id,
  git SHA and content hash. Its rules are well kept and cover the shapes of provider
  tokens better than we would; its Shannon entropy measure and its templated-value filter
  are used by our rules too.
- :mod:`lorebook.capture.rules`: how people write secrets that the library misses (prose,
  command flags, HTTP headers, short URL passwords, more provider prefixes, token prefixes
  left by a cut).
- Here: whole PEM blocks (the library reports only the header), and ``NAME=value``
  assignments judged by the variable's name (``DB_PASSWORD=hunter2`` is a secret,
  ``max_tokens: 8192`` and ``TOKEN_FILE=...`` are not).

Lines that cannot hold a secret (no secret-ish word, no long token) skip every rule; they
are picked out of a whole text at once (:func:`lines_to_scan`). On the other lines each
detector and rule runs only when the line holds what its pattern cannot match without
(:mod:`lorebook.capture.libscan`, ``rules.GATES``), so the spans are exactly those of
running everything, at a fraction of the cost; a test checks every gate against its
pattern. Redaction is idempotent: a redacted text redacts to itself.
"""

from __future__ import annotations

import bisect
import contextlib
import functools
import itertools
import re
from collections.abc import Iterator

from lorebook.capture import libscan
from lorebook.capture.rules import (
    Span,
    followed_by_code,
    is_placeholder,
    spans as rule_spans,
    strong_value,
    weak_value,
)

REDACTED = "[REDACTED]"
PRIVATE_RE = re.compile(r"(?<!`)<private>.*?(?:</private>|\Z)", re.IGNORECASE | re.DOTALL)
"""A private span; an unclosed one runs to the end of the text (a `quoted` tag is prose)."""

PLUGINS = (
    "ArtifactoryDetector", "AWSKeyDetector", "AzureStorageKeyDetector", "BasicAuthDetector",
    "CloudantDetector", "DiscordBotTokenDetector", "GitHubTokenDetector", "GitLabTokenDetector",
    "IbmCloudIamDetector", "IbmCosHmacDetector", "JwtTokenDetector", "KeywordDetector",
    "MailchimpDetector", "NpmDetector", "OpenAIDetector", "PrivateKeyDetector",
    "PypiTokenDetector", "SendGridDetector", "SlackDetector", "SoftlayerDetector",
    "SquareOAuthDetector", "StripeDetector", "TelegramBotTokenDetector", "TwilioKeyDetector",
)  # fmt: skip
"""detect-secrets plugins used: every one but the high-entropy string detectors."""

PEM_RE = re.compile(
    r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----.*?"
    r"(?:-----END [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----|\Z)",
    re.DOTALL,
)
_SECRET_NAME = (
    r"[A-Za-z0-9_.-]*(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD|PASS|PWD|CREDENTIALS?|AUTH)[A-Za-z0-9_]*"
)
ASSIGNMENT_RE = re.compile(
    rf"(?P<name>\b{_SECRET_NAME})(?P<sep>['\"]?\s*(?::=|[:=])\s*)"
    r"(?:(?P<quote>['\"])(?P<quoted>[^'\"\n]{1,500}?)(?P=quote)|(?P<value>[^\s'\"`,;()]{3,}))",
    re.IGNORECASE,
)
"""``NAME=value``, ``name: "value"``, ``"apiKey": "value"`` for a secret-named key."""
_NAME_PARTS = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")
_SECRET_LAST = frozenset({"credential", "credentials", "apikey", "pwd", "passphrase"})
_KEY_QUALIFIERS = frozenset(
    {"api", "access", "secret", "private", "auth", "client", "master", "signing", "encryption",
     "service", "account", "license", "app", "admin", "deploy", "webhook", "session"}
)  # fmt: skip
_WEAK_LAST = frozenset({"key", "auth", "pass", "pw"})
_NOT_SECRET_LAST = frozenset(
    {"id", "ids", "name", "names", "file", "path", "dir", "url", "uri", "length", "len", "type",
     "field", "env", "var", "count", "ttl", "expiry", "expires", "header", "prefix", "suffix",
     "hash", "sha", "digest", "fingerprint", "limit", "ms", "size", "policy", "basis", "mode",
     "format", "version", "label", "kind", "tokens", "keys", "help", "description"}
)  # fmt: skip
"""``TOKEN_FILE``, ``api_key_name``, ``max_tokens``: a secret's metadata, not a secret."""


@functools.lru_cache(maxsize=1024)
def name_strength(name: str) -> str | None:
    """``strong``, ``weak`` or None: how surely a variable of this name holds a secret."""
    parts = [p.lower() for p in _NAME_PARTS.findall(name)]
    if not parts or parts[-1] in _NOT_SECRET_LAST:
        return None
    last = parts[-1]
    qualified_key = last == "key" and len(parts) > 1 and parts[-2] in _KEY_QUALIFIERS
    glued = any(word in part for part in parts for word in ("password", "passwd", "secret"))
    if glued or last in _SECRET_LAST or last.endswith("token") or qualified_key:
        return "strong"
    return "weak" if last in _WEAK_LAST and len(parts) > 1 else None


_PLAIN_WORDS = (
    "pass", "pwd", "key", "token", "secret", "credential", "creds", "auth", "bearer",
    "contrase", "senha", "kennwort", "-----begin", "--user",
)  # fmt: skip
"""Secret-ish words: one in the folded line makes it a candidate."""
_PW = re.compile(r"\bpw\b")
_URL_PASSWORD = re.compile(r"://[^\s/]*:[^\s/]*@")
_SHORT_FLAG = re.compile(r"\s-[pu]")
_TRIGGERS = (*_PLAIN_WORDS, "pw", "://", "-p", "-u", "…")
"""What a line must hold to be a candidate by its words (in the folded line)."""
_NAME_THEN_SIGN = re.compile(
    r"(?:key|token|secret|pass|pwd|credential|auth)[a-z0-9_]*['\"]?\s*[:=]"
)
"""What :data:`ASSIGNMENT_RE` cannot match without, in the folded line."""
_LONG_TOKEN = re.compile(r"[A-Za-z0-9+/=_\-]{16,}")
_TOKEN_MARKS = bytes(
    ord("t") if re.fullmatch(r"[A-Za-z0-9+/=_\-]", chr(byte)) else ord(" ") for byte in range(256)
)
"""Each byte a :data:`_LONG_TOKEN` character (``t``) or not (a space)."""
_RUN_OF_16 = b"t" * 16
_HEX_OR_UUID = re.compile(
    r"^(?:[0-9a-f]{7,64}|[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})$"
)
_LETTER = re.compile(r"[A-Za-z]")
_DIGIT = re.compile(r"[0-9]")
_TOKEN_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-+/=.")


@functools.lru_cache(maxsize=1)
def _settings() -> dict[str, object]:
    return {"plugins_used": [{"name": name} for name in PLUGINS]}


def strip_private(text: str) -> str:
    """Remove every ``<private>…</private>`` span (an unclosed one runs to the end)."""
    if "<" not in text or "<private>" not in libscan.folded(text):
        return text  # the pattern cannot match
    return PRIVATE_RE.sub("", text)


def strip_blocks(text: str) -> str:
    """Remove private spans, then replace whole private-key blocks (before line redaction)."""
    text = strip_private(text)
    return PEM_RE.sub(REDACTED, text) if "-----BEGIN" in text else text


MEMO_CHARS = 8 << 20
"""Characters of lines a scan block remembers the redaction of (see :func:`redact_line`)."""
MEMO_LINE = 4096
"""Longer lines are not remembered."""


class Memo:
    """What the open scan block redacted, up to :data:`MEMO_CHARS` characters in all.

    ``lines``: lines (of at most :data:`MEMO_LINE`); ``strings``: tool-input strings as
    :func:`lorebook.capture.toolinput.redact_strings` redacts them (already cut short).
    """

    __slots__ = ("held", "lines", "strings")

    def __init__(self) -> None:
        self.lines: dict[str, str] = {}
        self.strings: dict[str, str] = {}
        self.held = 0

    def remember(self, table: dict[str, str], text: str, clean: str) -> None:
        """Keep ``clean`` as the redaction of ``text`` in ``table``, if there is room."""
        if self.held + len(text) <= MEMO_CHARS:
            table[text] = clean
            self.held += len(text)


def memo() -> Memo | None:
    """The open scan block's memory (None outside :func:`scan_settings`)."""
    return _MEMO[0] if _MEMO else None


_MEMO: list[Memo] = []
"""The open scan block's memory (one, shared by nested blocks)."""


@contextlib.contextmanager
def scan_settings() -> Iterator[None]:
    """The block :func:`redact_line` runs in: the detector library, set up once, if needed.

    The block also remembers the lines it redacted: a line's redaction depends on the line
    alone, and a session repeats many (the same file read, written and edited again).
    """
    with libscan.scope(_settings):
        if _MEMO:
            yield
            return
        _MEMO.append(Memo())
        try:
            yield
        finally:
            _MEMO.clear()


def _library_spans(line: str, low: str) -> Iterator[Span]:
    for value in libscan.secret_values(line, low):
        for hit in re.finditer(re.escape(value), line) if value else ():
            start, end = hit.span()
            # Some plugins report only a prefix ("ghp", a JWT without its signature): widen it.
            while end < len(line) and line[end] in _TOKEN_CHARS:
                end += 1
            token = line[start:end]
            if len(token) >= 8 and not _HEX_OR_UUID.match(token) and not is_placeholder(token):
                yield start, end


def _assignment_spans(line: str, low: str) -> Iterator[Span]:
    if _NAME_THEN_SIGN.search(low) is None:
        return  # no secret word in a name followed by : or = (the pattern needs one)
    for match in ASSIGNMENT_RE.finditer(line):
        strength = name_strength(match.group("name"))
        if strength is None:
            continue
        group = "quoted" if match.group("quoted") is not None else "value"
        value = match.group(group)
        if group == "value" and followed_by_code(line, match.end(group)):
            continue
        if strong_value(value) if strength == "strong" else weak_value(value):
            yield match.span(group)


def _may_hold_secret(line: str, low: str) -> bool:
    """Cheap test: could this line hold a secret at all?

    True for a secret-ish word (:data:`_PLAIN_WORDS`, in ``low``, the folded line), a
    standalone ``pw``, ``://user:pw@``, a ``-p``/``-u`` flag, a cut's ``…`` at the end, or a
    long token mixing letters and digits that is not a hex hash or a UUID (session ids, git
    SHAs and content hashes never reach the library).
    """
    if libscan.has_any(low, _PLAIN_WORDS) or line.endswith(("…", "…\n")):
        return True
    if ("pw" in low and _PW.search(low)) or ("://" in line and _URL_PASSWORD.search(line)):
        return True
    if ("-p" in low or "-u" in low) and _SHORT_FLAG.search(low):
        return True
    return bool(_token_starts(line))  # a long generated token


def _generated(token: str) -> bool:
    """A long token mixing letters and digits, not a hex hash or a UUID."""
    return bool(_LETTER.search(token) and _DIGIT.search(token) and not _HEX_OR_UUID.match(token))


def _merge(found: list[Span]) -> list[Span]:
    merged: list[Span] = []
    for start, end in sorted(found):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


def secret_spans(line: str) -> list[Span]:
    """The merged spans of every secret in one line (inside :func:`scan_settings`)."""
    low = libscan.folded(line)
    if not _may_hold_secret(line, low) or line.strip() == REDACTED:
        return []
    found = [*_library_spans(line, low), *rule_spans(line, low), *_assignment_spans(line, low)]
    # What lies inside an earlier redaction stays as it is (redaction is idempotent).
    done = [(m.start(), m.end()) for m in re.finditer(re.escape(REDACTED), line)]
    return [(s, e) for s, e in _merge(found) if not any(ds <= s and e <= de for ds, de in done)]


def redact_line(line: str) -> str:
    """Redact the secrets of one line (call inside :func:`scan_settings`).

    A line the block redacted before is answered from its memory.
    """
    seen = memo()
    if seen is not None:
        done = seen.lines.get(line)
        if done is not None:
            return done
    clean = line
    for start, end in reversed(secret_spans(line)):
        clean = clean[:start] + REDACTED + clean[end:]
    if seen is not None and len(line) <= MEMO_LINE:
        seen.remember(seen.lines, line, clean)
    return clean


def redact(text: str) -> str:
    """Remove private spans, then redact every secret, line by line."""
    return redact_many([text])[0]


def redact_many(texts: list[str]) -> list[str]:
    """Redact several texts with one set-up of the detector library."""
    with scan_settings():
        out = []
        for text in texts:
            text = strip_blocks(text)
            if "\n" not in text:  # one line: its own test decides, nothing to select
                out.append(redact_line(text))
                continue
            lines = text.split("\n")
            scan = lines_to_scan(text, lines)
            for at in scan:
                lines[at] = redact_line(lines[at])
            out.append("\n".join(lines) if scan else text)
        return out


def lines_to_scan(text: str, lines: list[str]) -> list[int]:
    """The indexes, in order, of the lines of ``text`` that may hold a secret.

    ``lines`` is ``text`` split at newlines. A line is scanned when it holds a word
    :func:`_may_hold_secret` looks for or a long token that test accepts; no other line
    can hold a secret. Both are found in the whole text at once, so the many lines that
    hold neither cost no per-line work.
    """
    low = libscan.folded(text)
    words = [word for word in _TRIGGERS if word in low]
    tokens = _token_starts(text)
    if not (words or tokens):
        return []
    if len(lines) == 1:
        return [0]
    hits = [*tokens, *(at for word in words for at in _occurrences(low, word))]
    starts = list(itertools.accumulate((len(line) + 1 for line in lines[:-1]), initial=0))
    return sorted({bisect.bisect_right(starts, at) - 1 for at in hits})


def _token_starts(text: str) -> list[int]:
    """Where each :data:`_LONG_TOKEN` match that :func:`_generated` accepts starts.

    An ASCII text is mapped byte by byte to token / not-token marks, where a run of 16 is
    found with ``bytes.find``: the same runs, many times faster than the pattern.
    """
    if not text.isascii():
        return [m.start() for m in _LONG_TOKEN.finditer(text) if _generated(m.group())]
    marks = text.encode("ascii").translate(_TOKEN_MARKS)
    found = []
    at = marks.find(_RUN_OF_16)
    while at >= 0:
        end = marks.find(b" ", at)
        end = len(marks) if end < 0 else end
        if _generated(text[at:end]):
            found.append(at)
        at = marks.find(_RUN_OF_16, end)
    return found


def _occurrences(text: str, word: str) -> Iterator[int]:
    at = text.find(word)
    while at >= 0:
        yield at
        at = text.find(word, at + 1)


def find_secrets(text: str) -> list[int]:
    """Return the 1-based numbers of the lines that hold a secret (or a private span)."""
    found = set()
    closed = re.compile(r"(?<!`)<private>.*?</private>", re.IGNORECASE | re.DOTALL)
    for match in list(PEM_RE.finditer(text)) + list(closed.finditer(text)):
        found.add(text.count("\n", 0, match.start()) + 1)
    with scan_settings():
        for number, line in enumerate(text.split("\n"), start=1):
            if redact_line(line) != line:
                found.add(number)
    return sorted(found)
