"""The fast redaction path skips only work that could not find anything.

Every gate in front of a pattern (a detector of detect-secrets, one of our rules, the
may-hold-a-secret test, the whole-text line selection) must be False only on lines where
the pattern it guards finds nothing. Checked on every line of the secrets corpus, the
recorded fixtures and real transcripts, lines with the letters case-insensitive matching
folds onto ASCII ones, and generated lines built from the pieces the gates look for.
"""

from __future__ import annotations

import hashlib
import re
import sys
from collections.abc import Iterator

import pytest
from detect_secrets.core.potential_secret import PotentialSecret
from hypothesis import given, settings, strategies as st

from lorebook.capture import libscan, redact, rules
from tests.conftest import SHARED
from tests.core.secrets_corpus import FALSE_POSITIVES, FORMS

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
    forms = [line for _, line, _ in FORMS] + list(FALSE_POSITIVES)
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
    ]
    return sorted({*forms, *swapped, *extra, *_fixture_lines()})


CORPUS = _corpus()
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
    missed = [rx.pattern[:40] for rx, gate in rules.GATES.items()
              if not gate(line, low) and rx.search(line)]  # fmt: skip
    if redact._NAME_THEN_SIGN.search(low) is None and redact.ASSIGNMENT_RE.search(line):
        missed.append("ASSIGNMENT_RE")
    if redact.strip_private(line) == line and redact.PRIVATE_RE.search(line):
        missed.append("PRIVATE_RE")
    if "-----BEGIN" not in line and redact.PEM_RE.search(line):
        missed.append("PEM_RE")
    return missed


SECRET_WORDS = re.compile(
    r"pass|pwd|\bpw\b|key|token|secret|credential|creds|auth|bearer|contrase|senha|kennwort"
    r"|://[^\s/]*:[^\s/]*@|-----BEGIN|\s-[pu]|--user|…$",
    re.IGNORECASE,
)
"""The may-hold-a-secret words as one case-insensitive pattern, as they were first written."""


def _may_hold_reference(line: str) -> bool:
    """The may-hold-a-secret test as it reads, without any shortcut."""
    tokens = redact._LONG_TOKEN.findall(line)
    return bool(SECRET_WORDS.search(line)) or any(map(redact._generated, tokens))


def _check(line: str) -> list[str]:
    """Every way the fast path could disagree with the full rules on ``line``."""
    problems = [f"detector {name}" for name in _detector_misses(line)]
    problems += [f"rule {name}" for name in _rule_misses(line)]
    if sorted(libscan.secret_values(line, libscan.folded(line))) != _library_values(line):
        problems.append("library values")
    if redact._may_hold_secret(line, libscan.folded(line)) != _may_hold_reference(line):
        problems.append("may hold a secret")
    scanned = [m.span() for m in rules.PROSE_RE.finditer(line)]
    if [m.span() for m in rules.prose_matches(line, libscan.folded(line))] != scanned:
        problems.append("prose matches")  # tried only where a keyword begins
    if [m.span() for m in rules.flag_matches(line)] != [
        m.span() for m in rules.FLAG_RE.finditer(line)
    ]:
        problems.append("flag matches")  # tried only at a "-"
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
    needed = {i for i, line in enumerate(lines) if _may_hold_reference(line)}
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
