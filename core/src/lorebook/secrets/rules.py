"""The redaction rules for secrets as people write them: in prose, headers, URLs and cookies.

detect-secrets (see :mod:`lorebook.secrets.redact`) finds provider tokens by their shape
and ``name = "value"`` assignments in code. People in a coding session also write secrets
in prose ("the staging db password is hunter2", "the password for root is X", "use X as
the password", "login root / pass toor", in several languages), in HTTP headers
(``Authorization: <scheme> X``, cookies), and in URLs: a password of any length
(``redis://:pw@host``, ``postgres://u:p@ss@host``), a key as the user (Sentry's
``https://<key>@host/1``), a signature in the query (Azure's ``sig=``, S3's
``X-Amz-Signature=``) or a webhook's secret path. Each rule here yields the character spans
of secret values in one line; :mod:`redact` replaces them. Command lines are
:mod:`lorebook.secrets.commands`, tokens known by their prefix :mod:`lorebook.secrets.tokens`.

A value is judged by :mod:`lorebook.secrets.values`: after a password word anything but a
placeholder or an ordinary word, after a weaker word ("key", "token") only what looks
generated.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from lorebook.secrets.libscan import folded, has_any
from lorebook.secrets.values import (
    REFERENCE,
    Span,
    followed_by_code,
    group_spans,
    is_placeholder,
    looks_random,
    matches_at,
    occurrences,
    stopword,
    strong_value,
    unquote,
    weak_value,
    word_like,
)

URL_CREDENTIALS_RE = re.compile(
    r"[A-Za-z][A-Za-z0-9+.-]*://(?P<user>[^\s:/?#@\[\]'\"`]{0,128}):"
    r"(?!(?:\d*|\$\{?\w+\}?)[/?#])"
    r"(?P<value>[^\s'\"`]{0,127}?[^\s@'\"`])@(?=[A-Za-z0-9_.\[\]-]+(?:[:/?#\s'\"`,;)]|$))"
)
"""``scheme://user:password@host`` and ``scheme://:password@host``: the password, any
length, up to the first ``@`` a host name follows. People paste passwords unencoded, so
``@``, ``?``, ``#``, ``/`` and ``!`` may be in it (Supabase's generated ones hold them);
a port followed by a path (``host:8080/a@b``, ``localhost:${PORT}/@me``) is no password.
Both parts are bounded (128 characters), so a long line of URLs is scanned in linear time."""
URL_KEY_USER_RE = re.compile(
    r"[A-Za-z][A-Za-z0-9+.-]*://(?P<value>[A-Za-z0-9_.~%-]{16,})@[A-Za-z0-9.-]+(?=[/:?#\s'\"`]|$)"
)
"""``https://<key>@o1.ingest.sentry.io/2``, ``https://<token>@git.host/x.git``: a key as the
user (judged: it must look generated)."""
SIGNATURE_RE = re.compile(
    r"(?<![\w-])(?i:sig|signature|x-amz-signature|x-amz-security-token|x-goog-signature"
    r"|x-amz-credential|oauth_signature)=(?P<value>[^&#\s\"'`<>;,]{8,})"
)
"""A signature or session token in a query or a connection string (Azure SAS ``sig=``, S3's
and GCS's presigned URLs)."""
WEBHOOK_RE = re.compile(
    r"(?i:discord(?:app)?\.com/api/webhooks/\d+/|\.webhook\.office\.com/webhookb2/"
    r"|outlook\.office\.com/webhook/|maker\.ifttt\.com/(?:trigger/[^/\s]+/with/)?key/"
    r"|hooks\.zapier\.com/hooks/catch/\d+/|/hooks/(?=[a-z0-9]{26}\b))"
    r"(?P<value>[A-Za-z0-9_@./-]{8,})"
)
"""A webhook URL whose path is its secret (Discord, Teams, IFTTT, Zapier, Mattermost)."""
AUTH_HEADER_RE = re.compile(
    r"(?i:\b(?:proxy-)?authorization)[\"']?\s*[:=]\s*[\"']?"
    r"(?:(?P<scheme>[A-Za-z][\w-]*)\s+(?=[A-Za-z0-9._~+/=:$-]))?"
    r"(?!(?i:bearer|basic|token|digest|bot|apikey|negotiate|ntlm|ssws|hmac)\b)"
    r"(?P<value>[A-Za-z0-9._~+/=:-]{6,})(?P<after>\s+[^\s,;\"'])?"
    r"|(?i:\b(?:bearer|x-api-key|api-key|x-auth-token|private-token)\b)[\"']?\s*[:=]?\s*"
    r"(?P<bearer>[A-Za-z0-9._~+/=-]{8,})"
)
"""``Authorization: <scheme> X`` for any scheme (Bearer, Basic, SSWS, token, ...), a
scheme-less ``Authorization: X``, ``Bearer X`` and the API-key headers."""
COOKIE_RE = re.compile(
    r"(?i:\bcookies?\b)[\"']?\s*[:=]?\s*[\"'{]?(?P<pairs>[^\n`]{3,})"
    r"|(?<![\w-])(?:-b|--cookie)\s+(?P<q>[\"'])(?P<quoted>[^\"'\n]+)(?P=q)"
)
"""A ``Cookie:`` or ``Set-Cookie:`` header, a ``cookies`` mapping, curl's ``-b '...'``."""
_COOKIE_PAIR = re.compile(
    r"[\"']?(?P<name>[\w.%$-]{1,64})[\"']?\s*[=:]\s*[\"']?(?P<value>[^;,\s\"'}]+)"
)
_SESSION_NAMES = re.compile(r"(?i)sess|sid$|auth|token|remember|login|jwt|csrf|xsrf")

_STRONG = (
    r"pass(?:word|wd|phrase|code|wort|ord(?:et)?)s?|pwd|pw|contrase[nñ]a|senha|mot de passe"
    r"|mdp|kennwort|wachtwoord|has[lł]o|l[oö]senord(?:et)?|salasana|adgangskoden?|heslo|jelsz[oó]"
    r"|[sş]ifre|пароль|parola d'ordine|kata sandi|m[aậ]t kh[aẩ]u|p/w"
)
_WEAK = (
    r"secrets?|tokens?|api[ _-]?keys?|access[ _-]?keys?|private[ _-]?keys?|secret[ _-]?keys?"
    r"|keys?|credentials?|creds|auth|apikey|client[ _-]?secret"
)
_LINKS = (
    r"is|was|are|were|be|to|of|now|still|as|here|set to|changed to|reads|equals|es|est|ist"
    r"|era|é|è|är|er|je|jest|on|ni|adalah|là"
)
PROSE_RE = re.compile(
    rf"(?i:\b(?P<strong>{_STRONG}|pin(?: ?code)?)|\b(?P<weak>{_WEAK}))\b(?:['\u2019]s\b)?"
    rf"(?P<conn>(?:\s*(?P<sign>[:=\uff1a]|:=|=>|->)\s*|\s+(?:(?i:{_LINKS})\s+)*)(?:(?i:is|was)\s*:?\s*)?)"
    r"(?P<value>\"[^\"\n]{1,200}\"|'[^'\n]{1,200}'|`[^`\n]{1,200}`|[^\s\"'`]+)"
)
"""A secret keyword, an optional connector (is, was, =, :, ...), then the value."""
PROSE_FOR_RE = re.compile(
    rf"(?i:\b(?P<strong>{_STRONG}|pin(?: ?code)?)|\b(?P<weak>{_WEAK}))\s+(?i:for|of|on|to|at|in)\s+"
    r"(?:[^\s:=,;\uff1a]+\s+){0,4}?[^\s:=,;\uff1a]+?"
    r"(?:\s*(?P<sign>[:=\uff1a])\s*|\s+(?i:is|was|are|were|reads|equals)\s+(?:(?i:now|still)\s+)?)"
    r"(?P<value>\"[^\"\n]{1,200}\"|'[^'\n]{1,200}'|`[^`\n]{1,200}`|[^\s\"'`]+)"
)
"""``the password for root is X``, ``password for the staging db: X``: a keyword, what it
is for (up to five words), a connector, the value."""
REVERSE_RE = re.compile(
    r"(?<![^\s\"'`(])(?P<q>[\"'`]?)(?P<value>[^\s\"'`]{3,64})(?P=q)\s+"
    r"(?:(?i:as|for)\s+(?:(?i:the|my|your|our|his|her|their|its|a|an)\s+)?"
    r"|(?i:is|was)\s+(?i:the|my|our|your|his|her|their)\s+)"
    r"(?:[\w'-]+\s+)?(?i:password|passphrase|passcode|pw|pwd)\b"
    r"(?![ \t]+(?i:managers?|management|fields?|polic(?:y|ies)|hash(?:ing)?|reset|prompts?"
    r"|vaults?|stores?|storage|length|rules?|strength|protect(?:ion|ed)|generators?|apps?"
    r"|entry|box|input)\b)"
)
"""``use X as the password``, ``X is my password``: the value before the keyword (it must
look chosen: a digit, a symbol or a capital inside it)."""
USER_PASS_RE = re.compile(
    r"(?i:\b(?:user(?:name)?|login|logon|usr)\b)\s*[:=]?\s*[^\s,;/]+\s*[,;/]?\s*"
    r"(?i:\bpass\b)\s*[:=]?\s*(?P<value>[^\s\"'`,;]+)"
    r"|(?<![\w-])(?:pass|Pass)\s*[:=]\s*(?P<sign_value>[^\s\"'`,;]+)"
    r"|(?<![\w-])PASS\s*=\s*(?P<upper_value>[^\s\"'`,;]+)"
)
"""``user root pass toor``, ``pass: X``, ``pass=X`` (``PASS: TestX``, a test report, is not)."""
CJK_WORDS = ("密码", "密碼", "口令", "パスワード", "暗証番号", "비밀번호", "암호")
CJK_RE = re.compile(
    "(?:" + "|".join(r"\s*".join(word) for word in CJK_WORDS) + ")"
    r"\s*(?:是|为|為|は|\uff1a|:|=|는|은|이|가)?\s*"
    r"[「『\"']?(?P<value>[!-~]{3,64}?)[」』\"'。、,.]?(?=\s|$|[」』。、])"
)
"""A password word in Chinese, Japanese or Korean, then an ASCII value."""
PGPASS_RE = re.compile(
    r"(?<![^\s\"'`])(?:[\w.*\[\]-]*[A-Za-z*][\w.*\[\]-]*):(?:\d{1,5}|\*)"
    r":(?P<db>[^:\s\"'`]+):(?P<user>[^:\s\"'`]+):(?P<value>[^\s\"'`]+)(?=[\s\"'`]|$)"
)
"""A ``.pgpass`` line, ``host:port:database:user:password``, standing on its own (or quoted)."""
_PAIR_VALUE = re.compile(r"^[^/:\s]{1,64}[/:](?P<secret>[^/:\s]{3,64})$")
_CRED_WORDS = ("cred", "login", "logon")
_TOLD = re.compile(r"\d|[^\w\s.-]")
_CHOSEN = re.compile(r"[0-9]|[^A-Za-z0-9]|.[A-Z]")

_PROSE_STARTS = (
    "pass", "pw", "contrase", "senha", "mot de passe", "mdp", "kennwort", "wachtwoord",
    "hasło", "haslo", "lösenord", "losenord", "salasana", "adgangskode", "heslo", "jelsz",
    "şifre", "sifre", "пароль", "parola d", "kata sandi", "mật khẩu", "mat khau", "secret",
    "token", "api", "access", "private", "key", "cred", "auth", "client", "pin", "p/w",
)  # fmt: skip
"""How each keyword of :data:`PROSE_RE` begins (in the folded line): a match starts at one.
Every one holds a word of :data:`PROSE_WORDS`."""
PROSE_WORDS = (
    "pass", "pw", "contrase", "senha", "kennwort", "secret", "token", "key", "cred", "auth",
    "mdp", "wachtwoord", "hasło", "haslo", "senord", "salasana", "adgangskode", "heslo",
    "jelsz", "ifre", "пароль", "parola d", "kata sandi", "khẩu", "khau", "pin", "p/w",
)  # fmt: skip
"""What a line must hold for :data:`PROSE_RE` or :data:`PROSE_FOR_RE` (folded line)."""
_CJK_FIRST = tuple(sorted({word[0] for word in CJK_WORDS}))
"""The first character of each word of :data:`CJK_WORDS` (spaces may follow it)."""
_URL_GATE = ("://",)
_SIGNATURE_WORDS = ("sig=", "signature=", "x-amz-security-token=", "x-amz-credential=")
_WEBHOOK_WORDS = ("webhook", "ifttt", "zapier", "/hooks/")
_BEARER_WORDS = ("bearer", "api-key", "x-auth-token", "private-token")
_AUTHORIZATION = re.compile(r"authorization[\"']?\s*[:=]")
_REVERSE_WORDS = ("as", "for", "is", "was")


def prose_matches(line: str, low: str) -> Iterator[re.Match[str]]:
    """``PROSE_RE.finditer(line)``, tried where a keyword begins.

    A match starts where one of :data:`_PROSE_STARTS` occurs in ``low`` (the folded line:
    the same positions).
    """
    return matches_at(PROSE_RE, line, _prose_starts(low))


def _prose_starts(low: str) -> list[int]:
    """Where a keyword of :data:`PROSE_RE` (and :data:`PROSE_FOR_RE`) may begin."""
    return sorted({at for word in _PROSE_STARTS for at in occurrences(low, word)})


_SHORT_WORD = re.compile(r"[a-z]+(?:/[a-z]+)*")
"""Lower-case letters, or such words joined by slashes ("w/o", "n/a"): a word, no password."""


def _prose_ok(line: str, match: re.Match[str], start: int, end: int) -> bool:
    """Is the value of a prose match (narrowed to ``start:end``) a secret?"""
    value = line[start:end]
    if REFERENCE.fullmatch(value):
        return False  # a variable's reference; its default, if any, is judged on its own
    quoted = start != match.start("value")
    if quoted and value.count(" ") >= 3 and sum(map(word_like, value.split())) >= 2:
        return False  # a sentence quoted ("credentials: `Request failed with status code 401`")
    raw = match.group("value")
    if not quoted and (followed_by_code(line, end) or raw.endswith(":")):
        return False  # code, or a label ("password length: 12") rather than a value
    signed = match.group("sign") is not None
    before = line[max(0, match.start() - 7) : match.start()].lower()
    if before.endswith(("public ", "public-", "public_", "pub ")):
        return False  # a public key is no secret
    conn = match.groupdict().get("conn")
    explicit = signed or conn is None or bool(conn.strip())
    if match.group("strong") is None:
        return (
            weak_value(value)
            or _credential_pair(match, value, signed)
            or _told_secret(match, value, explicit)
        )
    if match.group("strong").lower().startswith("pin"):
        return explicit and value.isdigit() and 4 <= len(value) <= 12  # a PIN is digits
    if quoted:
        return len(value) >= 3 and value.count(" ") <= 5 and not is_placeholder(value, uuid=True)
    if signed and value.isalpha() and value.islower():
        return len(value) >= 3 and not stopword(value)  # "password: dragonfly" counts
    if not explicit and len(value) < 6 and _SHORT_WORD.fullmatch(value):
        return False  # "use pw w/o prompting me": a short word after a bare space
    return strong_value(value, numeric=explicit)


def _told_secret(match: re.Match[str], value: str, explicit: bool) -> bool:
    """``the secret is hunter2``, ``token: abc123``: a secret told after ``is`` or a sign.

    Only after "secret", "token" or "credentials" (not "key", which names many things),
    and only a value that looks chosen: a digit or a symbol in it (not "JWT-encoded").
    """
    word = match.group("weak").lower()
    if not explicit or not word.startswith(("secret", "token", "cred")):
        return False
    return _TOLD.search(value) is not None and strong_value(value)


def _credential_pair(match: re.Match[str], value: str, signed: bool) -> bool:
    """``creds: admin/admin``, ``login: root:toor``: a user and password pair after a sign."""
    word = match.group("weak").lower()
    if not (signed and has_any(word, _CRED_WORDS)):
        return False
    pair = _PAIR_VALUE.match(value)
    return pair is not None and not is_placeholder(value) and not value.startswith(("~", "."))


def prose_spans(line: str, low: str | None = None) -> Iterator[Span]:
    """Values after a secret keyword, in prose or as an unquoted assignment."""
    low = folded(line) if low is None else low
    for match in prose_matches(line, low):
        start, end = unquote(line, *match.span("value"))
        if _prose_ok(line, match, start, end):
            yield start, end
    for match in prose_for_matches(line, low):
        start, end = unquote(line, *match.span("value"))
        if _prose_ok(line, match, start, end):
            yield start, end


def prose_for_matches(line: str, low: str) -> Iterator[re.Match[str]]:
    """``PROSE_FOR_RE.finditer(line)``, tried where a keyword begins (as :data:`PROSE_RE`)."""
    return matches_at(PROSE_FOR_RE, line, _prose_starts(low))


def reverse_matches(line: str, low: str) -> Iterator[re.Match[str]]:
    """``REVERSE_RE.finditer(line)``, searched only around each password word.

    A match ends with one: its value and the words before the keyword fit in 160
    characters, and the words it must not be followed by in 36 after it.
    """
    ends = sorted({a for w in ("pass", "pw") for a in occurrences(low, w)})
    end = 0
    for at in ends:
        for match in REVERSE_RE.finditer(line, max(end, at - 160), at + 48):
            if match.start() >= end:
                end = match.end()
                yield match


def _reverse_spans(line: str) -> Iterator[Span]:
    for match in reverse_matches(line, folded(line)):
        value = match.group("value").rstrip(".,;:!?")
        if _CHOSEN.search(value) and strong_value(value):
            start = match.start("value")
            yield start, start + len(value)


def user_pass_matches(line: str, low: str) -> Iterator[re.Match[str]]:
    """``USER_PASS_RE.finditer(line)``, tried where ``user``, ``login`` or ``pass`` begins."""
    words = ("user", "login", "logon", "usr", "pass")
    return matches_at(USER_PASS_RE, line, sorted({a for w in words for a in occurrences(low, w)}))


def _user_pass_spans(line: str) -> Iterator[Span]:
    for match in user_pass_matches(line, folded(line)):
        for group in ("value", "sign_value", "upper_value"):
            if match.group(group) is not None:
                start, end = unquote(line, *match.span(group))
                # a number after "user x pass" is a PIN; after "pass:", a count of tests
                if strong_value(line[start:end], numeric=group == "value"):
                    yield start, end


def _cjk_spans(line: str) -> Iterator[Span]:
    for match in CJK_RE.finditer(line):
        if strong_value(match.group("value"), numeric=True):
            yield match.span("value")


def _url_spans(line: str) -> Iterator[Span]:
    for match in URL_CREDENTIALS_RE.finditer(line):
        # Up to the "@", all of it: a password may end in punctuation ("...xM7!@host").
        if not is_placeholder(match.group("value")):
            yield match.span("value")
    for match in URL_KEY_USER_RE.finditer(line):
        value = match.group("value")
        if looks_random(value) and not is_placeholder(value, uuid=True):
            yield match.span("value")


def _header_spans(line: str) -> Iterator[Span]:
    for match in AUTH_HEADER_RE.finditer(line):
        if match.group("value") is not None:
            # "Authorization: Bearer $TOKEN": the scheme word, then a reference
            if match.group("scheme") is None and match.group("after") is not None:
                continue
            if not is_placeholder(match.group("value")):
                yield match.span("value")
        elif match.group("bearer") is not None and weak_value(match.group("bearer")):
            yield match.span("bearer")


def _cookie_spans(line: str) -> Iterator[Span]:
    for match in COOKIE_RE.finditer(line):
        group = "pairs" if match.group("pairs") is not None else "quoted"
        offset = match.start(group)
        for pair in _COOKIE_PAIR.finditer(match.group(group)):
            value = pair.group("value")
            session = _SESSION_NAMES.search(pair.group("name")) is not None
            if weak_value(value) or (session and len(value) >= 8 and strong_value(value)):
                yield offset + pair.start("value"), offset + pair.end("value")


PGPASS_PORT = re.compile(r":(?:\d{1,5}|\*):[^:\s\"'`]+:[^:\s\"'`]+:[^\s\"'`]")
"""What every :data:`PGPASS_RE` match holds after its host: the port and three more fields."""
_HOST_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.*[]-")


def pgpass_matches(line: str) -> Iterator[re.Match[str]]:
    """``PGPASS_RE.finditer(line)``, tried only where a host ends in ``:port:f:f:x``.

    A match starts where its host's characters start (a space, a quote or the line's
    start before them), so each place :data:`PGPASS_PORT` finds names one start.
    """
    starts = []
    for found in PGPASS_PORT.finditer(line):
        at = found.start()
        while at > 0 and (line[at - 1] in _HOST_CHARS or line[at - 1].isalnum()):
            at -= 1
        starts.append(at)
    return matches_at(PGPASS_RE, line, sorted(set(starts)))


def _pgpass_spans(line: str) -> Iterator[Span]:
    for match in pgpass_matches(line):
        if match.group("db").isdigit() or match.group("user").isdigit():
            continue  # file.py:12:5:E501:... is a linter's report
        start, end = match.span("value")
        value = line[start:end]
        if _CHOSEN.search(value) and strong_value(value, numeric=True):
            yield start, end


def pgpass_line(line: str) -> bool:
    """Could ``line`` hold a ``.pgpass`` line (four colons in a row of fields)?"""
    return ":" in line and next(pgpass_matches(line), None) is not None


def _signature_spans(line: str) -> Iterator[Span]:
    for match in SIGNATURE_RE.finditer(line):
        if not is_placeholder(match.group("value")):
            yield match.span("value")


GATES: dict[re.Pattern[str], Callable[[str, str], bool]] = {
    URL_CREDENTIALS_RE: lambda line, low: "://" in line and "@" in line,
    URL_KEY_USER_RE: lambda line, low: "://" in line and "@" in line,
    SIGNATURE_RE: lambda line, low: "=" in line and has_any(low, _SIGNATURE_WORDS),
    WEBHOOK_RE: lambda line, low: has_any(low, _WEBHOOK_WORDS),
    AUTH_HEADER_RE: lambda line, low: (
        has_any(low, _BEARER_WORDS)
        or ("authorization" in low and _AUTHORIZATION.search(low) is not None)
    ),
    COOKIE_RE: lambda line, low: "cookie" in low or "-b '" in line or '-b "' in line,
    PROSE_RE: lambda line, low: has_any(low, PROSE_WORDS),
    PROSE_FOR_RE: lambda line, low: has_any(low, PROSE_WORDS),
    REVERSE_RE: lambda line, low: ("pw" in low or "pass" in low) and has_any(low, _REVERSE_WORDS),
    USER_PASS_RE: lambda line, low: "pass" in low,
    CJK_RE: lambda line, low: has_any(line, _CJK_FIRST),
    PGPASS_RE: lambda line, low: line.count(":") >= 4 and PGPASS_PORT.search(line) is not None,
}
"""Each pattern's gate ``(line, folded line)``: False only where the pattern cannot match."""
GATE_WORDS = (
    "://", *_SIGNATURE_WORDS, "webhook", "ifttt", "zapier", "/hooks/", "bearer",
    "api-key", "x-auth-token", "private-token", "authorization", "cookie", "-b '", '-b "',
    *PROSE_WORDS, *_CJK_FIRST,
)  # fmt: skip
"""Folded words one of which every line these rules can match holds (a line without any is
never scanned; a test checks each gate implies one)."""


def spans(line: str, low: str | None = None) -> Iterator[Span]:
    """Every secret span in ``line`` found by these rules (they may overlap).

    A pattern runs only when its :data:`GATES` entry passes (``low`` is the line as
    :func:`lorebook.secrets.libscan.folded` folds it); the spans are those of running
    every pattern.
    """
    low = folded(line) if low is None else low
    steps: tuple[tuple[re.Pattern[str], Callable[[str], Iterator[Span]]], ...] = (
        (URL_CREDENTIALS_RE, _url_spans),
        (SIGNATURE_RE, _signature_spans),
        (WEBHOOK_RE, lambda text: group_spans(WEBHOOK_RE, text, "value")),
        (AUTH_HEADER_RE, _header_spans),
        (COOKIE_RE, _cookie_spans),
        (PROSE_RE, lambda text: prose_spans(text, low)),
        (REVERSE_RE, _reverse_spans),
        (USER_PASS_RE, _user_pass_spans),
        (CJK_RE, _cjk_spans),
        (PGPASS_RE, _pgpass_spans),
    )
    for regex, found in steps:
        if GATES[regex](line, low):
            yield from found(line)
