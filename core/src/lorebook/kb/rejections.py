"""The rejections ledger: fingerprints of claims a person rejected, so they stay rejected.

``review --reject`` (a curated note, or a conflict file) and ``conflict resolve --decision
reject`` record the fingerprint of the rejected claim in ``.lorebook/rejected-claims.txt``
(committed, shared by the team); ``lorebook curate`` drops every pending proposal whose
fingerprint is there, so re-importing or re-extracting a session does not bring the claim
back, under the same session id or a new one.

A claim's fingerprint is the first 16 hex digits of the sha256 of its normalised text:
title and description, each NFKC-normalised and case-folded, apostrophes removed (``don't``
-> ``dont``), every other run of characters that are not letters or digits (punctuation,
underscores, whitespace, line breaks) turned into one space, ends trimmed; then
``<title> | <description>``. The same claim extracted again matches whatever its spacing,
case or punctuation; a claim in other words does not (this is not a similarity measure).

The ledger holds no claim text (a rejected note may say what must not be committed): one
line per rejection, ``<fingerprint> <source>``, where ``source`` is ``review`` or
``conflict:<conflict id>`` (that file still shows the claim). Lines are sorted and ``#``
lines are comments, so two branches that each reject claims merge line by line; the same
fingerprint on two lines (rejected twice, or merged from two branches) is allowed.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from dataclasses import dataclass
from typing import TYPE_CHECKING

from lorebook.errors import NoteFormatError
from lorebook.kb.fsutil import atomic_write_text

if TYPE_CHECKING:
    from collections.abc import Iterable
    from pathlib import Path

    from lorebook.kb.paths import KBPaths

LEDGER_NAME = "rejected-claims.txt"
"""The ledger's file name, directly under ``.lorebook/``."""

FINGERPRINT_HEX = 16
HEADER = (
    "# Claims a person rejected: `lorebook curate` drops a proposal whose fingerprint is here.\n"
    "# One sorted line per rejection: <fingerprint> <source> (docs/format.md, Rejected claims).\n"
)
_APOSTROPHES = re.compile(r"['\u2019\u02bc`]")
_SEPARATORS = re.compile(r"[\W_]+")
_LINE = re.compile(rf"^(?P<fp>[0-9a-f]{{{FINGERPRINT_HEX}}}) (?P<source>\S+)$")
_SOURCE = re.compile(r"^(review|conflict:[A-Za-z0-9][A-Za-z0-9_.-]*)$")


def ledger_path(paths: KBPaths) -> Path:
    """``.lorebook/rejected-claims.txt``."""
    return paths.root / LEDGER_NAME


def _normalise(text: str) -> str:
    folded = unicodedata.normalize("NFKC", text).casefold()
    return _SEPARATORS.sub(" ", _APOSTROPHES.sub("", folded)).strip()


def normalise_claim(title: str, description: str) -> str:
    """The text a fingerprint is taken of (see the module docstring).

    >>> normalise_claim("  Never push to MAIN! ", "When you're publishing_changes.")
    'never push to main | when youre publishing changes'
    """
    return f"{_normalise(title)} | {_normalise(description)}"


def fingerprint(title: str, description: str) -> str:
    """The fingerprint of the claim a title and description make."""
    digest = hashlib.sha256(normalise_claim(title, description).encode("utf-8"))
    return digest.hexdigest()[:FINGERPRINT_HEX]


@dataclass(frozen=True, slots=True, order=True)
class RejectedClaim:
    """One line of the ledger: a rejected claim's fingerprint and how it was rejected."""

    fingerprint: str
    source: str


def parse_ledger(text: str, *, source: str) -> set[RejectedClaim]:
    """Validate the ledger text.

    Raises:
        NoteFormatError: a line is not ``<16 hex digits> <source>`` (the message names the
            file and line).
    """
    found: set[RejectedClaim] = set()
    for number, raw in enumerate(text.replace("\r\n", "\n").split("\n"), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        match = _LINE.match(line)
        if match is None or not _SOURCE.match(match["source"]):
            raise NoteFormatError(
                f"{source}:{number}: expected '<16 hex digits> review' or "
                f"'<16 hex digits> conflict:<id>', got {line!r}"
            )
        found.add(RejectedClaim(match["fp"], match["source"]))
    return found


def load_ledger(paths: KBPaths) -> set[RejectedClaim]:
    """Every rejection recorded (none when there is no ledger).

    Raises:
        NoteFormatError: the ledger is malformed.
    """
    path = ledger_path(paths)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return set()
    except (OSError, UnicodeDecodeError) as exc:
        raise NoteFormatError(f"{paths.rel(path)}: unreadable ({exc})") from None
    return parse_ledger(text, source=paths.rel(path))


def rejected_fingerprints(paths: KBPaths) -> dict[str, list[str]]:
    """Fingerprint -> the sources that rejected it, sorted."""
    found: dict[str, list[str]] = {}
    for item in sorted(load_ledger(paths)):
        found.setdefault(item.fingerprint, []).append(item.source)
    return found


def render_ledger(rejections: Iterable[RejectedClaim]) -> str:
    """The ledger text: the header, then one sorted line per rejection."""
    lines = [f"{r.fingerprint} {r.source}\n" for r in sorted(set(rejections))]
    return HEADER + "".join(lines)


def record_rejections(paths: KBPaths, rejections: Iterable[RejectedClaim]) -> list[RejectedClaim]:
    """Add rejections to the ledger; return those that were not in it yet.

    Every new line is validated before the file is written (atomically). The caller holds
    the knowledge base lock (``paths.lock``), so concurrent rejections never lose a line.

    Raises:
        NoteFormatError: the ledger on disk is malformed (nothing is written).
    """
    wanted = set(rejections)
    checked = parse_ledger(render_ledger(wanted), source="new rejections")
    current = load_ledger(paths)
    new = sorted(checked - current)
    if new:
        atomic_write_text(ledger_path(paths), render_ledger(current | checked))
    return new
