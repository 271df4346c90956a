"""Is this a secret's value, and is this a secret's name? The judgements every rule shares.

A rule (:mod:`lorebook.secrets.rules`, :mod:`~lorebook.secrets.commands`, ...) finds where a
value sits (after ``password is``, ``--token``, ``DB_PASSWORD=``); these functions decide
whether what sits there is a secret. After a password word anything but a placeholder or an
ordinary word is (:func:`strong_value`); after a weaker word ("key", "token", "auth") only
what looks generated is (:func:`weak_value`). A placeholder is a template, a reference, a
mask, a path or code (:func:`is_placeholder`), judged with detect-secrets' own templated-value
filter and Shannon entropy measure as well as ours.
"""

from __future__ import annotations

import base64
import binascii
import functools
import re
from collections.abc import Iterable, Iterator

Span = tuple[int, int]

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
        "false", "undefined", "nil", "ok", "okay", "fine", "thing", "one", "two", "length",
        "hasher", "hashing", "strength", "complexity", "rules", "rule", "expiry", "expiration",
        "history", "hint", "hints", "input", "inputs", "box", "dialog", "screen", "page", "form",
        "again", "twice", "first", "once", "please", "yet", "already", "itself", "instead",
        "format", "type", "store", "vault", "source", "provider", "backend", "rotation",
        "characters", "chars", "digits", "letters", "bytes", "bits", "attempts", "retries",
        "see", "use", "ask", "read", "follow", "visit", "contact", "refer", "run", "call",
        "enter", "paste", "copy", "click", "go", "try", "look", "find", "generate", "create",
        "falsch", "richtig", "ungültig", "abgelaufen", "erforderlich", "incorrecta",
        "incorrecto", "correcta", "correcto", "inválida", "válida", "obligatoria",
        "requerida", "erroné", "erronée", "requis", "obligatoire", "errada", "incorreta",
        "obrigatória", "sbagliata", "errata", "obbligatoria", "fout", "onjuist", "verplicht",
        "fel", "väärä", "forkert", "yanl\u0131\u015f", "неверный", "неправильный",
    }
)  # fmt: skip
"""Words that follow a secret keyword in prose without being its value."""
_ENGLISH_SUFFIX = re.compile(r"^[a-z]+(?:ed|ing|ly|able|ible|tion|ment|ness|ous|ive)$")
_PLACEHOLDER = re.compile(
    r"^(?:\$\{?[A-Za-z_][A-Za-z0-9_]*\}?|\$\{\{.*|\$\(.*|%[A-Za-z_]+%|-?\d{1,11}(?:\.\d+)?|\{\{.*\}\}|\{[^}]*\}|<[^>]*>|\[[^\]]*\]"
    r"|\*+|x{3,}|X{3,}|\.{3,}|…|\?+|-+|_+|#+|<\w[^>]*|[\d/.:,%+-]*\d[/.:,%+-][\d/.:,%+-]*"
    r"|(?i:redacted|\[redacted\]|null|none|nil|true|false|undefined|changeme_?later|example)"
    r"|(?i:your[-_.][\w.-]+|[\w.-]+[-_]here))$"
)
"""Templates (``${X}``, ``{{x}}``, ``<password>``, ``%X%``, ``your_api_key_here``,
``your-openai-key``), masks (``****``, ``xxx``, ``...``), numbers and the words a config
writes for "no value". ``changeme`` and
``password123`` are not placeholders: they are real, if weak, passwords people use."""
_ENV_NAME = re.compile(r"^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$")
_CODE_REF = re.compile(
    r"^[A-Za-z_][\w.]{0,60}[(\[]|^[A-Za-z_]\w{0,30}(?:\.[A-Za-z_]\w{0,30})+\)?$|.*\*{3}"
)
"""``os.environ[``, ``get_token(``, ``settings.API_KEY``, a masked ``ghp_****``: code."""
_PATH = re.compile(r"^(?:~|\.{1,2})?/(?:[\w.@+-]{1,40}/)+[\w.@+-]{0,40}$|^(?:~|\.{1,2})/[\w.@+-]+$")
"""``/home/me/app``, ``~/.config/token``, ``./secrets/db.txt``: where a secret is, not it."""
_CODE_NEXT = frozenset("([.")
_UUID = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")
_DIGITS = re.compile(r"^\d{4,11}$")
_HAS_LETTER = re.compile(r"[A-Za-z]")
_HAS_DIGIT = re.compile(r"[0-9]")
TRAILING = ".,;:!?)]}>"
"""Punctuation that ends a sentence or a bracket, not a value."""


@functools.lru_cache(maxsize=1)
def _entropy_of() -> object:
    from detect_secrets.plugins.high_entropy_strings import Base64HighEntropyString

    return Base64HighEntropyString().calculate_shannon_entropy


def entropy(value: str) -> float:
    """Shannon entropy of ``value`` over the base64 alphabet (detect-secrets' measure)."""
    measure = _entropy_of()
    assert callable(measure)
    return float(measure(value))


def is_placeholder(value: str, *, uuid: bool = False) -> bool:
    """A template, reference, mask, path or code expression rather than a secret.

    A UUID is a placeholder too (an id) unless ``uuid`` is set: after a password or token
    name a UUID is the secret (npm's and Heroku's tokens are UUIDs).
    """
    if (
        not value
        or _PLACEHOLDER.match(value)
        or _ENV_NAME.match(value)
        or _CODE_REF.match(value)
        or (not uuid and _UUID.match(value))
        or ("/" in value and _PATH.match(value))
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


def encoded_pair(value: str) -> bool:
    """Base64 of ``user:password`` (HTTP Basic, ``.npmrc`` ``_auth``, Docker's ``auth``)."""
    if not 8 <= len(value) <= 512 or len(value) % 4 or not _B64.match(value):
        return False
    try:
        text = base64.b64decode(value, validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        return False
    return bool(_PAIR.match(text))


_B64 = re.compile(r"^[A-Za-z0-9+/]+={0,2}$")
_PAIR = re.compile(r"^[^\s:]{1,128}:[^\s]{1,256}$")


def followed_by_code(line: str, end: int) -> bool:
    """The value ends where a call, an index or an attribute starts: code, not a literal."""
    if end >= len(line) or line[end] not in _CODE_NEXT:
        return False
    return line[end] != "." or (
        end + 1 < len(line) and (line[end + 1].isalnum() or line[end + 1] == "_")
    )


def stopword(value: str) -> bool:
    """A word that follows a secret keyword in prose without being its value."""
    return value.lower() in _STOPWORDS


def word_like(value: str) -> bool:
    """An ordinary word ("the", "required", "rotated"), not a chosen password."""
    low = value.lower()
    return low in _STOPWORDS or (value.islower() and bool(_ENGLISH_SUFFIX.match(value)))


def strong_value(value: str, *, numeric: bool = False) -> bool:
    """After a password word or name: anything but a placeholder or an ordinary word.

    A UUID counts (the name says it is a secret); a number of 4 to 11 digits counts only
    with ``numeric`` (``password is 84736251``, where a length or an age cannot be meant).
    """
    if numeric and _DIGITS.match(value):
        return True
    return (
        len(value) >= 3
        and value.count(" ") <= 5
        and not word_like(value)
        and not is_placeholder(value, uuid=True)
    )


def weak_value(value: str) -> bool:
    """After "key", "token", "secret", ...: only what looks generated (or a Basic pair)."""
    return (
        (looks_random(value) or encoded_pair(value))
        and not word_like(value)
        and not is_placeholder(value)
    )


REFERENCE = re.compile(r"\$\{[^{}]*\}?")
"""A shell or Compose variable's reference, with or without a default (``${JWT_SECRET:-x}``;
its closing brace may be cut off with a value's trailing punctuation): never itself a
secret's value."""


def unquote(line: str, start: int, end: int) -> Span:
    """Narrow a value's span past quotes and trailing punctuation."""
    if end - start >= 2 and line[start] in "\"'`" and line[end - 1] == line[start]:
        return start + 1, end - 1
    while end > start and line[end - 1] in TRAILING:
        end -= 1
    return start, end


def occurrences(text: str, word: str) -> Iterator[int]:
    """Where ``word`` occurs in ``text``, overlapping occurrences included."""
    at = text.find(word)
    while at >= 0:
        yield at
        at = text.find(word, at + 1)


def matches_at(regex: re.Pattern[str], line: str, starts: Iterable[int]) -> Iterator[re.Match[str]]:
    r"""``regex.finditer(line)`` for a pattern whose every match starts at one of ``starts``.

    ``starts`` are ascending places where a match can begin (where the literal text it
    begins with occurs). Trying only those, in order, each after the end of the last
    match, finds the same matches as scanning every position (no match is empty);
    ``match(line, at)`` sees the text before ``at``, so ```` and look-behinds are judged
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


def group_spans(
    regex: re.Pattern[str], line: str, *groups: str, found: Iterable[re.Match[str]] | None = None
) -> Iterator[Span]:
    """The spans of ``groups`` in each match (``found``: the matches, if not all of ``regex``).

    A group's value is taken past its quotes; a placeholder is skipped.
    """
    for match in regex.finditer(line) if found is None else found:
        for group in groups:
            if match.group(group) is not None:
                start, end = unquote(line, *match.span(group))
                if not is_placeholder(line[start:end]):
                    yield start, end


_NAME_PARTS = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")
_SECRET_LAST = frozenset({"credential", "credentials", "apikey", "pwd", "passphrase", "bearer"})
_KEY_QUALIFIERS = frozenset(
    {"api", "access", "secret", "private", "auth", "client", "master", "signing", "encryption",
     "service", "account", "license", "app", "admin", "deploy", "webhook", "session", "shared",
     "subscription", "storage", "primary", "secondary", "sas", "hmac", "ssh", "gpg", "pgp"}
)  # fmt: skip
_WEAK_LAST = frozenset({"key", "pw", "cookie", "auth"})
_NOT_SECRET_LAST = frozenset(
    {"id", "ids", "name", "names", "file", "path", "dir", "url", "uri", "length", "len", "type",
     "field", "env", "var", "count", "ttl", "expiry", "expires", "header", "prefix", "suffix",
     "hash", "sha", "digest", "fingerprint", "limit", "ms", "size", "policy", "basis", "mode",
     "format", "version", "label", "kind", "tokens", "keys", "help", "description", "days",
     "hours", "minutes", "seconds", "timeout", "attempts", "retries", "rounds", "iterations",
     "min", "max", "algorithm", "algo", "hasher", "method", "scheme", "provider", "backend",
     "source", "manager", "store", "ref", "arn", "param", "required", "enabled", "rotation",
     "regex", "pattern", "validator", "reset", "hint", "prompt", "placeholder", "message",
     "error", "template", "stdin", "fd", "location", "endpoint", "host", "port", "user",
     "username", "login", "email", "age", "strength", "policies", "schema", "class"}
)  # fmt: skip
"""``TOKEN_FILE``, ``api_key_name``, ``max_tokens``: a secret's metadata, not a secret."""
_PASS_WORDS = ("password", "passwd", "passwort", "passphrase", "passcode", "secret")
_NOT_PASS = frozenset({"bypass", "compass", "surpass", "overpass", "underpass", "trespass"})


def _password_part(part: str, alone: bool) -> bool:
    """``password``, ``storepass``, ``keypass``, ``passin``: a part naming a password.

    ``pass`` alone is not one (``PASS: TestParse`` is a test report).
    """
    if any(word in part for word in _PASS_WORDS):
        return True
    if part.endswith("pass") and part not in _NOT_PASS:
        return not (alone and part == "pass")
    return part in ("passin", "passout", "pwd")


@functools.lru_cache(maxsize=2048)
def name_strength(name: str) -> str | None:
    """``strong``, ``weak`` or None: how surely a variable, flag or key of this name holds a secret.

    Strong: a password word in any part (``DB_PASSWORD``, ``storepass``, ``ks-pass``), a
    token, credential or qualified key last (``GITHUB_TOKEN``, ``api_key``, ``AccountKey``),
    ``auth`` and ``ident`` together (``npmAuthIdent``). Weak: a key, cookie or ``pw`` after
    another word (``cache_key``, ``SESSION_COOKIE``), and ``auth`` (``_auth``,
    ``basic_auth``). None when the last part names a secret's metadata (``TOKEN_FILE``,
    ``max_tokens``, ``password_min_length``) or the key is public (``PUBLIC_KEY``).
    """
    parts = [p.lower() for p in _NAME_PARTS.findall(name)]
    if not parts or parts[-1] in _NOT_SECRET_LAST:
        return None
    last = parts[-1]
    if ("public" in parts or "pub" in parts) and last in ("key", "keys", "cert", "certificate"):
        return None  # PUBLIC_KEY, ssh_pub_key: shared by design
    qualified_key = last == "key" and len(parts) > 1 and parts[-2] in _KEY_QUALIFIERS
    alone = len(parts) == 1
    if (
        any(_password_part(part, alone) for part in parts)
        or last in _SECRET_LAST
        or last.endswith("token")
        or qualified_key
        or (last == "ident" and "auth" in parts)
    ):
        return "strong"
    weak = last in _WEAK_LAST and (not alone or last == "auth")
    return "weak" if weak else None


def password_last(name: str) -> bool:
    """Does the name end in a password word (so a number after it is a PIN, not a length)?"""
    parts = [p.lower() for p in _NAME_PARTS.findall(name)]
    return bool(parts) and _password_part(parts[-1], len(parts) == 1)
