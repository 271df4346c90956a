r"""Private keys in every container people paste: found in whole texts, before line rules.

A private key spans lines, so it is found in the whole text (its lines may also be joined
by ``\n`` escapes, as in a JSON string): PEM blocks of any kind (PKCS#1, PKCS#8, encrypted
PKCS#8, SEC1, OpenSSH, PGP armour, and the SSH2/SECSH ``---- BEGIN ... ----`` form), PuTTY
``.ppk`` files (from their header, or from ``Private-Lines:`` when the header was cut, to
the ``Private-MAC``), minisign and signify secret keys (the line after their ``untrusted
comment``), and the private members of a JSON Web Key. A block that is not closed runs to
the end of the text (it was cut).

A key also travels as one base64 token with no header: the DER of a PKCS#1, PKCS#8, SEC1
or PKCS#12 key (recognised by its ASN.1 opening, :func:`private_der`) or a whole key file
encoded again (``LS0tLS1CRUdJTi...`` in a Kubernetes secret, :func:`holds_key`).
"""

from __future__ import annotations

import base64
import binascii
import re

Span = tuple[int, int]

_END = r"(?:\\[rn]|[\r\n]|\s)*"
PEM_RE = re.compile(
    r"-{4,5} ?BEGIN [A-Z0-9 ]*(?:PRIVATE|SECRET) KEY(?: BLOCK)? ?-{4,5}.*?"
    r"(?:-{4,5} ?END [A-Z0-9 ]*(?:PRIVATE|SECRET) KEY(?: BLOCK)? ?-{4,5}|\Z)",
    re.DOTALL,
)
"""A PEM or SSH2 private-key block, header to footer."""
PPK_RE = re.compile(
    r"(?:PuTTY-User-Key-File-\d+:|Private-Lines:\s*\d+).*?(?:Private-MAC:\s*[0-9a-fA-F]+|\Z)",
    re.DOTALL,
)
"""A PuTTY key file, from its header (or its private lines) to its MAC."""
SIGNED_KEY_RE = re.compile(
    r"untrusted comment:[^\n]*?secret key(?:\\n|\n|\s)+(?P<value>[A-Za-z0-9+/]{40,}={0,2})"
)
"""A minisign or signify secret key: the base64 line after its comment."""
JWK_RE = re.compile(r"\\?\"(?:d|p|q|dp|dq|qi|k)\\?\"\s*:\s*\\?\"(?P<value>[A-Za-z0-9_-]{16,})\\?\"")
"""A private member of a JSON Web Key (the text names a ``kty``)."""
_KEY_WORDS = ("PRIVATE KEY", "SECRET KEY", "PuTTY-User-Key-File", "Private-Lines", "openssh-key-v1")


def block_spans(text: str) -> list[Span]:
    """The spans of every private-key block in ``text``, in order (they do not overlap)."""
    found: list[Span] = []
    if "BEGIN" in text:
        found += [m.span() for m in PEM_RE.finditer(text)]
    if "PuTTY-User-Key-File-" in text or "Private-Lines:" in text:
        found += [m.span() for m in PPK_RE.finditer(text)]
    if "untrusted comment:" in text:
        found += [m.span("value") for m in SIGNED_KEY_RE.finditer(text)]
    if "kty" in text:
        found += [m.span("value") for m in JWK_RE.finditer(text)]
    merged: list[Span] = []
    for start, end in sorted(found):
        if merged and start < merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


def replace_blocks(text: str, mark: str) -> str:
    """``text`` with every private-key block replaced by ``mark``."""
    spans = block_spans(text)
    for start, end in reversed(spans):
        text = text[:start] + mark + text[end:]
    return text


_B64_TOKEN = re.compile(r"[A-Za-z0-9+/_-]{24,}={0,2}")
"""A base64 (or base64url) token long enough to hold a key or an encoded secret."""
_PBE_OIDS = (
    bytes.fromhex("06092a864886f70d0105"),  # PKCS#5 PBES1/PBES2
    bytes.fromhex("060a2a864886f70d010c01"),  # PKCS#12 password-based encryption
)


def base64_tokens(line: str) -> list[re.Match[str]]:
    """The tokens of ``line`` that may be base64 (24+ characters of its alphabet)."""
    return list(_B64_TOKEN.finditer(line))


def decoded(token: str, limit: int = 1 << 16) -> bytes | None:
    """``token`` decoded as base64 or base64url (None if it is neither)."""
    token = token[:limit].rstrip("=")
    token = token[: len(token) - len(token) % 4] if len(token) % 4 == 1 else token
    padded = token + "=" * (-len(token) % 4)
    try:
        if "-" in token or "_" in token:
            return base64.urlsafe_b64decode(padded)
        return base64.b64decode(padded, validate=True)
    except (binascii.Error, ValueError):
        return None


def _after_length(data: bytes, at: int) -> int:
    """Where a DER element's content starts, given where its length byte is (-1: bad)."""
    if at >= len(data):
        return -1
    first = data[at]
    if first < 0x80:
        return at + 1
    count = first & 0x7F
    return at + 1 + count if 1 <= count <= 3 else -1


def private_der(token: str) -> bool:
    """Does base64 ``token`` open like the DER of a private key (or a PKCS#12 bundle)?

    A SEQUENCE, then: INTEGER 0 and an INTEGER or SEQUENCE (PKCS#1, DSA, PKCS#8); INTEGER 1
    and an OCTET STRING or SEQUENCE (SEC1, PKCS#8 v2); INTEGER 3 and a SEQUENCE (PKCS#12);
    or a SEQUENCE holding a password-based-encryption algorithm (encrypted PKCS#8).
    Certificates, public keys and signatures open differently.
    """
    if len(token) < 40 or token[0] != "M":
        return False
    head = decoded(token[:64])
    if head is None or len(head) < 12 or head[0] != 0x30:
        return False
    at = _after_length(head, 1)
    if at < 0 or at + 4 > len(head):
        return False
    version, after = head[at : at + 3], head[at + 3]
    if version == b"\x02\x01\x00":
        return after in (0x02, 0x30)
    if version == b"\x02\x01\x01":
        return after in (0x04, 0x30)
    if version == b"\x02\x01\x03":
        return after == 0x30
    if head[at] != 0x30:  # SEQUENCE { SEQUENCE { OID, parameters }, OCTET STRING }
        return False
    inner = _after_length(head, at + 1)
    return inner >= 0 and any(head[inner : inner + len(oid)] == oid for oid in _PBE_OIDS)


def text_of(token: str) -> str | None:
    """The text base64 ``token`` encodes, if it encodes readable text (else None).

    Only its first part is decoded to decide, so an image or a hash costs little.
    """
    head = decoded(token[:48])
    if head is None or not _readable(head[:30]):
        return None
    whole = decoded(token)
    if whole is None:
        return None
    try:
        text = whole.decode("utf-8")
    except UnicodeDecodeError:
        return None
    return text if _readable(whole[:512]) else None


def _readable(data: bytes) -> bool:
    if not data:
        return False
    printable = sum(1 for byte in data if 32 <= byte < 127 or byte in (9, 10, 13))
    return printable >= len(data) * 0.95


def holds_key(text: str) -> bool:
    """Does ``text`` (decoded from base64) hold a private-key block?"""
    if "openssh-key-v1" in text:
        return True
    return any(word in text for word in _KEY_WORDS) and bool(block_spans(text))
