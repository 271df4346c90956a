"""The redaction rules detect-secrets lacks, for secrets as people write them in sessions.

detect-secrets (see :mod:`lorebook.capture.redact`) finds provider tokens by their shape
and ``name = "value"`` assignments in code. People in a coding session also write secrets
in prose ("the staging db password is hunter2"), in command flags (``--token X``,
``mysql -pX``, ``curl -u user:pw``), in HTTP headers (``Authorization: Bearer X``), in URLs
with short or user-less credentials (``redis://:pw@host``), and as provider tokens the
library does not know (Hugging Face ``hf_``, Anthropic ``sk-ant-``, ...). Each rule here
yields the character spans of secret values in one line; :mod:`redact` replaces them.

A value is judged with the library's own false-positive heuristics (templated values,
``$VAR`` references) plus ours: placeholders, environment-variable names, code references
and, after a weak keyword such as "key" or "token", a value that must look random
(letters and digits, or high entropy by the library's Shannon measure).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable, Iterator

from lorebook.capture.libscan import folded, has_any

Span = tuple[int, int]

PROVIDER_KEY_RE = re.compile(
    r"(?<![A-Za-z0-9_-])(?:"
    r"sk-(?:ant-(?:api|admin)\d\d-|ant-|proj-|svcacct-|or-v1-)?[A-Za-z0-9_-]{20,}"
    r"|(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}|gh[pousr]_[A-Za-z0-9]{30,}"
    r"|github_pat_[A-Za-z0-9_]{40,}|glpat-[A-Za-z0-9_-]{20,}|xox[abeprs]-[A-Za-z0-9-]{10,}"
    r"|AIza[0-9A-Za-z_-]{35}|ya29\.[0-9A-Za-z_-]{20,}|hf_[A-Za-z0-9]{30,}|api_org_[A-Za-z]{30,}"
    r"|npm_[A-Za-z0-9]{36}|pypi-[A-Za-z0-9_-]{50,}|dop_v1_[a-f0-9]{64}|do[or]_v1_[a-f0-9]{64}"
    r"|shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}|glsa_[A-Za-z0-9_]{32,}|dckr_pat_[A-Za-z0-9_-]{20,}"
    r"|(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}|gsk_[A-Za-z0-9]{40,}|xai-[A-Za-z0-9]{40,}"
    r"|r8_[A-Za-z0-9]{30,}|nvapi-[A-Za-z0-9_-]{40,}|pplx-[A-Za-z0-9]{40,}"
    r"|lin_api_[A-Za-z0-9]{30,}|(?:ntn|secret)_[A-Za-z0-9]{40,}|sntry[su]_[A-Za-z0-9_=+/]{40,}"
    r"|hv[sb]\.[A-Za-z0-9_-]{20,}|SG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}"
    r"|figd_[A-Za-z0-9_-]{30,}|EAA[A-Za-z0-9]{30,}|AccountKey=[A-Za-z0-9+/=]{40,}"
    r")"
)
"""Provider tokens by prefix (the library's own AWS, GitHub, Slack, ... are kept too)."""

CUT_PROVIDER_RE = re.compile(
    r"(?<![A-Za-z0-9_-])(?:sk-|AKIA|ASIA|gh[pousr]_|github_pat_|glpat-|xox[abeprs]-|AIza|hf_"
    r"|npm_|pypi-|dop_v1_|shp(?:at|ss)_|dckr_pat_|(?:sk|rk)_live_|gsk_|xai-|r8_|nvapi-|hvs\.)"
    r"[A-Za-z0-9_.-]{2,}(?=…|\.\.\.|$)"
)
"""A provider token's prefix left at the end of text that was cut (``ghp_abc…``)."""

URL_CREDENTIALS_RE = re.compile(
    r"[A-Za-z][A-Za-z0-9+.-]*://(?P<user>[^\s:/?#@\[\]'\"`]*):(?P<value>[^\s@/?#'\"`]+)@"
)
"""``scheme://user:password@`` and ``scheme://:password@``: the password, any length."""

AUTH_HEADER_RE = re.compile(
    r"(?i:\bauthorization)[\"']?\s*[:=]\s*[\"']?(?:(?i:bearer|basic|token|digest|bot|apikey)\s+)?"
    r"(?!(?i:bearer|basic|token|digest|bot|apikey)\b)(?P<value>[A-Za-z0-9._~+/=:-]{6,})"
    r"|(?i:\b(?:bearer|x-api-key|api-key|x-auth-token|private-token)\b)[\"']?\s*[:=]?\s*"
    r"(?P<bearer>[A-Za-z0-9._~+/=-]{8,})"
)
FLAG_RE = re.compile(
    r"(?<![\w-])--?(?i:(?:[a-z]+-)*(?:token|password|passwd|pass|secret|api-?key|apikey|"
    r"auth|credentials?|private-key|access-key|secret-key|client-secret))"
    r"(?:=|\s+)(?P<q>['\"]?)(?P<value>(?(q)[^'\"\n]+|[^\s'\"`|;&)]+))"
)
"""``--token X``, ``--password=X``, ``--api-key 'X'``, ``-password X``."""

CLIENT_FLAG_RE = re.compile(
    r"\b(?:mysql|mysqldump|mysqladmin|mariadb|mariadb-dump)\b[^|;&\n]*?\s-p(?P<value>[^\s'\"]+"
    r"|'[^']*'|\"[^\"]*\")"
    r"|\b(?:docker|podman|helm|nerdctl)\s+(?:registry\s+)?login\b[^|;&\n]*?\s-p\s+"
    r"(?P<docker>\S+)"
    r"|\bsshpass\s+-p\s*(?P<sshpass>\S+)"
    r"|(?<![\w-])(?:-u|--user)\s*(?P<q>['\"]?)[^\s:'\"]*:(?P<curl>[^\s'\"@]+)(?P=q)(?=\s|$)"
)
"""Client passwords: ``mysql -pX``, ``docker login -p X``, ``sshpass -p X``, ``curl -u u:X``."""

_STRONG = r"pass(?:word|wd|phrase|code)s?|pwd|pw|contrase[nñ]a|senha|mot de passe|kennwort"
_WEAK = (
    r"secrets?|tokens?|api[ _-]?keys?|access[ _-]?keys?|private[ _-]?keys?|secret[ _-]?keys?"
    r"|keys?|credentials?|creds|auth|apikey|client[ _-]?secret"
)
PROSE_RE = re.compile(
    rf"(?i:\b(?P<strong>{_STRONG})|\b(?P<weak>{_WEAK}))\b"
    r"(?P<conn>(?:\s*(?:[:=]|:=|=>|->)\s*|\s+(?:(?i:is|was|are|were|be|to|of|now|still|as"
    r"|here|set to|changed to|reads|equals|es|est|ist|era|é)\s+)*)(?:(?i:is|was)\s*:?\s*)?)"
    r"(?P<value>\"[^\"\n]{1,200}\"|'[^'\n]{1,200}'|`[^`\n]{1,200}`|[^\s\"'`]+)"
)
"""A secret keyword, an optional connector (is, was, =, :, ...), then the value."""

_STOPWORDS = frozenset(
    {
        "a", "an", "the", "this", "that", "these", "those", "it", "its", "is", "was", "are", "be",
        "been", "being", "to", "of", "in", "on", "at", "for", "from", "by", "with", "without",
        "and", "or", "but", "not", "no", "yes", "if", "when", "then", "than", "so", "as", "also",
        "only", "just", "still", "now", "here", "there", "my", "our", "your", "their", "his", "her",
        "we", "you", "they", "i", "me", "us", "them", "which", "what", "who", "whom", "whose",
        "where", "how", "why", "all", "any", "each", "every", "some", "none", "more", "most",
        "less", "least", "set", "reset", "required", "optional", "wrong", "incorrect", "correct",
        "invalid", "valid", "missing", "empty", "blank", "expired", "revoked", "stored", "saved",
        "hashed", "encrypted", "rotated", "changed", "updated", "needed", "used", "using", "same",
        "different", "new", "old", "default", "generated", "random", "strong", "weak", "long",
        "short", "too", "very", "field", "fields", "value", "values", "manager", "managers", "file",
        "files", "policy", "policies", "prompt", "prompts", "protected", "reset-link", "login",
        "logins", "check", "checks", "hash", "auth", "token", "tokens", "key", "keys", "secret",
        "secrets", "password", "passwords", "variable", "variable's", "env", "environment",
        "should", "must", "will", "would", "can", "could", "may", "might", "does", "do", "did",
        "has", "have", "had", "get", "gets", "got", "into", "onto", "over", "under", "via", "per",
        "after", "before", "during", "until", "while", "because", "since", "null", "true",
        "false", "undefined", "nil", "ok", "okay", "fine", "thing", "one", "two"
    }
)  # fmt: skip
_ENGLISH_SUFFIX = re.compile(r"^[a-z]+(?:ed|ing|ly|able|ible|tion|ment|ness|ous|ive)$")
_PLACEHOLDER = re.compile(
    r"^(?:\$\{?[A-Za-z_][A-Za-z0-9_]*\}?|\$\{\{.*|\$\(.*|%[A-Za-z_]+%|-?\d{1,11}(?:\.\d+)?|\{\{.*\}\}|\{[^}]*\}|<[^>]*>|\[[^\]]*\]"
    r"|\*+|x{3,}|X{3,}|\.{3,}|…|\?+|-+|_+|#+"
    r"|(?i:redacted|\[redacted\]|null|none|nil|true|false|undefined|changeme_?later|example))$"
)
_ENV_NAME = re.compile(r"^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$")
_CODE_REF = re.compile(
    r"^[A-Za-z_][\w.]{0,60}[(\[]|^[A-Za-z_]\w{0,30}(?:\.[A-Za-z_]\w{0,30})+\)?$|.*\*{3}"
)
"""``os.environ[``, ``get_token(``, ``settings.API_KEY``, a masked ``ghp_****``: code."""
_CODE_NEXT = frozenset("([.")
_UUID = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")
_HAS_LETTER = re.compile(r"[A-Za-z]")
_HAS_DIGIT = re.compile(r"[0-9]")
_TRAILING = ".,;:!?)]}>"

# What each pattern cannot match without (case-insensitive parts: in the folded line).
_PROVIDER_PREFIXES = (
    # each token (and each cut one) begins with one of these; grouped by a character all
    # of a group need, so a line without it is ruled out for the group with one look
    ("_", (
        "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "hf_", "api_org_", "npm_",
        "_v1_", "shp", "glsa_", "dckr_pat_", "_live_", "_test_", "gsk_", "r8_", "lin_api_",
        "ntn_", "secret_", "sntry", "figd_",
    )),
    ("-", ("sk-", "glpat-", "xox", "pypi-", "xai-", "nvapi-", "pplx-")),
    (".", ("ya29.", "hvs.", "hvb.", "SG.")),
    ("", ("AKIA", "ASIA", "ABIA", "ACCA", "AIza", "EAA", "AccountKey=")),
)  # fmt: skip
_CLIENTS = ("mysql", "mariadb", "docker", "podman", "helm", "nerdctl", "sshpass")
"""The client names of CLIENT_FLAG_RE (its ``-u user:pw`` form needs ``-u`` and ``:``)."""
_FLAG_WORDS = ("token", "pass", "secret", "key", "auth", "credential")
_BEARER_WORDS = ("bearer", "api-key", "x-auth-token", "private-token")
_AUTHORIZATION = re.compile(r"authorization[\"']?\s*[:=]")
_PROSE_WORDS = (
    "pass", "pw", "contrase", "senha", "kennwort", "secret", "token", "key", "cred", "auth",
)  # fmt: skip


@functools.lru_cache(maxsize=1)
def _entropy_of() -> object:
    from detect_secrets.plugins.high_entropy_strings import Base64HighEntropyString

    return Base64HighEntropyString().calculate_shannon_entropy


def entropy(value: str) -> float:
    """Shannon entropy of ``value`` over the base64 alphabet (detect-secrets' measure)."""
    measure = _entropy_of()
    assert callable(measure)
    return float(measure(value))


def is_placeholder(value: str) -> bool:
    """A template, reference, mask or code expression rather than a secret."""
    if (
        not value
        or _PLACEHOLDER.match(value)
        or _ENV_NAME.match(value)
        or _CODE_REF.match(value)
        or _UUID.match(value)
    ):
        return True
    # last, so the library is imported only for a value that gets this far
    from detect_secrets.filters.heuristic import is_templated_secret

    return bool(is_templated_secret(value))


def looks_random(value: str) -> bool:
    """Letters and digits mixed, or (16+ characters) high entropy: a generated value."""
    if len(value) < 8 or " " in value:
        return False
    if _HAS_LETTER.search(value) and _HAS_DIGIT.search(value):
        return True
    return len(value) >= 16 and entropy(value) >= 3.5


def followed_by_code(line: str, end: int) -> bool:
    """The value ends where a call, an index or an attribute starts: code, not a literal."""
    if end >= len(line) or line[end] not in _CODE_NEXT:
        return False
    return line[end] != "." or (
        end + 1 < len(line) and (line[end + 1].isalnum() or line[end + 1] == "_")
    )


def _word_like(value: str) -> bool:
    low = value.lower()
    return low in _STOPWORDS or (value.islower() and bool(_ENGLISH_SUFFIX.match(value)))


def strong_value(value: str) -> bool:
    """After a password word or name: anything but a placeholder or an ordinary word."""
    return (
        len(value) >= 3
        and value.count(" ") <= 5
        and not _word_like(value)
        and not is_placeholder(value)
    )


def weak_value(value: str) -> bool:
    """After "key", "token", "secret", ...: only what looks generated."""
    return looks_random(value) and not _word_like(value) and not is_placeholder(value)


def _unquote(line: str, start: int, end: int) -> Span:
    """Narrow a value's span past quotes and trailing punctuation."""
    if end - start >= 2 and line[start] in "\"'`" and line[end - 1] == line[start]:
        return start + 1, end - 1
    while end > start and line[end - 1] in _TRAILING:
        end -= 1
    return start, end


_PROSE_STARTS = (
    "pass", "pw", "contrase", "senha", "mot de passe", "kennwort", "secret", "token", "api",
    "access", "private", "key", "cred", "auth", "client",
)  # fmt: skip
"""How each keyword of :data:`PROSE_RE` begins (in the folded line): a match starts at one."""


def matches_at(regex: re.Pattern[str], line: str, starts: Iterable[int]) -> Iterator[re.Match[str]]:
    r"""``regex.finditer(line)`` for a pattern whose every match starts at one of ``starts``.

    ``starts`` are ascending places where a match can begin (where the literal text it
    begins with occurs). Trying only those, in order, each after the end of the last
    match, finds the same matches as scanning every position (no match is empty);
    ``match(line, at)`` sees the text before ``at``, so ```` and look-behinds are judged
    as in a scan.
    """
    end = 0
    for at in starts:
        if at < end:
            continue
        match = regex.match(line, at)
        if match is not None:
            end = match.end()
            yield match


def prose_matches(line: str, low: str) -> Iterator[re.Match[str]]:
    """``PROSE_RE.finditer(line)``, tried where a keyword begins.

    A match starts where one of :data:`_PROSE_STARTS` occurs in ``low`` (the folded line:
    the same positions).
    """
    starts = sorted({at for word in _PROSE_STARTS for at in _occurrences(low, word)})
    return matches_at(PROSE_RE, line, starts)


def flag_matches(line: str) -> Iterator[re.Match[str]]:
    """``FLAG_RE.finditer(line)``: a match starts at a ``-``."""
    return matches_at(FLAG_RE, line, _occurrences(line, "-"))


def _occurrences(text: str, word: str) -> Iterator[int]:
    at = text.find(word)
    while at >= 0:
        yield at
        at = text.find(word, at + 1)


def prose_spans(line: str, low: str | None = None) -> Iterator[Span]:
    """Values after a secret keyword, in prose or as an unquoted assignment."""
    for match in prose_matches(line, folded(line) if low is None else low):
        start, end = _unquote(line, *match.span("value"))
        value = line[start:end]
        quoted = start != match.start("value")
        if not quoted and followed_by_code(line, end):
            continue
        if quoted and match.group("strong") is not None:
            ok = len(value) >= 3 and value.count(" ") <= 5 and not is_placeholder(value)
        elif match.group("strong") is not None:
            ok = strong_value(value)
        else:
            ok = weak_value(value)
        if ok:
            yield start, end


def _group_spans(
    regex: re.Pattern[str], line: str, *groups: str, found: Iterable[re.Match[str]] | None = None
) -> Iterator[Span]:
    """The spans of ``groups`` in each match (``found``: the matches, if not all of ``regex``)."""
    for match in regex.finditer(line) if found is None else found:
        for group in groups:
            if match.group(group) is not None:
                start, end = _unquote(line, *match.span(group))
                if not is_placeholder(line[start:end]):
                    yield start, end


def _provider_gate(line: str, low: str) -> bool:
    for part, prefixes in _PROVIDER_PREFIXES:  # loops: this runs on every candidate line
        if part in line:
            for prefix in prefixes:
                if prefix in line:
                    return True
    return False


GATES: dict[re.Pattern[str], Callable[[str, str], bool]] = {
    PROVIDER_KEY_RE: _provider_gate,
    CUT_PROVIDER_RE: _provider_gate,
    URL_CREDENTIALS_RE: lambda line, low: "://" in line and "@" in line,
    CLIENT_FLAG_RE: lambda line, low: has_any(line, _CLIENTS) or ("-u" in line and ":" in line),
    FLAG_RE: lambda line, low: "-" in line and has_any(low, _FLAG_WORDS),
    AUTH_HEADER_RE: lambda line, low: (
        has_any(low, _BEARER_WORDS)
        or ("authorization" in low and _AUTHORIZATION.search(low) is not None)
    ),
    PROSE_RE: lambda line, low: has_any(low, _PROSE_WORDS),
}
"""Each pattern's gate ``(line, folded line)``: False only where the pattern cannot match."""


def spans(line: str, low: str | None = None) -> Iterator[Span]:
    """Every secret span in ``line`` found by these rules (they may overlap).

    A pattern runs only when its :data:`GATES` entry passes (``low`` is the line as
    :func:`lorebook.capture.libscan.folded` folds it); the spans are those of running
    every pattern.
    """
    low = folded(line) if low is None else low
    if _provider_gate(line, low):
        for match in PROVIDER_KEY_RE.finditer(line):
            yield match.span()
        for match in CUT_PROVIDER_RE.finditer(line):
            yield match.span()
    if GATES[URL_CREDENTIALS_RE](line, low):
        yield from _group_spans(URL_CREDENTIALS_RE, line, "value")
    if GATES[CLIENT_FLAG_RE](line, low):
        yield from _group_spans(CLIENT_FLAG_RE, line, "value", "docker", "sshpass", "curl")
    if GATES[FLAG_RE](line, low):
        yield from _group_spans(FLAG_RE, line, "value", found=flag_matches(line))
    if GATES[AUTH_HEADER_RE](line, low):
        yield from _header_spans(line)
    if GATES[PROSE_RE](line, low):
        yield from prose_spans(line, low)


def _header_spans(line: str) -> Iterator[Span]:
    for match in AUTH_HEADER_RE.finditer(line):
        for group in ("value", "bearer"):
            if match.group(group) is None:
                continue
            value = match.group(group)
            if not is_placeholder(value) and (group == "value" or weak_value(value)):
                yield match.span(group)
