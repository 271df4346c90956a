"""What every importer shares: the error type, hashing, safe session ids, the log it makes."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from pathlib import Path

from lorebook.errors import LorebookError
from lorebook.models.session import LoggedTurn, SessionLog

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


class ImportFormatError(LorebookError):
    """A transcript export is not in the format it claims (names the file, line and field)."""


class NothingToImport(ImportFormatError):
    """A file of a known kind with nothing in it (an empty file, SpecStory's empty stub).

    Beside files that do import, it is named and passed over; alone, it is the error.
    """


def transcript_digest(data: bytes) -> str:
    """The ``transcript_hash`` of an imported file: sha256 of its bytes, in hex."""
    return hashlib.sha256(data).hexdigest()


def imported_log(
    harness: str, session_id: str, data: bytes, turns: Sequence[LoggedTurn]
) -> SessionLog:
    """The session log of an imported file's ``turns``, as ``harness`` session ``session_id``.

    Its origin is ``harness:session_id``; its hash and length are those of the file's bytes.
    """
    return SessionLog(
        harness=harness,
        session_id=session_id,
        origin=f"{harness}:{session_id}",
        transcript_hash=transcript_digest(data),
        transcript_length=len(data),
        turns=list(turns),
    )


def session_id_from_name(name: str) -> str:
    """A session id derived from a file name: its stem, reduced to ``[A-Za-z0-9._-]``.

    Deterministic, so importing the same file twice yields the same session (and the same
    staged log). A stem with letters outside ASCII ("书签组件-1", "résumé") keeps what is
    left and gains 8 hex digits of its sha256, so two names that differ only in those letters
    are two sessions, and a name with none left still has an id.
    """
    stem = Path(name).name
    for suffix in (".jsonl", ".json", ".md", ".markdown", ".txt"):
        if stem.lower().endswith(suffix):
            stem = stem[: -len(suffix)]
            break
    safe = _UNSAFE.sub("-", stem).strip("-.")
    if stem.isascii() and safe:
        return safe
    digest = hashlib.sha256(stem.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    return f"{safe}-{digest}" if safe else digest


def decode(data: bytes, source: str) -> str:
    """Decode UTF-8 (a byte-order mark is dropped), or fail naming the file and offset."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ImportFormatError(
            f"{source}: not UTF-8 text (byte {exc.start}: {exc.reason})"
        ) from exc
