"""Tokens known by their documented prefix, found wherever they stand, with no name beside them.

Providers give their tokens a fixed prefix so that scanners can find them (GitHub's
``ghp_``, Hugging Face's ``hf_``, Doppler's ``dp.st.``, age's ``AGE-SECRET-KEY-1``, ...).
:data:`PREFIXED` lists each family as the providers document it: the prefix, then the
characters and length of the rest. detect-secrets knows some of them too; both are kept.
A token is found in a sentence, a URL, a command or a file (``login with hf_...``): no
keyword is needed. A line is scanned for tokens when a run of token characters in it begins
with a literal, or follows one (:func:`near_token`); the patterns are tried only where a
token may begin (:func:`token_starts`), so a long line costs little.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from lorebook.secrets.libscan import has_any
from lorebook.secrets.values import Span, looks_random, matches_at, occurrences

PREFIXED: tuple[tuple[str, str], ...] = (
    # (the literals the token begins with, space-separated; the token's pattern)
    # source forges and registries
    ("ghp_ gho_ ghu_ ghs_ ghr_", r"gh[pousr]_[A-Za-z0-9]{30,}"),
    ("github_pat_", r"github_pat_[A-Za-z0-9_]{40,}"),
    ("glpat- gldt- glft- glsoat- glrt- glcbt- glimt- glptt- glagent- gloas- glffct- glwt-",
     r"gl(?:pat|dt|ft|soat|rt|cbt|imt|ptt|agent|oas|ffct|wt)-[\w-]{20,}(?:\.[\w-]+)?"),
    ("glc_", r"glc_[A-Za-z0-9+/]{32,}={0,3}"),
    ("GR1348941", r"GR1348941[\w-]{20,}"),
    ("npm_", r"npm_[A-Za-z0-9]{36,}"),
    ("pypi-", r"pypi-[\w-]{50,}"),
    ("rubygems_", r"rubygems_[a-f0-9]{48}"),
    ("CLOJARS_", r"CLOJARS_[A-Za-z0-9]{60}"),
    ("oy2", r"oy2[a-z0-9]{43}"),
    ("dckr_pat_ dckr_oat_", r"dckr_(?:pat|oat)_[\w-]{20,}"),
    ("ATBB", r"ATBB[A-Za-z0-9]{28,}"),
    ("ATATT", r"ATATT[\w=-]{50,}"),
    ("sgp_", r"sgp_[\w]{40,}"),
    ("bkua_", r"bkua_[a-f0-9]{40}"),
    ("CCIPAT_", r"CCIPAT_[\w]{20,}"),
    ("sqp_ squ_ sqa_", r"sq[pau]_[a-f0-9]{40}"),
    # cloud providers
    ("A3T AKIA ASIA ABIA ACCA", r"(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}"),
    ("ABSK", r"ABSK[A-Za-z0-9+/]{100,}={0,2}"),
    ("AIza", r"AIza[\w-]{35}"),
    ("ya29.", r"ya29\.[\w-]{20,}"),
    ("GOCSPX-", r"GOCSPX-[\w-]{24,}"),
    ("1//0", r"1//0[\w-]{30,}"),
    ("Q~", r"[A-Za-z0-9_~.]{3}\dQ~[A-Za-z0-9_~.-]{31,34}"),
    ("AccountKey=", r"AccountKey=[A-Za-z0-9+/=]{40,}"),
    ("dop_v1_ doo_v1_ dor_v1_", r"do[opr]_v1_[a-f0-9]{64}"),
    ("dapi", r"dapi[a-f0-9]{32}(?:-\d)?"),
    ("dose", r"dose[a-f0-9]{32}"),
    ("LTAI", r"LTAI[A-Za-z0-9]{20}"),
    ("HRKU-", r"HRKU-[\w-]{20,}"),
    ("fo1_", r"fo1_[\w-]{40,}"),
    ("fm1 fm2_", r"fm[12][ar]?_[A-Za-z0-9+/]{50,}={0,3}"),
    ("nfp_", r"nfp_[A-Za-z0-9]{36,}"),
    ("sbp_", r"sbp_[a-f0-9]{40}"),
    ("sb_secret_", r"sb_secret_[\w-]{20,}"),
    ("pscale_tkn_ pscale_pw_ pscale_oauth_", r"pscale_(?:tkn|pw|oauth)_[\w=-]{8}[\w.=-]{24,}"),
    ("napi_", r"napi_[a-z0-9]{60,}"),
    ("atlasv1", r"[A-Za-z0-9]{14}\.atlasv1\.[\w=-]{60,}"),
    ("pul-", r"pul-[a-f0-9]{40}"),
    ("tskey-", r"tskey-(?:auth-|api-|client-|scim-|webhook-)?[\w-]{20,}"),
    # secret stores and key tools
    ("hvs. hvb. hvr.", r"hv[sbr]\.[\w-]{20,}"),
    ("dp.", r"dp\.(?:pt|st|ct|sa|said|scim|audit)\.(?:[\w-]{2,35}\.)?[A-Za-z0-9]{40,44}"),
    ("ops_", r"ops_eyJ[A-Za-z0-9+/=_-]{50,}"),
    ("A3-", r"A3-[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})(?:-[A-Z0-9]{5}){3}"),
    ("AGE-SECRET-KEY-1 AGE-PLUGIN-",
     r"(?i:AGE-SECRET-KEY-1|AGE-PLUGIN-[A-Z0-9-]+-1)(?i:[qpzry9x8gf2tvdw0s3jn54khce6mua7l]{40,})"),
    ("RWRTY0Iy RWRCSwAAA", r"RWR(?:TY0Iy|CSwAAA)[A-Za-z0-9+/]{40,}={0,2}"),
    ("b3BlbnNzaC1rZXktdjE", r"b3BlbnNzaC1rZXktdjE[A-Za-z0-9+/]{8,}={0,2}"),
    ("Private-MAC:", r"Private-MAC:\s*[0-9a-fA-F]{40,}"),
    # chat, mail, payments, SaaS
    ("xox", r"xox[a-z]-[A-Za-z0-9-]{10,}"),
    ("xapp-", r"xapp-\d-[A-Za-z0-9-]{10,}"),
    ("sk_live_ rk_live_ pk_live_ sk_prod_ rk_prod_ pk_prod_",
     r"(?:sk|rk|pk)_(?:live|prod)_[A-Za-z0-9]{10,}"),
    ("sk_test_ rk_test_", r"(?:sk|rk)_test_[A-Za-z0-9]{10,}"),
    ("whsec_", r"whsec_[A-Za-z0-9+/=]{20,}"),
    ("sq0atp- sq0csp-", r"sq0(?:atp|csp)-[\w-]{22,}"),
    ("EAA", r"EAA[A-Za-z0-9]{30,}"),
    ("SG.", r"SG\.[\w-]{16,}\.[\w-]{16,}"),
    ("SK", r"SK[0-9a-fA-F]{32}"),
    ("key-", r"key-[0-9a-f]{32}"),
    ("xkeysib-", r"xkeysib-[a-f0-9]{64}-[A-Za-z0-9]{16}"),
    ("PMAK-", r"PMAK-[a-f0-9]{24}-[a-f0-9]{34}"),
    ("NRAK- NRII- NRJS- NRAA-", r"NR(?:AK|II|JS|AA)-[A-Za-z0-9]{19,}"),
    ("shp", r"shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}"),
    ("shippo_live_ shippo_test_", r"shippo_(?:live|test)_[a-f0-9]{40}"),
    ("duffel_live_ duffel_test_", r"duffel_(?:live|test)_[\w=-]{40,}"),
    ("dt0c01.", r"dt0c01\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{64}"),
    ("EZAK EZTK", r"EZ[AT]K[A-Za-z0-9]{54}"),
    ("FLWSECK", r"FLWSECK(?:_TEST)?-[a-h0-9]{32}-X"),
    ("fio-u-", r"fio-u-[\w=-]{64}"),
    ("lin_api_", r"lin_api_[A-Za-z0-9]{30,}"),
    ("ntn_", r"ntn_[A-Za-z0-9]{40,}"),
    ("secret_", r"secret_[A-Za-z0-9]{40,}"),
    ("figd_", r"figd_[\w-]{30,}"),
    ("sntrys_ sntryu_", r"sntry[su]_[A-Za-z0-9_=+/]{40,}"),
    ("glsa_", r"glsa_[A-Za-z0-9_]{32,}"),
    ("rdme_", r"rdme_[a-z0-9]{70}"),
    ("tfp_", r"tfp_[\w-]{40,}"),
    ("pnu_", r"pnu_[A-Za-z0-9]{36}"),
    ("ico-", r"ico-[A-Za-z0-9]{32}"),
    ("p8e-", r"p8e-[A-Za-z0-9]{32}"),
    ("tk-us-", r"tk-us-[\w-]{48}"),
    ("sha256~", r"sha256~[\w-]{43}"),
    ("API-", r"API-[A-Z0-9]{26}"),
    ("CFPAT-", r"CFPAT-[\w-]{40,}"),
    ("AKCp", r"AKCp[A-Za-z0-9]{60,}"),
    # AI providers
    ("sk-", r"sk-(?:ant-(?:api|admin|oat|ort)\d\d-|ant-|proj-|svcacct-|admin-|or-v1-)?[\w-]{20,}"),
    ("hf_", r"hf_[A-Za-z0-9_]{30,}"),
    ("api_org_", r"api_org_[A-Za-z]{30,}"),
    ("gsk_", r"gsk_[A-Za-z0-9]{40,}"),
    ("xai-", r"xai-[A-Za-z0-9]{40,}"),
    ("r8_", r"r8_[A-Za-z0-9]{30,}"),
    ("nvapi-", r"nvapi-[\w-]{40,}"),
    ("pplx-", r"pplx-[A-Za-z0-9]{40,}"),
    ("pcsk_", r"pcsk_[\w]{40,}"),
    ("lsv2_pt_ lsv2_sk_", r"lsv2_(?:pt|sk)_[a-f0-9]{32}_[a-f0-9]{10}"),
    ("csk-", r"csk-[a-z0-9]{40,}"),
    ("tvly-", r"tvly-[\w-]{30,}"),
    ("jina_", r"jina_[A-Za-z0-9]{40,}"),
    ("fw_", r"fw_[A-Za-z0-9]{24,}"),
)  # fmt: skip
"""Each documented token family: the literals it begins with (or holds) and its pattern."""

_MIDDLE = ("Q~", "atlasv1")
"""Literals inside their token rather than at its start."""
PREFIXED_RE = re.compile(
    r"(?<![A-Za-z0-9_-])(?:"
    + "|".join(pattern for literals, pattern in PREFIXED if literals not in _MIDDLE)
    + r")",
    re.ASCII,
)
"""Every family of :data:`PREFIXED` that begins with its literal, as one pattern."""
MIDDLE_RE = re.compile(
    r"(?<![A-Za-z0-9_~.-])(?:"
    + "|".join(pattern for literals, pattern in PREFIXED if literals in _MIDDLE)
    + r")(?![A-Za-z0-9_~.-])",
    re.ASCII,
)
"""The families whose literal is inside the token (Azure AD's ``Q~``, Terraform's
``.atlasv1.``)."""
CUT_RE = re.compile(
    r"(?<![A-Za-z0-9_-])(?:sk-|AKIA|ASIA|gh[pousr]_|github_pat_|glpat-|xox[abeprs]-|AIza|hf_"
    r"|npm_|pypi-|dop_v1_|shp(?:at|ss)_|dckr_pat_|(?:sk|rk)_live_|gsk_|xai-|r8_|nvapi-|hvs\."
    r"|dp\.(?:pt|st|ct|sa)\.|AGE-SECRET-KEY-1|tskey-|whsec_|GOCSPX-|pcsk_)"
    r"[A-Za-z0-9_.-]{2,160}(?=…|\.\.\.|$)",
    re.ASCII,
)
"""A token's prefix left at the end of text that was cut (``ghp_abc…``)."""
CUT_WORDS = (
    "sk-", "akia", "asia", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "glpat-",
    "xox", "aiza", "hf_", "npm_", "pypi-", "dop_v1_", "shpat_", "shpss_", "dckr_pat_",
    "sk_live_", "rk_live_", "gsk_", "xai-", "r8_", "nvapi-", "hvs.", "dp.pt.", "dp.st.",
    "dp.ct.", "dp.sa.", "age-secret-key-1", "tskey-", "whsec_", "gocspx-", "pcsk_",
)  # fmt: skip
"""Each prefix :data:`CUT_RE` finds, folded: a line holding none holds no cut token."""
_SHORT = ("fw_", "r8_", "key-", "SK", "EAA", "API-")
"""Prefixes short or common enough that the rest must also look generated."""
_STARTS = tuple(
    literal for literals, _ in PREFIXED if literals not in _MIDDLE for literal in literals.split()
)
"""Every literal a token of :data:`PREFIXED_RE` begins with (age's in either case)."""
_FOLDED_STARTS = ("age-secret-key-1", "age-plugin-")
LITERALS = (*_STARTS, *_MIDDLE)
"""Each literal as written (age's also in lower case): a line holding none of them holds no
token of :data:`PREFIXED`."""


_TOKEN_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=_-")
_IN_RUN = tuple(literal for literal in LITERALS if set(literal) <= _TOKEN_CHARS)
"""Literals made of characters a long run holds: the token's literal is in its run."""
_BEFORE_RUN = tuple(literal for literal in LITERALS if not set(literal) <= _TOKEN_CHARS)
"""Literals with a ``.``, ``:`` or ``~`` (``dp.st.``, ``Private-MAC:``): before the run."""
_PIECES = re.compile(r"[^+/=]+")
"""The pieces of a run between ``+``, ``/`` and ``=`` (a token may begin after one)."""


def near_token(text: str, start: int, end: int) -> bool:
    """Could the run of token characters ``text[start:end]`` be (in) a token of :data:`PREFIXED`?

    Its literal begins the run or a piece of it after ``+``, ``/`` or ``=``
    (``HF_TOKEN=hf_...``), or stands within 48 characters before it (``dp.st.dev.``).
    """
    run = text[start:end]
    pieces = _PIECES.findall(run) if ("=" in run or "/" in run or "+" in run) else (run,)
    for piece in pieces:
        if piece.startswith(_IN_RUN) or piece[:20].lower().startswith(_FOLDED_STARTS):
            return True
    if "1//0" in run or "AccountKey=" in run:  # literals holding a + / = of their own
        return True
    before = text[max(0, start - 48) : start]
    return has_any(before, _BEFORE_RUN)


_RUN_MARKS = bytes(ord("t") if chr(byte) in _TOKEN_CHARS else ord(" ") for byte in range(256))
_RUN = b"t" * 14
"""The shortest token of :data:`PREFIXED` that begins with its literal is 15 characters of
:data:`_TOKEN_CHARS`."""


def token_starts(line: str, low: str) -> list[int]:
    """Where a token of :data:`PREFIXED_RE` may begin in ``line``, in order.

    At the start of a run of token characters, or of a piece of one after ``+``, ``/`` or
    ``=``, that begins with a literal of :data:`_IN_RUN`; and where a literal of
    :data:`_BEFORE_RUN` (``dp.``, ``hvs.``, ``SG.``) or age's (either case) occurs. A token
    cannot begin elsewhere: its pattern needs no letter, digit, ``_`` or ``-`` before it.
    """
    starts: set[int] = set()
    for start, end in _runs(line):
        run = line[start:end]
        if run.startswith(_IN_RUN):
            starts.add(start)
        if "=" in run or "/" in run or "+" in run:
            for piece in _PIECES.finditer(run):
                if run.startswith(_IN_RUN, piece.start()):
                    starts.add(start + piece.start())
    starts.update(at for literal in _BEFORE_RUN for at in occurrences(line, literal))
    if "age-" in low:
        starts.update(at for literal in _FOLDED_STARTS for at in occurrences(low, literal))
    return sorted(starts)


def _runs(line: str) -> Iterator[tuple[int, int]]:
    """The runs of 14 or more :data:`_TOKEN_CHARS` in ``line`` (start, end)."""
    if not line.isascii():
        for match in _RUN_RE.finditer(line):
            yield match.span()
        return
    marks = line.encode("ascii").translate(_RUN_MARKS)
    at = marks.find(_RUN)
    while at >= 0:
        end = marks.find(b" ", at)
        end = len(marks) if end < 0 else end
        yield at, end
        at = marks.find(_RUN, end)


_RUN_RE = re.compile(r"[A-Za-z0-9+/=_-]{14,}")


def token_matches(line: str, low: str) -> Iterator[re.Match[str]]:
    """``PREFIXED_RE.finditer(line)``, tried only where :func:`token_starts` says."""
    return matches_at(PREFIXED_RE, line, token_starts(line, low))


def _generated_enough(token: str) -> bool:
    """A token of a short or common prefix counts only if its rest looks generated."""
    for prefix in _SHORT:
        if token.startswith(prefix):
            return looks_random(token[len(prefix) :])
    return True


def _spans(line: str, low: str) -> Iterator[Span]:
    for match in token_matches(line, low):
        if _generated_enough(match.group()):
            yield match.span()
    if "Q~" in line or "atlasv1" in line:
        for match in MIDDLE_RE.finditer(line):
            if looks_random(match.group()):
                yield match.span()
    # a cut token ends the line or stands before a cut's mark
    if has_any(low, CUT_WORDS):
        cut = 0 if ("…" in line or "..." in line) else max(0, len(line) - 200)
        for match in CUT_RE.finditer(line, cut):
            yield match.span()


GATES: dict[re.Pattern[str], Callable[[str, str], bool]] = {
    PREFIXED_RE: lambda line, low: bool(token_starts(line, low)),
    MIDDLE_RE: lambda line, low: "Q~" in line or "atlasv1" in line,
    CUT_RE: lambda line, low: has_any(low, CUT_WORDS),
}
"""Each pattern's gate ``(line, folded line)``: False only where the pattern cannot match."""


def spans(line: str, low: str) -> Iterator[Span]:
    """Every token of :data:`PREFIXED` in ``line`` (``low``: the folded line).

    Its patterns are tried only where a token may begin (:func:`token_starts`).
    """
    yield from _spans(line, low)
