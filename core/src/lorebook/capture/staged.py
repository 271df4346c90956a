"""A staged session log on disk: a small header and an append-only body. Standard library only.

``_sessions/<stem>.json`` is the header: every field of
:class:`~lorebook.models.session.SessionLog` but ``turns`` and ``injected``, plus
``body``: ``{"bytes": n, "turns": t, "injected": i}``, how much of the body is committed,
and capture's ``transcript_lines``: the lines of the ``transcript_length`` bytes read
(absent when unknown; see :mod:`lorebook.capture.progress`).
``_sessions/<stem>.jsonl`` is the body: one JSON object a line, ``{"turn": {...}}`` or
``{"injected": {...}}``, in transcript order.

Capture appends the new records to the body, makes them durable (fsync), and only then
replaces the header (atomically) with the new offset, hash and ``body.bytes``. A reader
reads the header, then the body up to ``body.bytes``: records past it (a capture that
crashed mid-append, a torn last line) are not part of the log, and the next capture cuts
them off before it appends. Nothing already staged is rewritten by capture.

A log written before this format (``lb_schema`` 1: one JSON file with ``turns`` and
``injected`` inline, no ``body``) is still read as it is; capture migrates it on first
touch. Every consumer reads through :func:`load_log`, which builds on :func:`read_log_data`.
"""

from __future__ import annotations

import contextlib
import json
import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator
    from pathlib import Path
    from typing import Any

    from lorebook.kb.paths import KBPaths
    from lorebook.models.session import SessionLog

SCHEMA = 2
"""``lb_schema`` of a header with a separate body."""
CHUNK = 1 << 20
INLINE_KEYS = ("turns", "injected")
HEADER_ONLY = ("body", "transcript_lines")
"""Header keys that are capture's bookkeeping, not fields of the session log."""


def tally_path(paths: KBPaths, stem: str) -> Path:
    """Where the follow-up keeps its tally of ``<stem>.json`` (:mod:`lorebook.stats.tally`)."""
    return paths.tallies / f"{stem}.json"


def load_log(path: Path) -> SessionLog | None:
    """Read a staged log (either format), or None when there is none.

    Raises:
        ValueError: the log is not valid (pydantic's ``ValidationError`` is one).
    """
    from lorebook.models.session import SessionLog

    data = read_log_data(path)
    return None if data is None else SessionLog.model_validate(data)


def body_path(header: Path) -> Path:
    """The body file of a header (``<stem>.jsonl`` beside ``<stem>.json``)."""
    return header.with_suffix(".jsonl")


def encode_record(kind: str, record: dict[str, Any]) -> bytes:
    """One body line: ``{"turn": ...}`` or ``{"injected": ...}`` and its newline."""
    return json.dumps({kind: record}).encode("ascii") + b"\n"


def encode_header(header: dict[str, Any]) -> bytes:
    """The header's bytes (``status`` within the first lines, where session start looks)."""
    text = json.dumps(header, indent=1, ensure_ascii=False) + "\n"
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate: escape everything instead
        return (json.dumps(header, indent=1) + "\n").encode("ascii")


def read_header(path: Path) -> dict[str, Any] | None:
    """The header as a dict (a legacy log: the whole log), or None when there is none.

    Raises:
        ValueError: the file is not a JSON object.
    """
    try:
        data = json.loads(path.read_bytes())
    except FileNotFoundError:
        return None
    if not isinstance(data, dict):
        raise ValueError(f"{path.name}: a session log must be a JSON object")
    return data


def is_legacy(header: dict[str, Any]) -> bool:
    """True for a log with its turns inline (``lb_schema`` 1, or written whole by a tool)."""
    return "body" not in header


def body_counts(header: dict[str, Any]) -> tuple[int, int, int]:
    """(committed bytes, turns, injections) of a header's body; zeros for a legacy log."""
    body = header.get("body")
    if not isinstance(body, dict):
        return 0, 0, 0
    values = [body.get(key) for key in ("bytes", "turns", "injected")]
    if not all(type(v) is int and v >= 0 for v in values):
        raise ValueError(f"the header's body is not valid: {body!r}")
    return values[0], values[1], values[2]  # type: ignore[return-value]


def iter_body(path: Path, committed: int, start: int = 0) -> Iterator[tuple[str, dict[str, Any]]]:
    """Yield (``turn`` | ``injected``, record) of the first ``committed`` body bytes.

    ``start``: the offset of a record to begin at (the end of an earlier read's records).

    Raises:
        ValueError: the committed part is shorter than the header says, or a line is not
            a record (a committed body is never torn: it was made durable first).
    """
    if committed <= start:
        return
    with open(body_path(path), "rb") as handle:
        handle.seek(start)
        left, rest = committed - start, b""
        while left > 0:
            chunk = handle.read(min(CHUNK, left))
            if not chunk:
                raise ValueError(f"{body_path(path).name}: shorter than its header says")
            left -= len(chunk)
            lines = (rest + chunk).split(b"\n")
            rest = lines.pop()
            for line in lines:
                yield _record(path, line)
        if rest:
            raise ValueError(f"{body_path(path).name}: the committed part ends mid-line")


def _record(path: Path, line: bytes) -> tuple[str, dict[str, Any]]:
    data = json.loads(line)
    if isinstance(data, dict) and len(data) == 1:
        ((kind, record),) = data.items()
        if kind in ("turn", "injected") and isinstance(record, dict):
            return kind, record
    raise ValueError(f"{body_path(path).name}: a line is neither a turn nor an injection")


def read_log_data(path: Path) -> dict[str, Any] | None:
    """The whole log as one dict (header fields, ``turns``, ``injected``), either format.

    Raises:
        ValueError: the header or the committed body is not valid.
    """
    header = read_header(path)
    if header is None or is_legacy(header):
        return header
    committed, _, _ = body_counts(header)
    data = {k: v for k, v in header.items() if k not in HEADER_ONLY}
    data["turns"], data["injected"] = [], []
    for kind, record in iter_body(path, committed):
        data["turns" if kind == "turn" else "injected"].append(record)
    return data


def body_lines(data: dict[str, Any]) -> tuple[list[bytes], list[bytes]]:
    """The body lines of a whole log: its ``turns``, then its ``injected``, in list order."""
    turns = [encode_record("turn", t) for t in data.get("turns", [])]
    return turns, [encode_record("injected", i) for i in data.get("injected", [])]


def header_of(data: dict[str, Any], committed: int) -> dict[str, Any]:
    """The header for a whole log whose body holds ``committed`` bytes."""
    header = {k: v for k, v in data.items() if k not in INLINE_KEYS}
    header["lb_schema"] = SCHEMA
    turns, injected = len(data.get("turns", [])), len(data.get("injected", []))
    header["body"] = {"bytes": committed, "turns": turns, "injected": injected}
    return header


def append_body(
    path: Path, committed: int, batches: Iterable[tuple[bytes, int, int]]
) -> tuple[int, int, int]:
    """Cut the body to ``committed`` bytes, append each batch, make them durable.

    ``batches`` yields (lines, turns in them, injections in them); each is written as it
    comes, so memory holds one batch. Returns (the body's new length, turns appended,
    injections appended). The header is the caller's to replace afterwards; until it is,
    the appended lines are not part of the log.
    """
    from lorebook.safeopen import open_file

    target = body_path(path)
    if committed == 0 and not os.path.lexists(target):
        return _new_body(target, batches)
    fd = open_file(str(target), os.O_RDWR | os.O_CREAT, 0o644)
    try:
        os.ftruncate(fd, committed)
        return _write_batches(fd, os.lseek(fd, committed, os.SEEK_SET), batches)
    finally:
        os.close(fd)


def _write_batches(
    fd: int, size: int, batches: Iterable[tuple[bytes, int, int]]
) -> tuple[int, int, int]:
    turns = injected = 0
    for data, batch_turns, batch_injected in batches:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        size += len(data)
        turns += batch_turns
        injected += batch_injected
    os.fsync(fd)
    return size, turns, injected


def _new_body(target: Path, batches: Iterable[tuple[bytes, int, int]]) -> tuple[int, int, int]:
    """A session's first body, written under a temporary name and renamed into place.

    A capture killed before its first lines are durable leaves no empty or partial body
    (the temporary file of a dead writer is swept by the next one); nothing is written
    when there is nothing to write.
    """
    from lorebook.kb.fsutil import sweep_dead_temps
    from lorebook.safeopen import AT, folder_of, temp_name

    sweep_dead_temps(target)
    with folder_of(str(target)) as folder:  # reached without following a link
        at = folder if AT else None
        name, tmp = (target.name, temp_name(target.name))
        if not AT:
            name, tmp = str(target), str(target.with_name(tmp))
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
        fd = os.open(tmp, flags | getattr(os, "O_BINARY", 0), 0o644, dir_fd=at)
        try:
            try:
                counts = _write_batches(fd, 0, batches)
            finally:
                os.close(fd)
            if counts[0]:
                os.replace(tmp, name, src_dir_fd=at, dst_dir_fd=at)
        finally:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp, dir_fd=at)
    return counts


def committed_body_matches(path: Path, header: dict[str, Any], turns: list[bytes],
                           injected: list[bytes]) -> bool:  # fmt: skip
    """True when the committed body holds exactly these turn and injection lines.

    Each kind is compared in its own order; how capture interleaved them does not matter.
    """
    committed, n_turns, n_injected = body_counts(header)
    if (n_turns, n_injected) != (len(turns), len(injected)):
        return False
    if committed != sum(map(len, turns)) + sum(map(len, injected)):
        return False
    try:
        with open(body_path(path), "rb") as handle:
            lines = handle.read(committed).splitlines(keepends=True)
    except FileNotFoundError:
        lines = []  # nothing was ever written: an empty log has no body file
    except OSError:
        return False
    on_turns = [line for line in lines if line.startswith(b'{"turn"')]
    on_injected = [line for line in lines if not line.startswith(b'{"turn"')]
    return on_turns == turns and on_injected == injected
