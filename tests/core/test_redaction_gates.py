"""The fast redaction path skips only work that could not find anything.

Every gate in front of a pattern (a detector of detect-secrets, one of our rules, the
may-hold-a-secret test, the whole-text line selection) must be False only on lines where
the pattern it guards finds nothing. Checked on every line of the secrets corpus, the
recorded fixtures and real transcripts, lines with the letters case-insensitive matching
folds onto ASCII ones, and generated lines built from the pieces the gates look for.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
from collections.abc import Iterator

import pytest
from detect_secrets.core.potential_secret import PotentialSecret
from hypothesis import given, settings, strategies as st

from lorebook.secrets import assignments, commands, keys, libscan, redact, rules, tokens
from tests.conftest import SHARED, needs_shared
from tests.core.secrets_corpus import FALSE_POSITIVES, FORMS

GATES = {**rules.GATES, **commands.GATES, **tokens.GATES, **assignments.GATES}
"""Every pattern of our rules with the gate in front of it."""

FOLD_SWAPS = {"k": "\u212a", "s": "\u017f", "i": "\u0131", "I": "\u0130"}


def _swapped(line: str) -> Iterator[str]:
    """``line`` with each letter that has a non-ASCII case-insensitive twin swapped for it."""
    for ascii_letter, twin in FOLD_SWAPS.items():
        if ascii_letter in line:
            yield line.replace(ascii_letter, twin)


def _fixture_lines() -> list[str]:
    roots = [SHARED / "fixtures" / "harnesses", SHARED / "eval" / "transcripts"]
    lines: set[str] = set()
    for root in roots:
        for path in sorted(root.rglob("*")):
            if path.is_file() and path.suffix in (".jsonl", ".json", ".md", ".stdout", ".toml"):
                try:
                    lines.update(path.read_text(encoding="utf-8").split("\n"))
                except UnicodeDecodeError:
                    continue
    return sorted(lines)


def _corpus() -> list[str]:
    forms = [part for _, text, _ in FORMS for part in text.split("\n")] + list(FALSE_POSITIVES)
    swapped = [twin for line in forms for twin in _swapped(line)]
    extra = [
        'api_key = "Zq7Xw9Vy1Ut3Sr5Qp7On9Ml1"',
        "'Zq7Xw9Vy1Ut3Sr5Qp7On9' == my_password",
        'private_key "Zq7Xw9Vy1Ut3Sr5Qp7On9";',
        'secret => "Zq7Xw9Vy1Ut3Sr5Qp7On9"',
        "cloudant_password = " + "a" * 24,
        "ibm_cloud_iam_api_key: " + "Ab1" * 14 + "Ab",
        "token " + "\u0661" * 9 + ":" + "A" * 35,
        "mot de passe: Tr0ub4dor&3",
        "keep <PRIVATE>this</private> out, and <pr\u0131vate>this too",
        # one line each detector with a long value finds (fake values, built here)
        "softlayer_api_key = " + "ab12" * 16,
        "ibm_cos_hmac_secret_access_key = " + "a1b2c3" * 8,
        "mailchimp " + "a1" * 16 + "-us12",
        "discord M" + "a1" * 12 + ".Ab12Cd." + "Ef34" * 7,
        "telegram 123456789:" + "A1b2C" * 7,
        "twilio AC" + "a1" * 16,
        "sendgrid SG." + "a1" * 11 + "." + "B2c" * 14 + "x",
        "artifactory AKC" + "p8" * 6 + " and AP6" + "xY1" * 4,
        "https://user:" + "pa55w0rd" + "@db.internal",
        "azure AccountKey=" + "Ab1/" * 22,
        "gitlab glpat-" + "Ab1" * 7,
        "openai sk-" + "Ab1" * 7 + "T3BlbkFJ" + "Cd2" * 7,
        "pypi pypi-AgEIcHlwaS5vcmc" + "Ef3" * 24,
        "square sq0csp-" + "Gh4" * 15,
        # long runs that are not the value shapes of Cloudant, Discord or Telegram
        "cl_api_key = " + "a1" * 12,
        "cloudant_key: " + "Zyxwvutsrqponmlkjihgfedcba",
        "clou-pw = '" + "0123456789abcdef" * 4 + "'",
        "token vue3CompositionApiBestPractices." + "x" * 27,
        "discord M" + "a1" * 12 + "." + "Ab12Cd" + "_" + "Ef34" * 7,
        "telegram bot:" + "A1b2C" * 7 + " and 12345678 :" + "A1b2C" * 7,
        "class TokenizerConfigurationManagerFactory: key = 'abcdefghijklmnopqrstuvwxyz'",
        "clou_apikey = abcdefghijklmnopqrstuvwx",
        "CL-PASSWORD: '" + "0123456789abcdef" * 4 + "'",
        "https://acct:" + "abcdefghijklmnopqrstuvwx" + "@acct.cloudant.com/db key",
        "see https://docs.example.com/a:b/c@d and ftp://user:p@ss@host",
        # the patterns of the families a red team found, in shapes their gates must admit
        "HF_TOKEN=hf_AbCdEfGhIjKlMnOpQrStUvWxYzAbCdEf and x=api_org_AbCdEfGhIjKlMnOpQrStUvWxYz",
        "a+hf_AbCdEfGhIjKlMnOpQrStUvWxYzAbCdEf/ghp_AbCdEfGhIjKlMnOpQrStUvWxYzAbCd",
        "age-secret-key-1qpzry9x8gf2tvdw0s3jn54khce6mua7lqpzry9x8gf2tvdw0s3jn54k",
        "\t--password\tTr0ub4dor and --ks-pass=pass:Tr0ub4dor and -storepass:env KS",
        "the password\tfor root\tis Zebra77; use Zebra77 as\tthe password",
        "user root\tpass toorpass, PASS: TestParse, pass=C1fsPw!",
        "<password>x</password> <add name='api.token' value='Zq7Xw9Vy1Ut3Sr5Qp7On9'/>",
        "signingKeyPassword 'andr0idKs' and keyPassword \"andr0idKs\"",
        "net use \\\\srv\\s pw /user:u; net user u pw; htpasswd -nb u pw; sqlplus u/pw@db",
        "echo pw | sudo -S x; echo 'u:pw' | chpasswd; docker login --password-stdin <<< pw",
        "git config --global github.token ghp_x; setx API_TOKEN x; set -x DB_PASSWORD x",
        "redis-cli -a x; ldapsearch -w x; openssl enc -k x; keytool -new x; 7z a -px f",
        "https://x:p@ss@host/ and https://Zx81kQ0pLm29Wn5vT3@git.example.invalid/x",
        "?sig=Xk2%2Bq9LmN4pR7sT1vW3y&X-Amz-Signature=7d4e2f9a0c1b3e5d7f9a1c3e",
        "Cookie: sessionid=k2j3h4g5f6d7s8a9q0w1e2r3t4y5; cookies = {'sid': 'abc12345'}",
        "db.internal:5432:appdb:appuser:Qm4$vLp9",
        "- db.internal:*:*:appuser:Qm4$vLp9",
        "数据库密码是 Qw3rty!9 and パスワード\uff1aQw3rty!9",
        "abc8Q~Ab12Cd34Ef56Gh78Ij90Kl12Mn34Op5 and x.atlasv1.ab" + "c" * 60,
        "fatal: token ghp_abc… and sk-ant-ap...",
        json.dumps({"content": 'my password is "S3cr3t!x" and {"password": "Zq7Xw9Vy"}'}),
        '{"url": "https:\\/\\/deploy:p4ssw0rd@git.example.invalid\\/x.git"}',
        json.dumps({"text": "数据库密码是 Qw3rty!9, lösenordet är Sn0gubbe"}),
    ]
    return sorted({*forms, *swapped, *extra})


CORPUS = _corpus()
"""The lines of this repository; the recorded ones of ``../shared`` are checked apart."""
PIECES = st.sampled_from(
    [
        "password", "PASSWORD", "Passwd", "pwd", "pw", "key", "KEY", "api_key", "apiKey",
        "token", "Token", "secret", "SECRET", "credential", "creds", "auth", "bearer",
        "Authorization", "contraseña", "contrasena", "senha", "kennwort", "mot de passe",
        "aws", "cloudant", "cl", "softlayer", "ibm", "iam", "cos", "hmac", "slack",
        "hooks.slack.com", "xoxb-", "ghp_", "glpat-", "AKIA", "ASIA", "sk-", "sk_live_",
        "hf_", "SG.", "eyJ", "AKC", "AP", "AC", "SK", "-us", "pypi-AgE", "sq0csp-",
        "T3BlbkFJ", "AccountKey=", ":_authToken=", "PRIVATE KEY", "-----BEGIN", "<private>",
        "://", "@", "-u", "-p", "--user", "--token", "mysql", "docker login", "sshpass",
        ":", "=", "==", "!=", "=>", ":=", ";", "!!", "'", '"', "`", "[", "]", "(", ")",
        " ", " ", "  ", "\t", ".", "_", "-", "/", "+", "…", "...",
        "\u212a", "\u017f", "\u0131", "\u0130", "\u0661\u0662\u0663",
        "Zq7Xw9Vy1Ut3Sr5Qp7On9Ml1Kj3Ih5Gf7Ed9Cb1A", "a" * 24, "0123456789abcdef" * 4,
        "hunter2", "12345678", "ABCDEFGHIJKLMNOPQRSTUVWXYZ012345",
        # the families a red team found, and their kin
        "AbCdEfGhIjKlMnOpQrStUvWxYzAbCdEfGh", "api_org_", "dp.st.", "dev.", "hvs.",
        "AGE-SECRET-KEY-1", "age-secret-key-1", "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L",
        "PuTTY-User-Key-File-3:", "Private-Lines:", "Private-MAC:", "1", "sig=", "signature=",
        "X-Amz-Signature=", "?", "&", "net use", "net user", "keytool", "-storepass",
        "-keypass", "pass:", "env:", "/p:", "/rp", "/pass:", "\\\\srv\\share", "echo", "|",
        "chpasswd", "sudo -S", "--password-stdin", "<<<", "config set", "setx", "set -gx",
        "git config", "user-secrets set", "--from-literal=", "secret set", "--body",
        "<password>", "</password>", "value=", "key=", "kty", '"d"', "Cookie:", "sessionid",
        "Q~", "1//0", ".atlasv1.", "sqlplus", "jdbc:oracle:thin:", "connect", "vault login",
        "htpasswd -b", "redis-cli", "-a", "ldapsearch", "-w", "openssl", "-k", "7z", "zip",
        "-P", "smbclient", "%", "lftp", ",", " for ", " as ", " is ", "the", "root", "user",
        "login", "pass", "PASS", "creds", "admin/admin", "密码", "是", "public",
        "PUBLIC_KEY", "b3BlbnNzaC1rZXktdjE", "MIIEvQIBADAN", "LS0tLS1CRUdJTi",
        "untrusted comment:", "secret key", "\\n", '\\"', "{", "}", "~/", "<your",
        "\\/", "\\u5bc6\\u7801",
    ]
)  # fmt: skip
LINES = st.lists(PIECES, min_size=1, max_size=14).map("".join)


@pytest.fixture(scope="module")
def scanning() -> Iterator[None]:
    with redact.scan_settings():
        libscan.set_up()  # this test calls the library itself
        yield


def _library_found(line: str) -> list[PotentialSecret]:
    from detect_secrets.core.scan import scan_line

    return list(scan_line(line))


def _library_values(line: str) -> list[str]:
    return sorted(found.secret_value or "" for found in _library_found(line))


def _detector_misses(line: str) -> list[str]:
    """Detectors ruled out for ``line`` that would find something in it."""
    from detect_secrets.settings import get_plugins
    from detect_secrets.util.code_snippet import get_code_snippet

    allowed = libscan.detectors_for(line, libscan.folded(line))
    context = get_code_snippet(lines=[line], line_number=1)
    return [
        type(plugin).__name__
        for plugin in get_plugins()
        if type(plugin).__name__ not in allowed
        and plugin.analyze_line(filename=libscan.FILENAME, line=line, context=context)
    ]


def _rule_misses(line: str) -> list[str]:
    """Patterns whose gate rules ``line`` out although they match it."""
    low = libscan.folded(line)
    missed = [rx.pattern[:40] for rx, gate in GATES.items()
              if not gate(line, low) and rx.search(line)]  # fmt: skip
    if redact.strip_private(line) == line and redact.PRIVATE_RE.search(line):
        missed.append("PRIVATE_RE")
    if "BEGIN" not in line and keys.PEM_RE.search(line):
        missed.append("PEM_RE")
    ppk_words = "PuTTY-User-Key-File-" in line or "Private-Lines:" in line
    if not ppk_words and keys.PPK_RE.search(line):
        missed.append("PPK_RE")
    if "untrusted comment:" not in line and keys.SIGNED_KEY_RE.search(line):
        missed.append("SIGNED_KEY_RE")
    return missed


SECRET_WORDS = re.compile(
    r"pass|pwd|\bpw\b|key|token|secret|credential|creds|auth|bearer|contrase|senha|kennwort"
    r"|://[^\s/]*:[^\s/]*@|-----BEGIN|\s-[pu]|--user|…$",
    re.IGNORECASE,
)
"""The may-hold-a-secret words as one case-insensitive pattern, as they were first written."""


def _may_hold_reference(line: str) -> bool:
    """The may-hold-a-secret test as it was first written (the test may only grow)."""
    found = redact._LONG_TOKEN.findall(line)
    return bool(SECRET_WORDS.search(line)) or any(map(redact._generated, found))


def _our_spans(line: str, low: str) -> list[tuple[int, int]]:
    """What our rules find in ``line`` (the library's detectors keep their own minimums)."""
    modules = (tokens, assignments, rules, commands)
    return [span for module in modules for span in module.spans(line, low)] + list(
        redact._encoded_spans(line)
    )


def _same(found: object, scanned: object) -> bool:
    return [m.span() for m in found] == [m.span() for m in scanned]  # type: ignore[attr-defined]


def _check(line: str) -> list[str]:
    """Every way the fast path could disagree with the full rules on ``line``."""
    problems = [f"detector {name}" for name in _detector_misses(line)]
    problems += [f"rule {name}" for name in _rule_misses(line)]
    if sorted(libscan.secret_values(line, libscan.folded(line))) != _library_values(line):
        problems.append("library values")
    low = libscan.folded(line)
    may_hold = redact._may_hold_secret(line, low)
    if _may_hold_reference(line) and not may_hold:
        problems.append("may hold a secret")
    if not may_hold and _our_spans(line, low):
        problems.append("a rule finds a secret on a line never scanned")
    shortcuts = {
        "prose matches": (rules.prose_matches(line, low), rules.PROSE_RE.finditer(line)),
        "flag matches": (commands.flag_matches(line), commands.FLAG_RE.finditer(line)),
        "token matches": (tokens.token_matches(line, low), tokens.PREFIXED_RE.finditer(line)),
        "assignment matches": (
            assignments.assignment_matches(line, low),
            assignments.ASSIGNMENT_RE.finditer(line),
        ),
        "prose for matches": (
            rules.prose_for_matches(line, low),
            rules.PROSE_FOR_RE.finditer(line),
        ),
        "user pass matches": (
            rules.user_pass_matches(line, low),
            rules.USER_PASS_RE.finditer(line),
        ),
        "reverse matches": (rules.reverse_matches(line, low), rules.REVERSE_RE.finditer(line)),
        "pgpass matches": (rules.pgpass_matches(line), rules.PGPASS_RE.finditer(line)),
    }
    problems += [name for name, (found, scanned) in shortcuts.items() if not _same(found, scanned)]
    runs = libscan._LONG_RUNS.findall(line)
    if libscan._longest_run(line) != (max(map(len, runs)) if runs else 0):
        problems.append("longest run")
    return problems


@pytest.mark.usefixtures("scanning")
def test_every_gate_agrees_with_its_pattern_on_every_corpus_line() -> None:
    assert len(CORPUS) > 1000
    disagreements = {line[:120]: found for line in CORPUS if (found := _check(line))}
    assert disagreements == {}
    # not vacuous: the library finds something on many corpus lines, every detector on some
    found = [f.type for line in CORPUS for f in _library_found(line)]
    assert len(found) > 40
    assert len(set(found)) == len(redact.PLUGINS)


@needs_shared  # the recorded fixtures and real transcripts are in ../shared
@pytest.mark.usefixtures("scanning")
def test_every_gate_agrees_with_its_pattern_on_the_shared_lines() -> None:
    lines = _fixture_lines()
    assert len(lines) > 1000
    disagreements = {line[:120]: found for line in lines if (found := _check(line))}
    assert disagreements == {}
    texts = ["\n".join(lines[i : i + 50]) for i in range(0, len(lines), 50)]
    full = [
        "\n".join(redact.redact_line(line) for line in redact.strip_blocks(text).split("\n"))
        for text in texts
    ]
    assert redact.redact_many(texts) == full


@pytest.mark.usefixtures("scanning")
@settings(max_examples=400, deadline=None)
@given(LINES)
def test_every_gate_agrees_with_its_pattern_on_generated_lines(line: str) -> None:
    assert _check(line) == []


@settings(max_examples=200, deadline=None)
@given(st.lists(LINES, min_size=1, max_size=8))
def test_the_lines_to_scan_hold_every_line_that_may_hold_a_secret(lines: list[str]) -> None:
    text = "\n".join(lines)
    chosen = set(redact.lines_to_scan(text, lines))
    needed = {
        i for i, line in enumerate(lines) if redact._may_hold_secret(line, libscan.folded(line))
    }
    assert needed <= chosen


@pytest.mark.usefixtures("scanning")
def test_redacting_whole_fixture_texts_equals_redacting_every_line() -> None:
    texts = ["\n".join(CORPUS[i : i + 50]) for i in range(0, len(CORPUS), 50)]
    fast = redact.redact_many(texts)
    full = [
        "\n".join(redact.redact_line(line) for line in redact.strip_blocks(text).split("\n"))
        for text in texts
    ]
    assert fast == full
    assert any(redact.REDACTED in text for text in fast)


def test_folding_is_what_case_insensitive_matching_sees() -> None:
    letters = re.compile(r"(?i)[a-z]")
    word, space = re.compile(r"\w"), re.compile(r"\s")
    twins = {}
    for point in range(0x80, sys.maxunicode + 1):
        char = chr(point)
        if letters.fullmatch(char):
            twins[point] = next(c for c in "abcdefghijklmnopqrstuvwxyz"
                                if re.fullmatch(f"(?i){c}", char))  # fmt: skip
        low = libscan.folded(char)
        assert len(low) == 1, hex(point)
        assert not word.match(char) or word.match(low), hex(point)
        assert not space.match(char) or space.match(low), hex(point)
    assert twins == libscan.FOLDS
    for point, ascii_letter in twins.items():
        assert libscan.folded(f"x{chr(point)}y") == f"x{ascii_letter}y"
    assert libscan.folded("API_KEY \u0130") == "api_key i"


def test_the_gates_were_read_off_these_library_patterns() -> None:
    """detect-secrets 1.5's patterns; a release that changes them must re-derive the gates."""
    from detect_secrets.plugins import keyword
    from detect_secrets.settings import get_plugins
    from detect_secrets.util.filetype import determine_file_type

    with redact.scan_settings():
        libscan.set_up()
        plugins = {type(p).__name__: p for p in get_plugins()}
    assert sorted(plugins) == sorted(redact.PLUGINS)
    assert plugins.keys() == libscan.KNOWN
    table = keyword.REGEX_BY_FILETYPE.get(determine_file_type(libscan.FILENAME))
    assert table is None  # so the keyword detector uses its quotes-required patterns
    patterns = [rx.pattern for rx in keyword.QUOTES_REQUIRED_DENYLIST_REGEX_TO_GROUP]
    for name in sorted(plugins):
        found = getattr(plugins[name], "denylist", ())
        patterns += [f"{name}:{rx.pattern}:{rx.flags}" for rx in found]
    digest = hashlib.sha256("\n".join(patterns).encode()).hexdigest()
    assert digest == PATTERNS_SHA256


PATTERNS_SHA256 = "4798ea3681dc6998307e2216c040423a93ae12705324575686f68686fac1503b"


def test_a_scan_block_remembers_redacted_lines_and_answers_them_the_same(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(redact, "_MEMO", [])  # not inside another test's open block
    lines = CORPUS * 2
    with redact.scan_settings():
        remembered = [redact.redact_line(line) for line in lines]
    with monkeypatch.context() as patched:
        patched.setattr(redact, "MEMO_CHARS", 0)
        with redact.scan_settings():
            assert [redact.redact_line(line) for line in lines] == remembered
    scanned: list[str] = []
    real = redact.secret_spans

    def counted(line: str) -> list[tuple[int, int]]:
        scanned.append(line)
        return real(line)

    monkeypatch.setattr(redact, "secret_spans", counted)
    with redact.scan_settings():
        assert redact.redact_line("DB_PASSWORD=hunter2-prod") == "DB_PASSWORD=[REDACTED]"
        assert redact.redact_line("DB_PASSWORD=hunter2-prod") == "DB_PASSWORD=[REDACTED]"
    assert scanned == ["DB_PASSWORD=hunter2-prod"]  # the second answer came from memory
    with redact.scan_settings():  # a new block starts with nothing remembered
        redact.redact_line("DB_PASSWORD=hunter2-prod")
    assert len(scanned) == 2


@pytest.mark.parametrize(
    ("line", "kept"),
    [
        # a template value a document shows: quoted in a note, it was "[REDACTED]"
        ("API_KEY=your_api_key_here", True),
        ("OPENAI_API_KEY=your-openai-key", True),
        ("CRON_SECRET=your-secure-random-secret-here", True),
        ("API_KEY=sk-abc123def456ghi789jkl", False),
        ("password=yourPassw0rd99", False),  # no separator after "your": a real password
    ],
)
def test_a_template_value_is_no_secret(line: str, kept: bool) -> None:
    with redact.scan_settings():
        assert (redact.redact_line(line) == line) is kept
