"""The local read-only cache of an organisation's approved notes: what the hooks rank.

A folder per organisation under the per-user lorebook folder, laid out like the personal
store (``nodes/``, ``.cache/index.sqlite``, ``.state/``), so the hooks rank it beside the
repository's notes with the local index and never touch the network. :func:`refresh`
brings it up to date from the database: only the notes approved (or re-approved) since
the last refresh are fetched and written, the ones withdrawn are deleted, each approved
note is recorded as reviewed (a person approved exactly this text), then the index is
reconciled. It runs detached at session start (:mod:`lorebook_postgres.refresh`).
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from lorebook.errors import LorebookError
from lorebook.kb.fsutil import atomic_write_text, kb_lock
from lorebook.kb.paths import validate_relpath
from lorebook.kb.personal import PersonalPaths
from lorebook_postgres import schema
from lorebook_postgres.store import PostgresStore

MANIFEST = "postgres-cache.json"
"""In ``.state/``: note id -> [approved version, path under nodes/]."""
STATUS = "postgres-refresh.json"
"""In ``.state/``: the last refresh's outcome (ok, when, how many notes, the error)."""
FETCH_CHUNK = 2000


class RefreshBusyError(LorebookError):
    """Another process is refreshing this cache now."""


@dataclass(frozen=True, slots=True)
class Refreshed:
    """What one refresh did."""

    notes: int
    written: int
    removed: int
    seconds: float


def _state(paths: PersonalPaths, name: str) -> Path:
    return paths.root / ".state" / name


def read_json(path: Path) -> dict[str, Any]:
    """A JSON object from ``path`` ({} when missing or broken)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def last_status(paths: PersonalPaths) -> dict[str, Any]:
    """The last refresh's outcome ({} before the first)."""
    return read_json(_state(paths, STATUS))


def save_status(paths: PersonalPaths, **fields: Any) -> None:
    """Record a refresh's outcome (the last good one's time is kept on a failure)."""
    previous = last_status(paths)
    status = {"at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), **fields}
    if fields.get("ok"):
        status["last_ok"] = status["at"]
    elif "last_ok" in previous:
        status["last_ok"] = previous["last_ok"]
    atomic_write_text(_state(paths, STATUS), json.dumps(status, sort_keys=True) + "\n")


def _approved(store: PostgresStore, org: str) -> dict[str, tuple[int, PurePosixPath]]:
    """Every approved note's id -> (approved version, its path under nodes/)."""
    with store.pool().connection() as conn:
        rows = conn.execute(
            f"SELECT id, approved_version, folder FROM {schema.TABLE} "
            "WHERE org = %s AND approved_content IS NOT NULL",
            (org,),
        ).fetchall()
    found: dict[str, tuple[int, PurePosixPath]] = {}
    for note_id, version, folder in rows:
        try:  # a row no lorebook writer made is skipped, never written outside nodes/
            validate_relpath(note_id, what="note id")
            rel = PurePosixPath(f"{note_id}.md")
            if folder:
                rel = validate_relpath(folder, what="folder") / rel
        except LorebookError:
            continue
        found[note_id] = (int(version), rel)
    return found


def _fetch(store: PostgresStore, org: str, ids: list[str]) -> Iterator[tuple[str, str]]:
    """(id, approved text) of ``ids``, fetched in chunks."""
    with store.pool().connection() as conn:
        for start in range(0, len(ids), FETCH_CHUNK):
            yield from conn.execute(
                f"SELECT id, approved_content FROM {schema.TABLE} WHERE org = %s AND id = ANY(%s)",
                (org, ids[start : start + FETCH_CHUNK]),
            ).fetchall()


def refresh(store: PostgresStore) -> Refreshed:
    """Bring the cache in line with the organisation's approved notes.

    Raises:
        RefreshBusyError: another refresh holds the cache.
        UnreachableError: the database cannot be reached (the cache is left as it was).
    """
    started = time.monotonic()
    org = store._scope()
    paths = store.paths
    paths.nodes.mkdir(parents=True, exist_ok=True)
    with contextlib.ExitStack() as stack:
        try:
            stack.enter_context(kb_lock(paths.root / ".state" / "refresh.lock", timeout=0.1))
        except LorebookError:
            raise RefreshBusyError(f"the {org!r} cache is being refreshed now") from None
        written, removed, total = _apply(store, org, paths)
    return Refreshed(total, written, removed, time.monotonic() - started)


def _apply(store: PostgresStore, org: str, paths: PersonalPaths) -> tuple[int, int, int]:
    """Write what changed, delete what went, record the reviews, reconcile the index."""
    from lorebook import reviewstate
    from lorebook.kb.store import content_hash
    from lorebook.recall.sync import reconcile

    manifest = read_json(_state(paths, MANIFEST))
    wanted = _approved(store, org)
    changed = sorted(i for i, (v, rel) in wanted.items() if manifest.get(i) != [v, rel.as_posix()])
    gone = sorted(set(manifest) - set(wanted))
    hashes: dict[str, str] = {}
    for note_id, text in _fetch(store, org, changed):
        old = manifest.get(note_id)
        rel = wanted[note_id][1]
        if isinstance(old, list) and len(old) == 2 and old[1] != rel.as_posix():
            _unlink(paths, str(old[1]))
        _write_cached(paths.nodes / rel, text)
        hashes[note_id] = content_hash(text)
    for note_id in gone:
        old = manifest.get(note_id)
        if isinstance(old, list) and len(old) == 2:
            _unlink(paths, str(old[1]))
    if hashes and hasattr(os, "sync"):
        os.sync()  # once, before the manifest says they are written (not one fsync a note)
    reviewstate.forget(str(paths.root), gone)
    reviewstate.record(str(paths.root), hashes)  # a person approved exactly this text
    atomic_write_text(
        _state(paths, MANIFEST),
        json.dumps({i: [v, rel.as_posix()] for i, (v, rel) in sorted(wanted.items())}) + "\n",
    )
    reconcile(paths, build_pieces=False)
    return len(hashes), len(gone), len(wanted)


def _write_cached(path: Path, text: str) -> None:
    """Replace one cached note atomically (readers see the old text or the new, whole)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    temp.write_text(text, encoding="utf-8", newline="\n")
    os.replace(temp, path)


def _unlink(paths: PersonalPaths, rel: str) -> None:
    try:
        validate_relpath(rel, what="cached note")
        os.unlink(paths.nodes / rel)
    except (LorebookError, OSError):
        pass
