"""An interrupted ``pack import``: what it left, and whether a rerun may finish it.

Before its first write an import records itself in ``.state/pack-import.json`` (per
machine, gitignored): the pack's name, a digest of everything it lands, and how many
redirects it merged. It removes the record after its last write. A record found with a
clean tree is stale (the import was committed or undone with git) and is dropped.

A record found with uncommitted changes means the import was killed part-way. The rerun
of the same pack finishes it, provided every change is one the import makes itself:

- under ``nodes/<pack>/``: a leaf of the pack, byte for byte, or a generated ``index.md``;
- ``FOLDER_SUMMARIES.md`` and ``nodes/.redirects.json`` (the import merges into them by
  key, so writing them again changes nothing more);
- ``ENTRY.md``, ``GRAPH.md`` and every ``index.md`` (generated: the rebuild rewrites them);
- a note whose text differs from its committed one in the generated link section only;
- a temporary file of a writer that is dead (it is removed).

Anything else (a note edited since, another pack) is refused, naming the file, with the
git commands that undo the interrupted import; so git can still undo what a finished
rerun landed.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import subprocess
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

from lorebook.bounds import MAX_NOTE_BYTES, read_text_bounded
from lorebook.kb.fsutil import atomic_write_text, dead_writers_file
from lorebook.pack.bundle import Pack, PackError

if TYPE_CHECKING:
    from lorebook.kb.paths import KBPaths

JOURNAL = "pack-import.json"


def journal_path(paths: KBPaths) -> Path:
    """Where an import in progress is recorded."""
    return paths.state / JOURNAL


def pack_digest(pack: Pack) -> str:
    """A digest of everything an import of ``pack`` lands (same pack, same digest)."""
    content = {
        "name": pack.name,
        "description": pack.description,
        "leaves": sorted((leaf.rel.as_posix(), leaf.text) for leaf in pack.leaves),
        "redirects": pack.redirects,
        "summaries": pack.summaries,
    }
    return hashlib.sha256(json.dumps(content, sort_keys=True).encode("utf-8")).hexdigest()


def begin(paths: KBPaths, pack: Pack, redirects_merged: int) -> None:
    """Record that an import of ``pack`` is about to write."""
    record = {"pack": pack.name, "digest": pack_digest(pack), "redirects_merged": redirects_merged}
    atomic_write_text(journal_path(paths), json.dumps(record, indent=1) + "\n")


def end(paths: KBPaths) -> None:
    """The import finished: forget the record."""
    journal_path(paths).unlink(missing_ok=True)


def interrupted(paths: KBPaths, dirty: list[str]) -> dict[str, Any] | None:
    """The record of an interrupted import, or None (a stale record is removed)."""
    try:
        record: object = json.loads(journal_path(paths).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError):
        record = None  # torn by hand: as good as none
    if not isinstance(record, dict) or not isinstance(record.get("pack"), str) or not dirty:
        end(paths)
        return None
    return record


def check_resumable(
    paths: KBPaths, pack: Pack, record: dict[str, Any], dirty: list[str], undo: str
) -> None:
    """Refuse to finish an interrupted import unless every change is one it makes.

    Removes the temporary files dead writers left among ``dirty``; ``undo`` is the git
    commands that undo the interrupted import, for the messages.

    Raises:
        PackError: ``pack`` is not the interrupted one, or a change is not the import's.
    """
    name = str(record["pack"])
    if name != pack.name or record.get("digest") != pack_digest(pack):
        raise PackError(
            f"an import of pack {name!r} was interrupted and left uncommitted changes; "
            f"this is another pack (or that pack changed since)",
            hint=f"rerun the import of that pack to finish it, or undo it with: {undo}",
        )
    leaves = {f"{pack.name}/{leaf.rel.as_posix()}": leaf.text for leaf in pack.leaves}
    temporaries = []
    for rel in dirty:
        kind = _change_kind(paths, rel, leaves)
        if kind == "temporary":
            temporaries.append(rel)
        elif kind is None:
            raise PackError(
                f"an import of pack {name!r} was interrupted, and {rel} has changed in a "
                "way the import does not make; a rerun would not finish it safely",
                hint=f"commit or restore that file, or undo the import with: {undo}",
            )
    for rel in temporaries:
        with contextlib.suppress(OSError):
            os.unlink(paths.repo / rel)


def _change_kind(paths: KBPaths, rel: str, leaves: dict[str, str]) -> str | None:
    """``"import"`` or ``"temporary"`` for a change the import makes itself, else None."""
    path = PurePosixPath(rel)
    nodes = PurePosixPath(paths.rel(paths.nodes))
    if not path.is_relative_to(paths.rel(paths.root)):
        return None  # an instruction file (AGENTS.md, say): never written by an import
    if dead_writers_file(path.name) is not None:
        return "temporary"
    rewritten = {paths.rel(p) for p in (paths.summaries, paths.redirects, paths.entry, paths.graph)}
    if rel in rewritten or (path.is_relative_to(nodes) and path.name == "index.md"):
        return "import"
    if not path.is_relative_to(nodes) or path.suffix != ".md":
        return None
    note = path.relative_to(nodes).as_posix()
    current = _read(paths.repo / rel)
    if note in leaves:
        return "import" if current == leaves[note] else None
    return "import" if _only_links_changed(paths, rel, current) else None


def _read(path: Path) -> str | None:
    """A note's text as the import would have written it, or None (unreadable, too big)."""
    try:
        return read_text_bounded(path, MAX_NOTE_BYTES).replace("\r\n", "\n")
    except (OSError, ValueError):  # TooLargeError and UnicodeDecodeError are ValueErrors
        return None


def _only_links_changed(paths: KBPaths, rel: str, current: str | None) -> bool:
    """True when ``rel`` differs from its committed text in the link section only."""
    from lorebook.kb.notes import split_links

    if current is None:
        return False
    shown = subprocess.run(
        ["git", "show", f"HEAD:{rel}"], cwd=paths.repo, capture_output=True, check=False
    )
    if shown.returncode != 0:
        return False  # untracked: not a note the rebuild relinked
    committed = shown.stdout.decode("utf-8", "replace").replace("\r\n", "\n")
    return split_links(committed)[0] == split_links(current)[0]


__all__ = ["begin", "check_resumable", "end", "interrupted", "journal_path", "pack_digest"]
