r"""Secrets on command lines: password flags, client options, positional passwords, pipes.

Every tool has its own way to take a password, and a session runs many of them:

- a flag named for a secret, in any of the three styles: ``--password X``,
  ``--ks-pass pass:X``, ``-storepass X``, ``-passin pass:X``, ``-Password X``, ``/p:X``,
  ``/pass:X``, ``/rp X`` (the name is judged as a variable's is, so ``--password-stdin``,
  ``--token-file`` and ``-storepass:env`` are not secrets; :data:`FLAG_RE`);
- a short option that means a password only for some clients: ``mysql -pX``, ``7z -pX``,
  ``docker login -p X``, ``sshpass -p X``, ``zip -P X``, ``sqlcmd -P X``, ``psexec -p X``,
  ``redis-cli -a X``, ``ldapsearch -w X``, ``ssh-keygen -N X``, ``openssl enc -k X``,
  ``smbclient -U user%X``, ``lftp -u user,X``, ``curl -u user:X`` (:data:`CLIENT_PATTERNS`);
- a positional password: ``net use \\srv\share X /user:u``, ``net user u X``,
  ``htpasswd -b file u X``, ``sqlplus u/X@db``, ``vault login X``, ``poetry config
  http-basic.r u X`` (:data:`POSITIONAL_PATTERNS`);
- a secret piped or fed to a command that reads it: ``echo X | docker login
  --password-stdin``, ``echo 'u:X' | chpasswd``, ``echo X | sudo -S``, ``<<< X``
  (:data:`PIPE_RE`), and PowerShell's ``ConvertTo-SecureString 'X' -AsPlainText``;
- a setting stored by a command: ``npm config set //r/:_authToken X``, ``aws configure
  set aws_secret_access_key X``, ``setx API_TOKEN X``, ``set -gx DB_PASSWORD X``,
  ``dotnet user-secrets set K X``, and any value given to a command that stores secrets
  (``gh secret set K --body X``, ``az keyvault secret set --value X``, ``kubectl create
  secret --from-literal=k=X``; :data:`SETTING_PATTERNS`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from lorebook.secrets.libscan import has_any
from lorebook.secrets.values import (
    Span,
    is_placeholder,
    looks_random,
    matches_at,
    name_strength,
    occurrences,
    strong_value,
    unquote,
    weak_value,
)


def _value(name: str) -> str:
    """A value group: quoted (with its quotes, which :func:`unquote` drops) or bare."""
    return rf"(?P<{name}>(?P<{name}_q>['\"])[^'\"\n]+(?P={name}_q)|[^\s'\"`|;&)-][^\s'\"`|;&)]*)"


_VALUE = _value("value")
FLAG_RE = re.compile(
    r"(?<![\w/-])(?:(?P<dash>--?)(?P<name>[A-Za-z][\w.-]*?(?i:pass|pw|token|secret|key|auth|cred"
    r"|bearer|cookie)[\w.-]*?)(?P<mod>:(?:env|file|stdin|fd)\b)?(?:=|[ \t]+)"
    r"|/(?P<slash>(?i:p|pw|pwd|pass|password|passwd|rp|pword))(?::| +))" + _VALUE
)
"""A flag and its value: ``--name X``, ``--name=X``, ``-name X``, ``/name:X``, ``/name X``."""
_SLASH_PASSWORDS = frozenset({"p", "pw", "pwd", "pass", "password", "passwd", "rp", "pword"})
_DASH_PASSWORDS = frozenset({"pw", "pwd", "pass", "passwd", "password"})
_VALUE_FORMS = re.compile(r"^(?:pass|pw|password):(?P<secret>.+)$|^(?:env|file|fd|stdin)(?::|$)")
"""openssl's and apksigner's ``pass:X`` (the secret) against ``env:VAR``, ``file:path``."""

_Q = r"'[^'\n]*'|\"[^\"\n]*\"|[^\s'\"|;&]+"
_CLIENTS: tuple[tuple[tuple[str, ...], str, str, str], ...] = (
    # (words the line must hold, the commands, the option, how the value follows it:
    # "" attached, r"\s+" after spaces, r"\s*" either)
    (("mysql", "mariadb"), "mysql|mysqldump|mysqladmin|mysqlimport|mysqlcheck|mysqlpump"
     "|mariadb|mariadb-dump|mariadb-admin|mariadb-import", "-p", ""),
    (("7z", "rar"), "7z|7za|7zr|7zz|rar|unrar", "-p", ""),
    (("sshpass",), "sshpass", "-p", r"\s*"),
    (("zip", "sqlcmd", "bcp", "osql", "isql", "ssh-keygen"),
     "zip|unzip|zipcloak|sqlcmd|bcp|osql|isql|ssh-keygen", "-P", r"\s*"),
    (("ssh-keygen",), "ssh-keygen", "-N", r"\s*"),
    (("psexec", "paexec", "mongo", "rdesktop", "winrm", "winexe", "crackmapexec", "nxc",
      "hydra", "login"),
     "psexec|psexec\\.exe|paexec|mongo|mongosh|mongodump|mongorestore|mongoexport"
     "|mongoimport|mongostat|mongotop|rdesktop|evil-winrm|winexe|crackmapexec|nxc|hydra"
     "|docker\\s+login|podman\\s+login|helm\\s+registry\\s+login|nerdctl\\s+login"
     "|buildah\\s+login|skopeo\\s+login|oras\\s+login|az\\s+login|az\\s+acr\\s+login"
     "|crane\\s+auth\\s+login|regctl\\s+registry\\s+login", "-p", r"\s+"),
    (("redis-cli", "keydb-cli"), "redis-cli|keydb-cli", "-a", r"\s+"),
    (("ldap",), "ldapsearch|ldapmodify|ldapadd|ldapdelete|ldappasswd|ldapwhoami|ldapcompare"
     "|ldapmodrdn|ldapexop", "-w", r"\s+"),
    (("ldappasswd",), "ldappasswd", "-s", r"\s+"),
    (("openssl",), "openssl", "-k", r"\s+"),
    (("keytool",), "keytool", "-new", r"\s+"),
)  # fmt: skip
"""Clients whose short option takes a password (elsewhere ``-p`` is a port or a path)."""
CLIENT_PATTERNS: tuple[tuple[tuple[str, ...], re.Pattern[str]], ...] = (
    *(
        (words, re.compile(rf"\b(?:{names})(?![\w-])[^|;&\n]*?\s{flag}{gap}(?P<value>{_Q})"))
        for words, names, flag, gap in _CLIENTS
    ),
    (("smb",), re.compile(
        r"\bsmb(?:client|map|get|cacls)\b[^|;&\n]*?\s(?:-U|--user(?:=|\s+))\s*['\"]?"
        r"[^\s%'\"]+%(?P<value>[^\s'\"]+)"
    )),
    (("lftp",), re.compile(r"\blftp\b[^|;&\n]*?\s-u\s+['\"]?[^\s,'\"]+,(?P<value>[^\s'\"]+)")),
    (("-u", "--user"), re.compile(
        r"(?<![\w-])(?:-u|--user)\s*(?P<q>['\"]?)[^\s:'\"]*:(?P<value>[^\s'\"@]+)(?P=q)(?=\s|$)"
    )),
)  # fmt: skip
"""Each client's password option (its words, its pattern), ``smbclient -U user%X``,
``lftp -u user,X`` and ``-u user:X`` (curl and its kin)."""

POSITIONAL_PATTERNS: tuple[tuple[tuple[str, ...], re.Pattern[str]], ...] = (
    (("net use",), re.compile(r"\bnet\s+use\b(?P<value>[^|&\n]*)")),
    (("net user",), re.compile(
        r"\bnet\s+user\s+(?:\"[^\"]+\"|[^\s/\"]+)\s+(?P<value>\"[^\"]*\"|[^\s/*\"][^\s]*)"
    )),
    (("htpasswd",), re.compile(
        r"\bhtpasswd\s+-\w*b\w*\s+(?:\S+\s+){1,2}?(?P<value>" + _Q + r")(?=\s*(?:$|[|;&\"'`]))"
    )),
    (("sqlplus", "sqlldr", "expdp", "impdp", "rman ", "dgmgrl", "sqlcl"), re.compile(
        r"\b(?:sqlplus|sqlldr|expdp|impdp|rman|dgmgrl|sqlcl)\s+(?:-\S+\s+)*['\"]?[\w$#.]+/"
        r"(?P<value>[^\s@/'\"]+)"
    )),
    (("jdbc:oracle",), re.compile(r"\bjdbc:oracle:\w+:[\w$#.]+/(?P<value>[^\s@/'\"]+)@")),
    (("conn",), re.compile(r"(?i:\bconn(?:ect)?)\s+[\w$#.]+/(?P<value>[^\s@/'\"]+)@")),
    (("vault login",), re.compile(
        r"\bvault\s+login\s+(?:-\S+\s+)*(?P<value>[^\s=-][^\s=]*)(?=\s|$)"
    )),
    (("http-basic",), re.compile(
        r"\bpoetry\s+config\s+(?:--\S+\s+)*http-basic\.\S+\s+\S+\s+(?P<value>" + _Q + ")"
    )),
)  # fmt: skip
"""Passwords given as a bare argument (each pattern with the words its line must hold):
``net use ... X``, ``net user u X``, ``htpasswd -b f u X``, ``sqlplus u/X@db``,
``jdbc:oracle:thin:u/X@``, ``connect u/X@db``, ``vault login X``, ``poetry config
http-basic.r u X``."""
_NET_ARG = re.compile(r"\"[^\"]*\"|[^\s\"'`]+")
_NET_NOT_PASSWORD = re.compile(r"^(?:/|\\\\|[A-Za-z]:$|\*$|[A-Za-z]:\\)")

PIPE_RE = re.compile(
    r"\b(?:echo|printf)\s+(?:-[neE]+\s+)*(?:'%s(?:\\n)?'\s+|\"%s(?:\\n)?\"\s+)?"
    r"(?:(?P<pq>['\"])(?P<quoted>[^'\"\n]+)(?P=pq)|(?P<bare>[^\s'\"|;&<>]+))\s*\|\s*"
    r"(?P<reader>[^|\n]*)"
    r"|(?:--password-stdin|--with-token|\bsudo\s+-S|--stdin|\bchpasswd)[^|\n]*?<<<\s*"
    r"(?P<hq>['\"]?)(?P<here>[^\s'\"]+)"
)
"""``echo X | <a command that reads a secret>``, and a here-string fed to one."""
_READERS = re.compile(
    r"--password-stdin|--with-token|\bsudo\s+(?:-\w+\s+)*-S\b|\bsudo\s+--stdin|passwd\s+--stdin"
    r"|\bchpasswd\b|--passphrase-fd|\bsecret\s+create\b|\blogin\s+-(?:\s|$)|-passin\s+stdin"
    r"|\bcryptsetup\b|\bkinit\b|\bvault\s+login\s+-|\bgpg\b.*--passphrase|--password-file[= ]-"
)
SECURE_STRING_RE = re.compile(
    r"(?i:ConvertTo-SecureString)\s+(?:-String\s+)?(?P<q>['\"])(?P<value>[^'\"\n]+)(?P=q)"
)
"""PowerShell's ``ConvertTo-SecureString 'X' -AsPlainText``."""

SETTING_PATTERNS: tuple[tuple[tuple[str, ...], str | None, re.Pattern[str]], ...] = (
    # (words the line must hold, the group naming the setting (None: any name), pattern)
    (("config",), "name", re.compile(
        r"\b(?:config|configure)\s+(?:--?[\w-]+(?:=\S+)?\s+){0,4}set\s+(?:--?[\w-]+\s+){0,4}"
        r"(?P<name>[^\s=]+)\s+" + _value("value")
    )),
    (("git config",), "name", re.compile(
        r"\bgit\s+config\s+(?:--\S+\s+){0,4}(?P<name>[\w.-]+)\s+" + _value("value")
    )),
    (("setx", "set -"), "name", re.compile(
        r"\b(?:setx|set\s+-[a-zA-Z]*x[a-zA-Z]*)\s+(?P<name>[A-Za-z_]\w*)\s+" + _value("value")
    )),
    (("setenvironmentvariable",), "name", re.compile(
        r"SetEnvironmentVariable\(\s*['\"](?P<name>\w+)['\"]\s*,\s*(?P<value>['\"][^'\"\n]+['\"])"
    )),
    (("user-secrets",), None, re.compile(
        r"\buser-secrets\s+set\s+(?P<nq>['\"]?)[^'\"\s]+(?P=nq)\s+" + _value("value")
    )),
    (("from-literal",), None, re.compile(r"--from-literal[= ][^=\s]+=" + _value("value"))),
)  # fmt: skip
"""A secret a command stores: in a config key named for it, or as a literal."""
SECRET_COMMAND_RE = re.compile(
    r"(?i:\bsecrets?\s+(?:set|put|add|create|update)\b|\bcreate-secret\b|\bput-secret-value\b"
    r"|\bupdate-secret\b|\bput-parameter\b[^|\n]*\bSecureString\b)"
)
"""A command that stores a secret: every value it is given is one."""
STORED_VALUE_RE = re.compile(
    r"(?<![\w-])(?:--value|--body|-b|--secret-string|--secret-binary|--data)(?:=|\s+)"
    + _value("value")
    + r"|(?<![\w-])[A-Z][A-Z0-9_]*="
    + _value("pair")
)
"""A value given to a command of :data:`SECRET_COMMAND_RE`: a flag's, or a ``NAME=value``'s."""
_PIPE_WORDS = ("echo", "printf", "<<<")
"""What :data:`PIPE_RE` begins with: ``echo`` or ``printf`` piped, or a here-string."""
_SECRET_COMMAND_WORDS = ("secret", "put-parameter")


def flag_matches(line: str) -> Iterator[re.Match[str]]:
    """``FLAG_RE.finditer(line)``: a match starts at a ``-`` or a ``/``."""
    starts = sorted({*occurrences(line, "-"), *occurrences(line, "/")})
    return matches_at(FLAG_RE, line, starts)


def _flag_secret(match: re.Match[str], value: str) -> bool:
    """Is ``value``, given to this flag, a secret?"""
    if match.group("mod") is not None or value.startswith("-"):
        return False  # -storepass:env VAR; the next flag, not a value
    slash = match.group("slash")
    if slash is not None:
        name = slash.lower()
        return name in _SLASH_PASSWORDS and "=" not in value and strong_value(value)
    name = match.group("name")
    if match.group("dash") == "-" and len(name) == 1:
        return False  # -p, -k, -u: only some clients' (CLIENT_PATTERNS)
    strength = "strong" if name.lower() in _DASH_PASSWORDS else name_strength(name)
    if strength == "strong":
        return strong_value(value)
    return strength == "weak" and weak_value(value)


def _flag_spans(line: str) -> Iterator[Span]:
    for match in flag_matches(line):
        start, end = unquote(line, *match.span("value"))
        value = line[start:end]
        form = _VALUE_FORMS.match(value)
        if form is not None:
            if form.group("secret") is None:
                continue  # env:VAR, file:path, fd:3, stdin
            start += form.start("secret")
            value = form.group("secret")
        if _flag_secret(match, value):
            yield start, end


def _net_use_spans(match: re.Match[str]) -> Iterator[Span]:
    offset = match.start("value")
    for arg in _NET_ARG.finditer(match.group("value")):
        text = arg.group()
        if not _NET_NOT_PASSWORD.match(text) and strong_value(text.strip('"')):
            yield offset + arg.start(), offset + arg.end()


def _positional_spans(line: str, low: str) -> Iterator[Span]:
    for words, regex in POSITIONAL_PATTERNS:
        if not has_any(low, words):
            continue
        for match in regex.finditer(line):
            if words == ("net use",):
                yield from _net_use_spans(match)
                continue
            start, end = unquote(line, *match.span("value"))
            value = line[start:end]
            # Vault's older tokens (s.AbC...) read like code: judged by their look
            if strong_value(value) or (words == ("vault login",) and looks_random(value)):
                yield start, end


def _pipe_spans(line: str) -> Iterator[Span]:
    for match in PIPE_RE.finditer(line):
        if match.group("here") is not None:
            group = "here"
        elif _READERS.search(match.group("reader")) is None:
            continue
        else:
            group = "quoted" if match.group("quoted") is not None else "bare"
        start, end = match.span(group)
        value = line[start:end]
        if "chpasswd" in (match.group("reader") or "") and ":" in value:
            start += value.index(":") + 1  # user:password
        if strong_value(line[start:end]):
            yield start, end


def _setting_spans(line: str, low: str) -> Iterator[Span]:
    for words, name_group, regex in SETTING_PATTERNS:
        if not has_any(low, words):
            continue
        for match in regex.finditer(line):
            start, end = unquote(line, *match.span("value"))
            value = line[start:end]
            strength = (
                "strong" if name_group is None else _setting_strength(match.group(name_group))
            )
            if (strength == "strong" and strong_value(value)) or (
                strength == "weak" and weak_value(value)
            ):
                yield start, end
    if has_any(low, _SECRET_COMMAND_WORDS) and SECRET_COMMAND_RE.search(line) is not None:
        for match in STORED_VALUE_RE.finditer(line):
            group = "value" if match.group("value") is not None else "pair"
            start, end = unquote(line, *match.span(group))
            if strong_value(line[start:end]):
                yield start, end


def _setting_strength(name: str) -> str | None:
    """A setting's name judged by its last part (``//registry/:_authToken``, ``github.token``)."""
    parts = [part for part in re.split(r"[.:/]+", name) if part]
    return name_strength(parts[-1]) if parts else None


def _secure_string_spans(line: str) -> Iterator[Span]:
    for match in SECURE_STRING_RE.finditer(line):
        if not is_placeholder(match.group("value")):
            yield match.span("value")


def _client_spans(line: str, low: str) -> Iterator[Span]:
    for words, regex in CLIENT_PATTERNS:
        if not has_any(low, words):
            continue
        for match in regex.finditer(line):
            start, end = unquote(line, *match.span("value"))
            value = line[start:end]
            if not value.startswith("-") and strong_value(value):
                yield start, end


_CLIENT_WORDS = tuple(word for words, _ in CLIENT_PATTERNS for word in words)
_POSITIONAL_WORDS = tuple(word for words, _ in POSITIONAL_PATTERNS for word in words)


def _words_gate(words: tuple[str, ...]) -> Callable[[str, str], bool]:
    return lambda line, low: has_any(low, words)


_FLAG_WORDS = ("pass", "pw", "token", "secret", "key", "auth", "cred", "bearer", "cookie",
               "/p:", "/p ", "/rp")  # fmt: skip
GATES: dict[re.Pattern[str], Callable[[str, str], bool]] = {
    FLAG_RE: lambda line, low: ("-" in line or "/" in line) and has_any(low, _FLAG_WORDS),
    **{regex: _words_gate(words) for words, regex in (*CLIENT_PATTERNS, *POSITIONAL_PATTERNS)},
    PIPE_RE: lambda line, low: "<<<" in line or ("|" in line and has_any(low, _PIPE_WORDS)),
    SECURE_STRING_RE: lambda line, low: "securestring" in low,
    **{regex: _words_gate(words) for words, _, regex in SETTING_PATTERNS},
    SECRET_COMMAND_RE: lambda line, low: has_any(low, _SECRET_COMMAND_WORDS),
}
"""Each pattern's gate ``(line, folded line)``: False only where the pattern cannot match."""
GATE_WORDS = (
    *_FLAG_WORDS, *(w for words, _ in (*CLIENT_PATTERNS, *POSITIONAL_PATTERNS) for w in words),
    *_PIPE_WORDS, "securestring",
    *(w for words, _, _ in SETTING_PATTERNS for w in words), *_SECRET_COMMAND_WORDS,
)  # fmt: skip
"""Folded words one of which every line these rules can match holds."""


def spans(line: str, low: str) -> Iterator[Span]:
    """Every secret span the command-line rules find in ``line`` (``low``: folded)."""
    steps: tuple[tuple[re.Pattern[str], Callable[[str], Iterator[Span]]], ...] = (
        (FLAG_RE, _flag_spans),
        (PIPE_RE, _pipe_spans),
        (SECURE_STRING_RE, _secure_string_spans),
    )
    for regex, found in steps:
        if GATES[regex](line, low):
            yield from found(line)
    if has_any(low, _CLIENT_WORDS):
        yield from _client_spans(line, low)
    if has_any(low, _POSITIONAL_WORDS):
        yield from _positional_spans(line, low)
    yield from _setting_spans(line, low)
