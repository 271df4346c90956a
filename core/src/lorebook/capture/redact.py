"""Remove ``<private>`` spans and redact secrets before anything touches disk.

Secrets are found with detect-secrets (Yelp's detector library: AWS, GitHub, GitLab, Slack,
Stripe, npm, PyPI, OpenAI, JWT, private keys, credentials in URLs, keyword assignments, ...),
without its entropy detectors, which would flag every session id, git SHA and content hash.
A few patterns fill the library's gaps that matter in coding sessions: whole PEM blocks
(the library reports only the header), unquoted ``.env``-style assignments of secret-named
variables, and provider keys it does not know. Lines that cannot hold a secret (no long
token, no secret-ish word) skip the library, which keeps throughput high.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator

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
    rf"(?P<name>\b{_SECRET_NAME})(?P<sep>\s*[:=]\s*)(?P<quote>['\"]?)(?P<value>[^\s'\"`,;()]{{8,}})",
    re.IGNORECASE,
)
PROVIDER_KEY_RE = re.compile(
    r"\b(?:sk-(?:ant-|proj-)?[A-Za-z0-9_-]{20,}|AKIA[0-9A-Z]{16}|ASIA[0-9A-Z]{16}"
    r"|gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{40,}|glpat-[A-Za-z0-9_-]{20,}"
    r"|xox[abprs]-[A-Za-z0-9-]{10,}|AIza[0-9A-Za-z_-]{35})"
)
_NOT_SECRET_VALUE = re.compile(
    r"^(?:[0-9a-f]{7,64}|[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
    r"|\$\{?[A-Za-z_][A-Za-z0-9_]*\}?|<[^>]*>|\*+|x+|true|false|null|none|REDACTED\]?|\[REDACTED\])$",
    re.IGNORECASE,
)
_ENV_NAME = re.compile(r"^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$")
_CODE_REFERENCE = re.compile(r"^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+(?:\(\)?)?$|.*\*{3}")
"""``user.sessionToken``, ``config.get()``, an already masked ``ghp_****``: not secrets."""
"""An environment variable's name (``MOCK_API_KEY``): what a config points to, not a secret."""
_GENERIC_NAMES = frozenset({"key", "keys", "auth", "pass", "author", "authority"})
_SECRET_WORDS = re.compile(
    r"api.?key|secret|token|passw|pwd|credential|bearer|://[^\s/]*:[^\s/]*@|-----BEGIN",
    re.IGNORECASE,
)
_LONG_TOKEN = re.compile(r"[A-Za-z0-9+/=_\-]{16,}")
_LETTER = re.compile(r"[A-Za-z]")
_DIGIT = re.compile(r"[0-9]")
_TOKEN_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-+/=.")


@functools.lru_cache(maxsize=1)
def _settings() -> dict[str, object]:
    return {"plugins_used": [{"name": name} for name in PLUGINS]}


def strip_private(text: str) -> str:
    """Remove every ``<private>…</private>`` span (an unclosed one runs to the end)."""
    return PRIVATE_RE.sub("", text)


def _library_secrets(line: str) -> Iterator[str]:
    from detect_secrets.core.scan import scan_line

    for found in scan_line(line):
        value = found.secret_value or ""
        if len(value) >= 8:
            yield value
        elif value:
            # Some plugins report only a prefix ("ghp"): widen it to the whole token.
            start = line.find(value)
            end = start
            while start >= 0 and end < len(line) and line[end] in _TOKEN_CHARS:
                end += 1
            if end - start >= 16:
                yield line[start:end]


def _redact_assignment(match: re.Match[str]) -> str:
    value = match.group("value")
    name = match.group("name").lower()
    if (
        name in _GENERIC_NAMES
        or _NOT_SECRET_VALUE.match(value)
        or _ENV_NAME.match(value)
        or _CODE_REFERENCE.match(value)
    ):
        return match.group()
    return f"{match.group('name')}{match.group('sep')}{match.group('quote')}{REDACTED}"


def _may_hold_secret(line: str) -> bool:
    """Cheap test: could this line hold a secret at all?

    True for a secret-ish word, or a long token mixing letters and digits that is not a hex
    hash or a UUID (session ids, git SHAs and content hashes never reach the library).
    """
    if _SECRET_WORDS.search(line):
        return True
    for match in _LONG_TOKEN.finditer(line):
        token = match.group()
        if _LETTER.search(token) and _DIGIT.search(token) and not _NOT_SECRET_VALUE.match(token):
            return True
    return False


def redact_line(line: str) -> str:
    """Redact the secrets of one line (call inside :func:`redact_many`'s settings)."""
    if not _may_hold_secret(line):
        return line
    for value in sorted(set(_library_secrets(line)), key=len, reverse=True):
        if not _NOT_SECRET_VALUE.match(value):
            line = line.replace(value, REDACTED)
    line = PROVIDER_KEY_RE.sub(REDACTED, line)
    return ASSIGNMENT_RE.sub(_redact_assignment, line)


def redact(text: str) -> str:
    """Remove private spans, then redact every secret, line by line."""
    return redact_many([text])[0]


def redact_many(texts: list[str]) -> list[str]:
    """Redact several texts with one set-up of the detector library."""
    from detect_secrets.settings import transient_settings

    with transient_settings(_settings()):
        out = []
        for text in texts:
            text = PEM_RE.sub(REDACTED, strip_private(text))
            out.append("\n".join(redact_line(line) for line in text.split("\n")))
        return out


def find_secrets(text: str) -> list[int]:
    """Return the 1-based numbers of the lines that hold a secret (or a private span)."""
    from detect_secrets.settings import transient_settings

    found = set()
    closed = re.compile(r"(?<!`)<private>.*?</private>", re.IGNORECASE | re.DOTALL)
    for match in list(PEM_RE.finditer(text)) + list(closed.finditer(text)):
        found.add(text.count("\n", 0, match.start()) + 1)
    with transient_settings(_settings()):
        for number, line in enumerate(text.split("\n"), start=1):
            if redact_line(line) != line:
                found.add(number)
    return sorted(found)
