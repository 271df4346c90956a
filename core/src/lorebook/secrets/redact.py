"""Remove ``<private>`` spans and redact secrets before anything touches disk.

Secrets are found by these sets of rules, and every span any of them finds is replaced:

- detect-secrets (Yelp's detector library, a dependency already: AWS, GitHub, GitLab,
  Slack, Stripe, npm, PyPI, OpenAI, JWT, private keys, credentials in URLs, keyword
  assignments, ...), without its entropy detectors, which would flag every session id,
  git SHA and content hash. Its rules are well kept; its Shannon entropy measure and its
  templated-value filter are used by our rules too.
- :mod:`lorebook.secrets.keys`: private keys in every container (PEM and SSH2 blocks,
  PuTTY files, minisign keys, JSON Web Keys, bare DER), found in the whole text first.
- :mod:`lorebook.secrets.tokens`: tokens known by their documented prefix.
- :mod:`lorebook.secrets.assignments`: values of secret-named keys (``DB_PASSWORD=x``,
  ``<password>x</password>``), the name judged by :mod:`lorebook.secrets.values`.
- :mod:`lorebook.secrets.rules`: prose, headers, cookies and URLs.
- :mod:`lorebook.secrets.commands`: password flags, client options, positional
  passwords and pipes on command lines.
- Here: a base64 token that encodes a key or a secret (a Kubernetes secret's data, a
  Docker config), and a line whose quotes and newlines are JSON escapes (a transcript line
  quoted whole) is read as it would be unescaped, too.

Lines that cannot hold a secret (no secret-ish word, no long token) skip every rule; they
are picked out of a whole text at once (:func:`lines_to_scan`). On the other lines each
detector and rule runs only when the line holds what its pattern cannot match without
(:mod:`lorebook.secrets.libscan`, each module's ``GATES``), so the spans are exactly those
of running everything, at a fraction of the cost; a test checks every gate against its
pattern. Redaction is idempotent: a redacted text redacts to itself.
"""

from __future__ import annotations

import bisect
import contextlib
import functools
import itertools
import re
from collections.abc import Iterator

from lorebook.secrets import assignments, commands, escapes, keys, libscan, rules, tokens
from lorebook.secrets.values import Span, is_placeholder

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

PEM_RE = keys.PEM_RE
ASSIGNMENT_RE = assignments.ASSIGNMENT_RE

_PLAIN_WORDS = (
    "pass", "pwd", "key", "token", "secret", "credential", "creds", "auth", "bearer",
    "contrase", "senha", "kennwort", "-----begin", "--user", "pw", "://", "-p", "-u",
)  # fmt: skip
"""Secret-ish words the library's detectors and the assignments need (folded)."""


def _fewest(words: set[str]) -> tuple[str, ...]:
    """``words`` without those that hold another of them (a line holding one holds both)."""
    return tuple(sorted(w for w in words if not any(o != w and o in w for o in words)))


WORDS = _fewest({*_PLAIN_WORDS, *rules.GATE_WORDS, *commands.GATE_WORDS, *tokens.CUT_WORDS})
"""Every word one of which a line must hold (folded) to be scanned, unless it holds a
token's literal (:data:`LITERALS`), a long generated token, or ends in a cut's ``…``: each
rule's gate implies one of them."""
WORDS = _fewest({*WORDS, "q~", "xox", "private-mac", "\\u", ":\\/\\/", "…"})
"""With the tokens whose body may be short or split, ``\\u`` and ``:\\/\\/`` (JSON escapes may
spell a word of another script or a URL, :mod:`lorebook.secrets.escapes`) and a cut's ``…``
(a token's prefix may stand before it)."""
_ASCII_WORDS = tuple(word for word in WORDS if word.isascii())
"""The words an ASCII text can hold."""
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
    """Remove private spans, then replace whole blocks (before line redaction).

    The blocks: private keys, and the YAML value of a secret-named key written on the
    lines below it.
    """
    text = keys.replace_blocks(strip_private(text), REDACTED)
    for start, end in reversed(assignments.block_spans(text)):
        text = text[:start] + REDACTED + text[end:]
    return text


MEMO_CHARS = 8 << 20
"""Characters of lines a scan block remembers the redaction of (see :func:`redact_line`)."""
MEMO_LINE = 4096
"""Longer lines are not remembered."""


class Memo:
    """What the open scan block redacted, up to :data:`MEMO_CHARS` characters in all.

    ``lines``: lines (of at most :data:`MEMO_LINE`); ``strings``: tool-input strings as
    :func:`lorebook.secrets.toolinput.redact_strings` redacts them (already cut short).
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
        if "`" in value:
            # it runs across code spans ("pass `api_key`, `base_url`, or `project` to X"):
            # prose naming settings, no value of one
            continue
        for hit in re.finditer(re.escape(value), line) if value else ():
            start, end = hit.span()
            # Some plugins report only a prefix ("ghp", a JWT without its signature): widen it.
            while end < len(line) and line[end] in _TOKEN_CHARS:
                end += 1
            token = line[start:end]
            if len(token) >= 8 and not _HEX_OR_UUID.match(token) and not is_placeholder(token):
                yield start, end


def _may_hold_secret(line: str, low: str) -> bool:
    """Cheap test: could this line hold a secret at all?

    True for a word of :data:`WORDS` (in ``low``, the folded line), a cut's ``…`` at the
    end, or a long token mixing letters and digits that is not a hex hash or a UUID
    (session ids, git SHAs and content hashes never reach the library).
    """
    if libscan.has_any(low, _ASCII_WORDS if low.isascii() else WORDS) or line.endswith("…"):
        return True
    return bool(_token_starts(line)) or rules.pgpass_line(line)


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
    r"""The merged spans of every secret in one line (inside :func:`scan_settings`).

    A line holding JSON escapes (``\"``, or ``\n`` in a JSON document) is read as the text
    they stand for (:mod:`lorebook.secrets.escapes`), so a quoted value is seen with its
    quotes and a word spelt in ``\u`` escapes as the word; each span found there is
    mapped back to the escaped characters that spell it.
    """
    low = libscan.folded(line)
    if not _may_hold_secret(line, low) or line.strip() == REDACTED:
        return []
    if escapes.json_escaped(line):
        view = escapes.decoded(line)
        found = [
            view.original((at + start, at + end))
            for at, part in view.lines()
            for start, end in _line_spans(part, libscan.folded(part))
            if start < end
        ]
    else:
        found = _line_spans(line, low)
    # What lies inside an earlier redaction stays as it is (redaction is idempotent).
    done = [(m.start(), m.end()) for m in re.finditer(re.escape(REDACTED), line)]
    return [
        (s, e)
        for s, e in _merge(found)
        if s < e and not any(ds <= s and e <= de for ds, de in done)
    ]


def _line_spans(line: str, low: str, *, decode: bool = True) -> list[Span]:
    """Every rule's spans in one candidate line (they may overlap).

    ``decode``: also look inside base64 tokens (not when already inside one).
    """
    found = [
        *_library_spans(line, low),
        *tokens.spans(line, low),
        *assignments.spans(line, low),
        *rules.spans(line, low),
        *commands.spans(line, low),
    ]
    if decode and len(line) >= 24:
        found += _encoded_spans(line)
    return found


def _encoded_spans(line: str) -> Iterator[Span]:
    """Base64 tokens that encode a private key or a text holding a secret."""
    for match in keys.base64_tokens(line):
        token = match.group()
        if not (_LETTER.search(token) and _DIGIT.search(token)) or _HEX_OR_UUID.match(token):
            continue  # base64 of a key or of text mixes letters and digits
        if keys.private_der(token):
            yield match.span()
            continue
        text = keys.text_of(token)
        if text is not None and (keys.holds_key(text) or _holds_secret(text)):
            yield match.span()


def _holds_secret(text: str) -> bool:
    """Does a decoded text hold a secret (its lines judged as lines, not decoded again)?"""
    for part in text.split("\n")[:200]:
        low = libscan.folded(part)
        if _may_hold_secret(part, low) and _line_spans(part, low, decode=False):
            return True
    return False


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


def redact_many(texts: list[str]) -> list[str]:
    """Remove private spans, then redact every secret, line by line, of each text.

    One set-up of the detector library serves them all (capture calls it with a batch of
    turns; marks, imports and harvested memories with their texts).
    """
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
    words = [word for word in (_ASCII_WORDS if low.isascii() else WORDS) if word in low]
    found = _token_starts(text)
    if text.count(":") >= 4:  # .pgpass lines: four colons and no word to look for
        found += [m.start() for m in rules.PGPASS_PORT.finditer(text)]
    if not (words or found):
        return []
    if len(lines) == 1:
        return [0]
    hits = [
        *found,
        *(at for word in words for at in _first_per_line(low, word)),
    ]
    starts = list(itertools.accumulate((len(line) + 1 for line in lines[:-1]), initial=0))
    return sorted({bisect.bisect_right(starts, at) - 1 for at in hits})


def _token_starts(text: str) -> list[int]:
    """Where each :data:`_LONG_TOKEN` match that may be a secret starts.

    A match may be one if :func:`_generated` accepts it, or if a token's literal
    (:mod:`lorebook.secrets.tokens`) stands just before or in it: every token known by its
    prefix holds such a run (``hf_`` and 34 letters, ``dp.st.<config>.`` and 40 more).
    An ASCII text is mapped byte by byte to token / not-token marks, where a run of 16 is
    found with ``bytes.find``: the same runs, many times faster than the pattern.
    """
    if not text.isascii():
        return [m.start() for m in _LONG_TOKEN.finditer(text) if _token_like(text, *m.span())]
    marks = text.encode("ascii").translate(_TOKEN_MARKS)
    found = []
    at = marks.find(_RUN_OF_16)
    while at >= 0:
        end = marks.find(b" ", at)
        end = len(marks) if end < 0 else end
        if _token_like(text, at, end):
            found.append(at)
        at = marks.find(_RUN_OF_16, end)
    return found


def _token_like(text: str, start: int, end: int) -> bool:
    """Is the run ``text[start:end]`` generated, or part of a token known by its prefix?"""
    run = text[start:end]
    if _HEX_OR_UUID.match(run):
        return False  # a hash or an id (a token's hex body has its literal in the run)
    if _LETTER.search(run) and _DIGIT.search(run):
        return True
    return tokens.near_token(text, start, end)


def _first_per_line(text: str, word: str) -> Iterator[int]:
    """Where ``word`` first occurs in each line of ``text`` that holds it."""
    at = text.find(word)
    while at >= 0:
        yield at
        end = text.find("\n", at)
        if end < 0:
            return
        at = text.find(word, end)


def find_secrets(text: str) -> list[int]:
    """Return the 1-based numbers of the lines that hold a secret (or a private span)."""
    found = set()
    closed = re.compile(r"(?<!`)<private>.*?</private>", re.IGNORECASE | re.DOTALL)
    starts = [start for start, _ in (*keys.block_spans(text), *assignments.block_spans(text))]
    for start in starts + [match.start() for match in closed.finditer(text)]:
        found.add(text.count("\n", 0, start) + 1)
    with scan_settings():
        for number, line in enumerate(text.split("\n"), start=1):
            if redact_line(line) != line:
                found.add(number)
    return sorted(found)


def text_secrets(text: str) -> str:
    """Say which lines of ``text`` ``lorebook scan`` flags: "line N" or "lines N, M" ("": none)."""
    lines = find_secrets(text)
    return ("line " if len(lines) == 1 else "lines ") + ", ".join(map(str, lines)) if lines else ""
