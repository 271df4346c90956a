"""Sweeping what killed writers left: temporary files of atomic writes whose process is gone.

An atomic write goes to a dot-file beside its target (:func:`lorebook.kb.fsutil.temp_path`)
and is renamed into place; SIGKILL gives the writer no chance to remove it. The next write
of the same file removes it (:func:`lorebook.kb.fsutil.sweep_dead_temps`), but a file that
is never written again would keep its litter: :func:`sweep_temp_files` goes through every
folder lorebook writes to. The capture follow-up (after every session that staged
something) and ``lorebook curate`` run it.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from lorebook.kb.fsutil import dead_writers_file

if TYPE_CHECKING:
    from pathlib import Path

    from lorebook.kb.paths import KBPaths


def _folders(paths: KBPaths) -> list[Path]:
    """Every folder of the knowledge base an atomic write may leave a temporary file in."""
    resume = paths.state / "resume"
    return [
        paths.root, paths.conflicts, paths.state, resume, resume / "given", paths.sessions,
        paths.cache, paths.logs,
    ]  # fmt: skip


def sweep_temp_files(paths: KBPaths) -> list[str]:
    """Remove the temporary files of atomic writes whose process died; their paths.

    The notes' folders are searched at every depth, the others at their top. POSIX only:
    elsewhere a dead process cannot be told from a live one cheaply, and the files are only
    litter (dot-files every reader skips).
    """
    if os.name != "posix":
        return []
    removed = []
    found = [p for folder in _folders(paths) if folder.is_dir() for p in folder.glob(".*.tmp")]
    if paths.nodes.is_dir():
        found += paths.nodes.rglob(".*.tmp")
    for path in sorted(found):
        if dead_writers_file(path.name) is not None:
            path.unlink(missing_ok=True)
            removed.append(paths.rel(path))
    return removed
