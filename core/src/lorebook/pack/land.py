"""``lorebook pack import DIR``: a pack lands as one folder, ``nodes/<pack name>/``.

Everything is checked before the first write, so a refused import leaves the tree
byte-identical:

- the knowledge base (``.lorebook/`` and the instruction files holding core's pointer block,
  ``AGENTS.md`` and ``CLAUDE.md`` for the first-party host plugins) has no uncommitted or
  untracked change, so git can undo the import;
- the pack holds no symbolic link (:func:`lorebook.pack.bundle.refuse_symlinks`), and every
  leaf reads as a note (:func:`lorebook.pack.bundle.read_pack`);
- ``nodes/<name>/`` does not exist (a pack imported twice is refused), no pack id is a live
  or retired id of the knowledge base, and every path is one lorebook accepts;
- the pack's redirects merge with the knowledge base's (a retired id mapped to other
  successors is an error), and every edge (``lb_relates_to``, ``lb_depends_on``,
  ``lb_supersedes``, ``lb_superseded_by``) resolves to a note of the pack or of the
  knowledge base, directly or through the merged redirects.

Then the pack's notes are recorded as unreviewed (:mod:`lorebook.reviewstate`: served
labelled "unreviewed", never asking or denying, until a person commits them or accepts
them with ``lorebook review --accept``; recorded before the first note lands, so a killed
import leaves no note with power), the leaves are written (lorebook notes byte for byte),
the folder summaries and redirects merged, and the indexes rebuilt (which refreshes every
link section). If a write fails, the error names the git commands that undo the import.

An import killed part-way is finished by its rerun: it records itself in ``.state/`` before
its first write, and the rerun of the same pack accepts the uncommitted changes that are
the import's own (see :mod:`lorebook.pack.resume`) and writes everything again.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

from lorebook.kb.fsutil import atomic_write_text, kb_lock
from lorebook.kb.paths import validate_relpath
from lorebook.pack import resume
from lorebook.pack.bundle import Pack, PackError, read_pack

if TYPE_CHECKING:
    from lorebook.kb.paths import KBPaths

_EDGE_KEYS = ("lb_relates_to", "lb_depends_on", "lb_supersedes", "lb_superseded_by")


@dataclass(slots=True)
class ImportReport:
    """What an import wrote."""

    name: str
    format: str
    folder: str
    notes: list[str] = field(default_factory=list)
    redirects_merged: int = 0
    resumed: bool = False
    """This run finished an import that was interrupted (killed) part-way."""

    def as_json(self) -> dict[str, Any]:
        """The report as ``lorebook pack import --json`` prints it."""
        return {
            "ok": True,
            "pack": self.name,
            "format": self.format,
            "folder": self.folder,
            "notes": self.notes,
            "redirects_merged": self.redirects_merged,
            "resumed": self.resumed,
        }


def _guarded() -> list[str]:
    """``.lorebook`` and the instruction files the installed harness plugins name."""
    from lorebook.pointer import instruction_files

    return [".lorebook", *instruction_files()]


def dirty_files(repo: Path) -> list[str]:
    """Uncommitted or untracked (not ignored) files of the knowledge base, per git.

    Raises:
        PackError: the folder is not a git work tree, or git cannot be run.
    """
    try:
        proc = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=all", "--", *_guarded()],
            cwd=repo, capture_output=True, text=True, check=False,
        )  # fmt: skip
    except OSError as exc:
        raise PackError(f"git cannot be run ({exc}); an import needs git to be undoable") from None
    if proc.returncode != 0:
        raise PackError(
            f"{repo}: not a git work tree ({proc.stderr.strip().splitlines()[0]}); "
            "an import needs git so that it can be undone"
        )
    return [line[3:] for line in proc.stdout.splitlines() if line.strip()]


def undo_commands(name: str) -> list[str]:
    """The git commands that return the knowledge base to its last commit after an import."""
    return ["git restore -- .lorebook", f"git clean -fd -- .lorebook/nodes/{name}"]


def _refuse_dirty(dirty: list[str]) -> None:
    if dirty:
        shown = ", ".join(dirty[:5]) + (f" and {len(dirty) - 5} more" if len(dirty) > 5 else "")
        raise PackError(
            f"the knowledge base has uncommitted changes ({shown}); an import must start "
            "from a clean tree so that git can undo it",
            hint="commit or restore them (`lorebook review`), then import again",
        )


def _merge_redirects(
    pack: Pack, ours: dict[str, list[str]], live: set[str]
) -> dict[str, list[str]]:
    merged = dict(ours)
    for old, new in sorted(pack.redirects.items()):
        if old in live or old in {leaf.note.id for leaf in pack.leaves}:
            raise PackError(f"{pack.name}: redirect {old!r} retires an id that is a live note")
        if old in merged and sorted(merged[old]) != sorted(new):
            raise PackError(
                f"{pack.name}: redirect {old!r} -> {new} differs from the knowledge base's "
                f"{old!r} -> {merged[old]}"
            )
        merged[old] = list(new)
    return merged


def _check_edges(pack: Pack, live: set[str], redirects: dict[str, list[str]]) -> None:
    from lorebook.kb.redirects import resolve

    known = live | {leaf.note.id for leaf in pack.leaves}
    for leaf in pack.leaves:
        for key, targets in leaf.note.edges().items():
            for target in targets:
                if target in known or resolve(redirects, target, known):
                    continue
                raise PackError(
                    f"{leaf.source}: {key} names {target!r}, which is neither in the pack nor "
                    "in the knowledge base (a dangling edge); nothing was imported"
                )
    for old, new in pack.redirects.items():
        missing = [n for n in new if n not in known and not resolve(redirects, n, known)]
        if missing:
            raise PackError(f"{pack.name}: redirect {old!r} -> {missing} names no note")


def _check(paths: KBPaths, pack: Pack, *, resuming: bool) -> dict[str, list[str]]:
    """Every check but cleanliness; returns the merged redirects.

    ``resuming``: finishing an interrupted import of this pack, whose folder and landed
    leaves (checked byte for byte by :func:`lorebook.pack.resume.check_resumable`) are
    its own, not a previous import's.
    """
    from lorebook.kb.redirects import load_redirects
    from lorebook.kb.store import load_snapshot

    folder = paths.nodes / pack.name
    if folder.exists() and not resuming:
        ids = {leaf.note.id for leaf in pack.leaves}
        there = {p.stem for p in folder.rglob("*.md") if p.name != "index.md"}
        if there and not there & ids:  # the knowledge base's own folder ("prohibition")
            raise PackError(
                f"pack {pack.name!r} cannot land in {paths.rel(folder)}/: that folder holds "
                "this knowledge base's own notes",
                hint="export the pack again under a name of its own "
                "(`lorebook pack export DIR --name <name>`)",
            )
        raise PackError(
            f"pack {pack.name!r} is already imported: {paths.rel(folder)}/ exists",
            hint="to update it, remove that folder and commit, then import again",
        )
    snap = load_snapshot(paths)
    ours = load_redirects(paths)
    live = set(snap.notes)
    landed = {
        leaf.note.id
        for leaf in pack.leaves
        if resuming
        and leaf.note.id in snap.notes
        and snap.notes[leaf.note.id].path == PurePosixPath(pack.name) / leaf.rel
    }
    taken = [
        leaf
        for leaf in pack.leaves
        if leaf.note.id not in landed and (leaf.note.id in live or leaf.note.id in ours)
    ]
    if taken:
        names = ", ".join(f"{leaf.note.id} ({leaf.source})" for leaf in taken[:5])
        raise PackError(
            f"{len(taken)} pack id(s) already name a note or a retired id here: {names}",
            hint="rename them in the pack or retire them here; nothing was imported",
        )
    for leaf in pack.leaves:
        validate_relpath(f"{pack.name}/{leaf.rel.as_posix()}", what=f"{leaf.source}: path")
    for rel in pack.summaries:
        validate_relpath(f"{pack.name}/{rel}", what=f"{pack.name}: summarised folder")
    merged = _merge_redirects(pack, ours, live)
    _check_edges(pack, live, merged)
    return merged


def _write(paths: KBPaths, pack: Pack, redirects: dict[str, list[str]], budget: int) -> None:
    from lorebook.kb.index import rebuild_indexes
    from lorebook.kb.redirects import write_redirects
    from lorebook.kb.summaries import load_summaries, render_summaries
    from lorebook.recall.sync import reconcile
    from lorebook.reviewstate import mark

    mark(str(paths.root), unreviewed(pack), source=f"pack:{pack.name}")
    for leaf in pack.leaves:
        atomic_write_text(paths.nodes / pack.name / leaf.rel, leaf.text)
    summaries = load_summaries(paths)
    summaries[pack.name] = pack.description or f"Imported from the {pack.name} pack."
    for rel, summary in pack.summaries.items():
        summaries[f"{pack.name}/{rel}"] = summary
    atomic_write_text(paths.summaries, render_summaries(summaries))
    if redirects:
        write_redirects(paths, redirects)
    rebuild_indexes(paths, budget)
    reconcile(paths)


def unreviewed(pack: Pack) -> dict[str, str]:
    """The pack's note ids -> their paths under ``nodes/`` once landed."""
    return {leaf.note.id: f"{pack.name}/{leaf.rel.as_posix()}" for leaf in pack.leaves}


def import_pack(paths: KBPaths, folder: Path, *, budget: int) -> ImportReport:
    """Land the pack at ``folder`` as ``nodes/<name>/`` (see the module docstring).

    Raises:
        PackError: a check failed (nothing was written), or a write failed (the message
            names the git commands that undo what landed).
    """
    with kb_lock(paths.state / "pack.lock"):
        dirty = dirty_files(paths.repo)
        record = resume.interrupted(paths, dirty)
        if record is None:
            _refuse_dirty(dirty)
        pack = read_pack(folder)
        if not pack.leaves:
            raise PackError(f"{folder}: the pack holds no note")
        if record is not None:
            undo = "; ".join(undo_commands(str(record["pack"])))
            resume.check_resumable(paths, pack, record, dirty, undo)
        redirects = _check(paths, pack, resuming=record is not None)
        if record is not None and isinstance(record.get("redirects_merged"), int):
            added = record["redirects_merged"]
        else:
            added = len(set(redirects) - set(_current_redirects(paths)))
        resume.begin(paths, pack, added)
        try:
            _write(paths, pack, redirects, budget)
        except Exception as exc:
            commands = "; ".join(undo_commands(pack.name))
            raise PackError(
                f"importing {pack.name!r} failed after it began writing: {exc}",
                hint=f"rerun the import to finish it, or undo what landed with: {commands}",
            ) from exc
        resume.end(paths)
    report = ImportReport(pack.name, pack.format, f"{paths.rel(paths.nodes / pack.name)}/")
    report.notes = sorted(leaf.note.id for leaf in pack.leaves)
    report.redirects_merged = added
    report.resumed = record is not None
    return report


def _current_redirects(paths: KBPaths) -> dict[str, list[str]]:
    from lorebook.kb.redirects import load_redirects

    return load_redirects(paths)


__all__ = ["ImportReport", "dirty_files", "import_pack", "undo_commands", "unreviewed"]
