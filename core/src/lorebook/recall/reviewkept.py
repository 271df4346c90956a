"""A person's command rewrites notes: each one reviewed before is reviewed after.

Built on :mod:`lorebook.reviewstate` (what this machine recorded as reviewed) and the index
(:func:`lorebook.recall.sync.reconcile` first records a note committed as it is), which is
why it is here and not in ``reviewstate``, which the index's sync reads.
"""

from __future__ import annotations

import os

from lorebook.recall.index import NoteIndex, index_path
from lorebook.reviewstate import record, reviews

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable


def _file_hash(kb_root: str, rel: str) -> str | None:
    """The content hash of the note file at ``rel`` under ``nodes/`` (None: unreadable)."""
    from lorebook.errors import LorebookError
    from lorebook.kb.notes import content_hash, read_note_text

    try:
        return content_hash(read_note_text(os.path.join(kb_root, "nodes", rel), source=rel))
    except (OSError, LorebookError):
        return None


def _indexed_paths(kb_root: str, ids: Iterable[str]) -> dict[str, str]:
    if not os.path.exists(index_path(kb_root)):
        return {}
    with NoteIndex(index_path(kb_root)) as index:
        return {i: n.path for i, n in index.get(ids).items()}


class ReviewKept:
    """A person's command rewrites these notes: each one reviewed before is reviewed after.

    Reviewed before: this machine recorded a review of exactly the content its file holds
    (the index is reconciled first, which records a note committed as it is). When the
    block (whose writers update the index as they write) ends without an error, the new
    content is recorded.
    """

    def __init__(self, kb_root: str, ids: Iterable[str]) -> None:
        self.kb_root = kb_root
        self.ids = sorted(set(ids))
        self.before: set[str] = set()

    def __enter__(self) -> None:
        from lorebook.kb.paths import KBPaths
        from lorebook.recall.sync import reconcile

        reconcile(KBPaths.for_repo(os.path.dirname(os.path.abspath(self.kb_root))))
        state = reviews(self.kb_root)
        self.before = {
            i for i, rel in _indexed_paths(self.kb_root, self.ids).items()
            if i in state and _file_hash(self.kb_root, rel) == state[i]
        }  # fmt: skip

    def __exit__(self, kind: object, *rest: object) -> None:
        if kind is not None or not self.before:
            return
        paths = _indexed_paths(self.kb_root, self.before)
        after = {i: _file_hash(self.kb_root, rel) for i, rel in paths.items()}
        record(self.kb_root, {i: h for i, h in after.items() if h is not None})
