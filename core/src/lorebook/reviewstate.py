"""Which notes a person has reviewed: review comes before power.

A note acts (``lb_enforce: ask | deny``) and is served whole only once a person reviewed
it, as it is now:

- committed: git holds it at ``HEAD`` exactly as it is on disk;
- accepted with ``lorebook review --accept``;
- written by ``lorebook note add`` (a person at a shell; an agent that runs the command
  through its shell tool does so under the host's permission prompt, where the person sees
  it, so it counts as the person's too).

A person's command that rewrites a reviewed note without new claims from a tool (``note
supersede``, ``note refute``, ``note erratum``, ``note verify``) keeps it reviewed
(:class:`lorebook.recall.reviewkept.ReviewKept`); a rewrite curation proposed
(``conflict`` accept) is new text, so it waits for a commit like any other.

Everything else is unreviewed: what curation, bootstrap, harvest or a pack wrote, and any
file dropped into ``nodes/`` by hand or by an agent's file-write tool. What a note's own
front matter claims is never read for this: the review is bound to the note's content
hash (:func:`lorebook.kb.notes.content_hash`, the generated link section left out), so an
edit to a reviewed note, by anyone, makes it unreviewed until it is committed or accepted.

Where it is kept:

- ``.state/reviewed.json`` (gitignored, per machine): note id -> the content hash a person
  reviewed. ``note add`` and ``review --accept`` write it; so does the check below when it
  finds a note committed. A teammate's clone has its own: there the note counts from the
  moment it is committed.
- The note index (``docs.reviewed``, :mod:`lorebook.recall.writer`): every indexed note
  carries the verdict, computed when the note is indexed (its hash against the file) and
  updated when the file changes. Hooks read it with the note, so a prompt or a pre-tool
  event pays nothing more and never runs git. A note the index has no verdict for is
  unreviewed: the default fails closed.
- :func:`refresh` runs where the index is reconciled (session start, and every command
  that reconciles), and at a prompt about to serve an unreviewed note (a commit during the
  session reviews it): only while some indexed note is unreviewed, it runs ``git ls-tree``
  and ``git diff`` on ``nodes/`` once each and records the notes committed as they are;
  not again while git's files and those notes are as they were at its last look.

Not a boundary against an agent that forges lorebook's own files: one that rewrites
``.state/``, the index or the hook launcher (all in the work tree) can do anything a hook
can. It keeps a note file alone, however it got there, from acting.
Standard library only: the hook path reads it.
"""

from __future__ import annotations

import json
import os
from collections.abc import Collection, Iterable, Mapping

TYPE_CHECKING = False
if TYPE_CHECKING:
    from contextlib import AbstractContextManager

    from lorebook.recall.index import NoteIndex

RELATIVE = os.path.join(".state", "reviewed.json")
REPO_STORE = "markdown"
"""The name the repository's own store is served under (``lorebook.recall.stores.HOME``)."""
MAX_BYTES = 64 << 20
LABEL = "unreviewed: no person has committed or accepted it as it is; a suggestion only"
"""Put beside an unreviewed note's pointer (curation, bootstrap, harvest, a pack or a hand
that is not a person's review wrote it)."""
GIT_TIMEOUT_S = 5


def state_path(kb_root: str) -> str:
    """Where this machine keeps the reviews."""
    return os.path.join(kb_root, RELATIVE)


def reviews(kb_root: str) -> dict[str, str]:
    """Note id -> the content hash (sha256, hex) a person reviewed ({} when none)."""
    from lorebook.bounds import read_bounded

    try:
        data = json.loads(read_bounded(state_path(kb_root), MAX_BYTES))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {str(k): v for k, v in data.items() if isinstance(v, str) and _is_sha256(v)}


def _is_sha256(value: str) -> bool:
    return len(value) == 64 and not value.strip("0123456789abcdef")


def is_unreviewed(note: object) -> bool:
    """True when ``note`` (an indexed or served note) is the repository's and unreviewed.

    Notes of another store are never unreviewed here: a personal store holds what its owner
    wrote. A note that carries no verdict counts as unreviewed.
    """
    store = getattr(note, "store", REPO_STORE)
    return store == REPO_STORE and not getattr(note, "reviewed", False)


def _save(kb_root: str, state: Mapping[str, str]) -> None:
    from pathlib import Path

    from lorebook.kb.fsutil import atomic_write_text

    _set_aside_if_damaged(state_path(kb_root))
    text = json.dumps(dict(sorted(state.items())), indent=1) + "\n"  # one note a line
    atomic_write_text(Path(state_path(kb_root)), text)


def _set_aside_if_damaged(path: str) -> None:
    """Move a file :func:`reviews` could not read to ``<name>.damaged``, with one warning.

    Read as no review at all (fail closed), it would otherwise be replaced by the next
    write, and the reviews it held lost without a word; set aside, a person can mend it.
    """
    from lorebook.bounds import read_bounded

    try:
        if isinstance(json.loads(read_bounded(path, MAX_BYTES)), dict):
            return
    except FileNotFoundError:
        return
    except (OSError, ValueError):
        pass
    try:
        os.replace(path, path + ".damaged")
    except OSError:
        return
    import logging

    logging.getLogger(__name__).warning(
        "lorebook: %s could not be read as reviews; kept it as %s.damaged and started anew "
        "(committed notes count as reviewed again at the next check)",
        path,
        os.path.basename(path),
    )


def _locked(kb_root: str) -> AbstractContextManager[None]:
    from pathlib import Path

    from lorebook.kb.fsutil import kb_lock

    return kb_lock(Path(kb_root) / ".state" / "reviewed.lock", timeout=30)


def _index_file(kb_root: str) -> str:
    from lorebook.recall.index import index_path

    return index_path(kb_root)


def _flag(kb_root: str, state: Mapping[str, str], ids: Collection[str]) -> None:
    """Set the index's verdict of ``ids`` from ``state`` and the hash it indexed."""
    if not ids or not os.path.exists(_index_file(kb_root)):
        return
    from lorebook.recall.writer import IndexWriter

    rows = [(bytes.fromhex(state[i]) if i in state else None, i) for i in sorted(ids)]
    with IndexWriter(_index_file(kb_root)) as index, index.db:
        index.db.executemany(
            "UPDATE docs SET reviewed = COALESCE("
            "(SELECT f.hash = ? FROM kb_files AS f WHERE f.path = docs.path), 0) WHERE id = ?",
            rows,
        )


def record(kb_root: str, reviewed: Mapping[str, str]) -> None:
    """Record that a person reviewed these notes (id -> content hash) and flag the index."""
    if not reviewed:
        return
    with _locked(kb_root):
        state = {**reviews(kb_root), **reviewed}
        _save(kb_root, state)
        _flag(kb_root, state, list(reviewed))


def forget(kb_root: str, ids: Iterable[str]) -> None:
    """Drop any review of these notes (a tool rewrote them): unreviewed until a person's."""
    wanted = set(ids)
    if not wanted:
        return
    with _locked(kb_root):
        state = reviews(kb_root)
        kept = {k: v for k, v in state.items() if k not in wanted}
        if kept != state:
            _save(kb_root, kept)
        _flag(kb_root, kept, wanted)


SOURCES_RELATIVE = os.path.join(".state", "written-by.json")
"""Which tool wrote an unreviewed note when its front matter cannot say (a pack's notes are
copied byte for byte): note id -> ``pack:<name>``. ``review`` groups notes by it."""


def written_by(kb_root: str) -> dict[str, str]:
    """Note id -> the tool that last wrote it, as :func:`mark` recorded ({} when none)."""
    from lorebook.bounds import read_bounded

    try:
        data = json.loads(read_bounded(os.path.join(kb_root, SOURCES_RELATIVE), MAX_BYTES))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {str(k): v for k, v in data.items() if isinstance(v, str)}


def _note_source(kb_root: str, ids: Collection[str], source: str | None) -> None:
    """Set (or, with None, drop) the recorded writer of ``ids``; the caller holds the lock."""
    from pathlib import Path

    from lorebook.kb.fsutil import atomic_write_text

    before = written_by(kb_root)
    after = {k: v for k, v in before.items() if k not in ids}
    if source is not None:
        after.update(dict.fromkeys(ids, source))
    if after != before:
        text = json.dumps(dict(sorted(after.items())), indent=1) + "\n"
        atomic_write_text(Path(kb_root, SOURCES_RELATIVE), text)


def mark(kb_root: str, notes: Mapping[str, str], *, source: str | None = None) -> None:
    """Record notes a tool wrote (id -> path under ``nodes/``): unreviewed, whatever before.

    ``source`` names the writer when the notes' front matter cannot (``pack:<name>``);
    None forgets any writer recorded before (curation rewrote the note).
    """
    forget(kb_root, notes)
    if notes:
        with _locked(kb_root):
            _note_source(kb_root, set(notes), source)


def _pending(index: NoteIndex) -> list[tuple[str, str, bytes, int, int]]:
    """(id, path, content hash, mtime_ns, size) of every unreviewed note the index holds."""
    return index.db.execute(
        "SELECT d.id, d.path, f.hash, f.mtime_ns, f.size FROM docs AS d "
        "JOIN kb_files AS f ON f.path = d.path "
        "WHERE d.reviewed = 0 AND f.hash IS NOT NULL ORDER BY d.id"
    ).fetchall()


def unreviewed(kb_root: str) -> dict[str, str]:
    """The unreviewed notes of the index: id -> path under ``nodes/`` ({} without an index)."""
    from lorebook.recall.db import sqlite3
    from lorebook.recall.index import NoteIndex

    try:
        with NoteIndex(_index_file(kb_root)) as index:
            return {row[0]: row[1] for row in _pending(index)}
    except (OSError, sqlite3.Error):
        return {}


def accept(kb_root: str, ids: Iterable[str] | None = None) -> list[str]:
    """Mark these unreviewed notes (every one when None) reviewed as indexed; return them.

    The caller reconciles the index first, so what is accepted is what is on disk.
    """
    from lorebook.recall.index import NoteIndex

    if not os.path.exists(_index_file(kb_root)):
        return []
    with NoteIndex(_index_file(kb_root)) as index:
        rows = _pending(index)
    wanted = None if ids is None else set(ids)
    chosen = {i: h.hex() for i, _, h, _, _ in rows if wanted is None or i in wanted}
    record(kb_root, chosen)
    return sorted(chosen)


def _git_paths(nodes: str, *args: str) -> set[str] | None:
    """The NUL-separated paths a git command prints, relative to ``nodes`` (None: failed)."""
    import subprocess  # only now: a hook with nothing unreviewed does not pay for it

    try:
        out = subprocess.run(
            ["git", *args], cwd=nodes, capture_output=True, timeout=GIT_TIMEOUT_S, check=True
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    return {p for p in out.decode("utf-8", "surrogateescape").split("\0") if p}


def committed(kb_root: str, rows: Iterable[tuple[str, str, bytes, int, int]]) -> dict[str, str]:
    """Of ``rows`` (see :func:`_pending`), the notes git holds at HEAD exactly as on disk.

    Positive evidence only: a note is committed when ``HEAD`` has its path and ``git diff
    HEAD`` lists no change to it, and its file is still as it was indexed. When git is
    missing, fails or this is not a repository, nothing counts as committed.
    Returns id -> content hash.
    """
    nodes = os.path.join(kb_root, "nodes")
    rows = list(rows)
    if not rows or not os.path.isdir(nodes):
        return {}
    at_head = _git_paths(nodes, "ls-tree", "-r", "-z", "--name-only", "HEAD", "--", ".")
    if not at_head:
        return {}
    changed = _git_paths(
        nodes, "diff", "--no-ext-diff", "--no-renames", "--relative", "--name-only", "-z",
        "HEAD", "--", ".",
    )  # fmt: skip
    if changed is None:
        return {}
    found = {}
    for note_id, rel, digest, mtime_ns, size in rows:
        if rel not in at_head or rel in changed:
            continue
        try:
            st = os.stat(os.path.join(nodes, rel), follow_symlinks=False)
        except OSError:
            continue
        if (st.st_mtime_ns, st.st_size) == (mtime_ns, size):  # as indexed: the hash holds
            found[note_id] = digest.hex()
    return found


CHECK_RELATIVE = os.path.join(".cache", "review-check.json")
"""What the last look at git saw: git's own files' stamps and the notes still unreviewed."""


def _git_dir(kb_root: str) -> str | None:
    """The git directory of the work tree holding ``kb_root``, found as git finds it."""
    folder = os.path.dirname(os.path.abspath(kb_root))
    while True:
        dot = os.path.join(folder, ".git")
        if os.path.isdir(dot):
            return dot
        if os.path.isfile(dot):  # a linked work tree or a submodule: "gitdir: <path>"
            try:
                with open(dot, encoding="utf-8") as handle:
                    line = handle.readline(4096).strip()
            except (OSError, ValueError):
                return None
            return os.path.join(folder, line[7:].strip()) if line.startswith("gitdir:") else None
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


def _check_key(kb_root: str, rows: list[tuple[str, str, bytes, int, int]]) -> str:
    """A key that a commit, a checkout or a reset changes, and a new unreviewed note.

    Git's HEAD, index, reflog and branch files, and the unreviewed notes' ids and hashes.
    Only an unchanged key skips git, and skipping never reviews a note: a change the key
    misses leaves notes unreviewed, never the reverse.
    """
    import zlib

    git_dir = _git_dir(kb_root)
    stamps: list[object] = [git_dir]
    if git_dir is not None:
        names = ["HEAD", "index", os.path.join("logs", "HEAD")]
        try:
            with open(os.path.join(git_dir, "HEAD"), encoding="utf-8") as handle:
                head = handle.readline(4096).strip()
        except (OSError, ValueError):
            head = ""
        if head.startswith("ref: refs/"):
            names.append(os.path.normpath(head[5:]))
        for name in names:
            try:
                st = os.stat(os.path.join(git_dir, name))
                stamps.append([name, st.st_mtime_ns, st.st_size])
            except OSError:
                stamps.append([name])
    notes = "".join(f"{i}\0{h.hex()}\0{m}\0{n}\n" for i, _, h, m, n in rows)
    return json.dumps([stamps, len(rows), zlib.crc32(notes.encode("utf-8", "replace"))])


def _last_check(kb_root: str) -> str:
    try:
        with open(os.path.join(kb_root, CHECK_RELATIVE), encoding="utf-8") as handle:
            return handle.read(1 << 16)
    except (OSError, ValueError):
        return ""


def _save_check(kb_root: str, key: str) -> None:
    from pathlib import Path

    from lorebook.errors import LorebookError
    from lorebook.kb.fsutil import atomic_write_text

    try:
        atomic_write_text(Path(kb_root, CHECK_RELATIVE), key)
    except (OSError, LorebookError):
        return  # git runs again next time: slower, never wrong


def refresh(kb_root: str) -> list[str]:
    """Flag reviewed the unreviewed indexed notes a person has reviewed since; return them.

    Those recorded in ``.state/reviewed.json`` with their current hash, then those git
    holds at HEAD as they are (:func:`committed`). Reads the index only when it lists an
    unreviewed note; runs git only when one is neither, and not again while git's files
    and those notes are as they were at the last look (``.cache/review-check.json``). The
    session-start hook, the prompt hook before it serves a note as unreviewed, and every
    reconcile of the repository's index call it.
    """
    from lorebook.recall.index import NoteIndex

    if not os.path.exists(_index_file(kb_root)):
        return []
    with NoteIndex(_index_file(kb_root)) as index:
        if index.db.execute("SELECT 1 FROM docs WHERE reviewed = 0 LIMIT 1").fetchone() is None:
            return []
        rows = _pending(index)
    state = reviews(kb_root)
    known = {i for i, _, h, _, _ in rows if state.get(i) == h.hex()}
    rest = [r for r in rows if r[0] not in known]
    found: dict[str, str] = {}
    if rest:
        key = _check_key(kb_root, rest)
        if key != _last_check(kb_root):
            found = committed(kb_root, rest)  # git may refresh its index file: key after
            _save_check(kb_root, _check_key(kb_root, [r for r in rest if r[0] not in found]))
    if found:
        record(kb_root, found)
    if known:
        with _locked(kb_root):
            _flag(kb_root, reviews(kb_root), known)
    return sorted(known | set(found))
