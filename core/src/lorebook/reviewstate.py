"""Which notes no person has reviewed yet: review comes before power.

A note a tool wrote is a proposal until a person accepts it: by committing it, or with
``lorebook review --accept``. Until then hooks serve it labelled "unreviewed" and it never
drives ``ask`` or ``deny``. The tools: curation (:mod:`lorebook.curate.apply`, which
bootstrap and harvest go through too) and ``lorebook pack import``
(:mod:`lorebook.pack.land`); ``lorebook note add`` is a person writing, so it is not listed.

The writers record the ids they wrote in ``.cache/unreviewed.json`` (one small JSON
object, id -> path under ``nodes/``), so a hook learns what is unreviewed with one small
read. ``review --accept`` removes ids; session start drops the ids whose file is committed
as it is (one ``git status`` of ``nodes/``, run only while the file lists any id).
Standard library only: the hook path reads it.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping

TYPE_CHECKING = False
if TYPE_CHECKING:
    from contextlib import AbstractContextManager

RELATIVE = os.path.join(".cache", "unreviewed.json")
REPO_STORE = "markdown"
"""The name the repository's own store is served under (``lorebook.inject.served.HOME``)."""
MAX_BYTES = 1 << 20
LABEL = "unreviewed: written by a tool, no person has reviewed it yet; a suggestion only"
"""Put before an unreviewed note's text (curation, bootstrap, harvest or a pack wrote it)."""

_active: frozenset[str] = frozenset()
"""The unreviewed ids of the knowledge base this process serves (set by :func:`activate`)."""


def state_path(kb_root: str) -> str:
    """Where the unreviewed ids are kept."""
    return os.path.join(kb_root, RELATIVE)


def load(kb_root: str) -> dict[str, str]:
    """Unreviewed note id -> path under ``nodes/`` ({} when none or unreadable)."""
    from lorebook.bounds import read_bounded

    try:
        data = json.loads(read_bounded(state_path(kb_root), MAX_BYTES))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {str(k): str(v) for k, v in data.items() if isinstance(v, str)}


def activate(kb_root: str) -> frozenset[str]:
    """Load the unreviewed ids for this process's renders and gates; return them."""
    global _active
    _active = frozenset(load(kb_root))
    return _active


def is_unreviewed(note: object) -> bool:
    """True when ``note`` (a note of the repository's store, or its id) is unreviewed here.

    Notes of another store (a personal store holds what its owner wrote) are never listed.
    """
    if not _active:
        return False
    store = getattr(note, "store", REPO_STORE)
    return store == REPO_STORE and str(getattr(note, "id", note)) in _active


def _save(kb_root: str, state: Mapping[str, str]) -> None:
    from pathlib import Path

    from lorebook.kb.fsutil import atomic_write_text

    text = json.dumps(dict(sorted(state.items())), indent=1) + "\n"
    atomic_write_text(Path(state_path(kb_root)), text)


def _locked(kb_root: str) -> AbstractContextManager[None]:
    from pathlib import Path

    from lorebook.kb.fsutil import kb_lock

    return kb_lock(Path(kb_root) / ".state" / "unreviewed.lock", timeout=30)


def mark(kb_root: str, notes: Mapping[str, str]) -> None:
    """Record notes a writer produced for a person to review (id -> path under nodes/)."""
    if not notes:
        return
    with _locked(kb_root):
        _save(kb_root, {**load(kb_root), **notes})


def accept(kb_root: str, ids: Iterable[str] | None = None) -> list[str]:
    """Mark ``ids`` (every unreviewed note when None) reviewed; return the ids accepted."""
    with _locked(kb_root):
        state = load(kb_root)
        chosen = sorted(state) if ids is None else sorted(set(ids) & set(state))
        if chosen:
            _save(kb_root, {k: v for k, v in state.items() if k not in chosen})
    return chosen


def forget_committed(repo: str, kb_root: str) -> list[str]:
    """Drop the ids whose note file git sees as committed unchanged; return them.

    Costs one ``git status`` of ``nodes/`` and runs only while some id is listed.
    """
    state = load(kb_root)
    if not state:
        return []
    import subprocess  # only now: the hook path does not pay for it

    nodes = os.path.relpath(os.path.join(kb_root, "nodes"), repo)
    try:
        out = subprocess.run(
            ["git", "status", "--porcelain=v1", "-z", "--untracked-files=all", "--", nodes],
            cwd=repo, capture_output=True, timeout=5, check=True,
        ).stdout.decode("utf-8", "replace")  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return []  # not a git repository, or git missing: nothing counts as committed
    changed = {entry[3:] for entry in out.split("\0") if len(entry) > 3}
    prefix = nodes.replace(os.sep, "/") + "/"
    committed = [i for i, rel in state.items() if prefix + rel not in changed]
    if committed:
        accept(kb_root, committed)
    return committed
