"""``lorebook pack export DIR [--folder F]``: the notes (of one folder) as a publishable pack.

The knowledge base must lint clean. ``DIR`` must be missing, empty, or a pack written
before (it holds ``lorebook-pack.yaml``); it must not be a symbolic link or lie inside
``.lorebook/``. Export replaces only the pack's own entries (``lorebook-pack.yaml``,
``README.md`` and ``knowledge/``), so a pack repository keeps its ``.git``, licence and CI
files across re-exports. Notes are copied byte for byte, keeping their folders relative to
the exported one; the redirects whose successors are all exported, and the summaries of the
exported folders, go with them. Edges to notes outside the pack are reported: a knowledge
base importing the pack must hold those notes.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

import yaml

from lorebook.kb.fsutil import atomic_write_bytes, atomic_write_text
from lorebook.kb.paths import validate_relpath
from lorebook.pack.bundle import (
    KNOWLEDGE,
    LOREBOOK_MANIFEST,
    REDIRECTS,
    SUMMARIES,
    PackError,
)
from lorebook.slug import slugify

if TYPE_CHECKING:
    from lorebook.kb.paths import KBPaths
    from lorebook.kb.store import StoredNote

OKF_VERSION = "0.1"


@dataclass(slots=True)
class ExportReport:
    """What an export wrote."""

    out: str
    name: str
    notes: list[str] = field(default_factory=list)
    outside_edges: list[str] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        """The report as ``lorebook pack export --json`` prints it."""
        return {
            "ok": True,
            "out": self.out,
            "pack": self.name,
            "notes": self.notes,
            "outside_edges": self.outside_edges,
        }


def _check_out(paths: KBPaths, out: Path) -> None:
    if out.is_symlink():
        raise PackError(f"{out}: is a symbolic link; export into a real folder")
    resolved = out.resolve()
    if resolved == paths.root.resolve() or paths.root.resolve() in resolved.parents:
        raise PackError(f"{out}: lies inside .lorebook/; export somewhere else")
    if out.exists() and not out.is_dir():
        raise PackError(f"{out}: exists and is not a folder")
    if out.is_dir() and any(out.iterdir()) and not (out / LOREBOOK_MANIFEST).is_file():
        raise PackError(
            f"{out}: is not empty and holds no {LOREBOOK_MANIFEST}; export into a new or "
            "empty folder, or one holding a pack"
        )


def _selected(paths: KBPaths, folder: str | None) -> tuple[list[StoredNote], PurePosixPath]:
    from lorebook.kb.store import load_snapshot

    base = PurePosixPath(validate_relpath(folder, what="folder")) if folder else PurePosixPath()
    snap = load_snapshot(paths)
    chosen = [s for s in snap.notes.values() if not folder or s.path.is_relative_to(base)]
    if not chosen:
        where = f"nodes/{folder}" if folder else "nodes/"
        raise PackError(f"no note to export under {where}")
    return chosen, base


def _lint_gate(paths: KBPaths, budget: int) -> None:
    from lorebook.kb.lint import lint

    errors = lint(paths, budget).errors
    if errors:
        raise PackError(
            f"lint found {len(errors)} error(s) (first: {errors[0].message}); a pack is "
            "exported only from a knowledge base that lints clean",
            hint="run `lorebook lint` and fix what it reports",
        )


def _readme(name: str, notes: list[str]) -> str:
    return (
        f"# {name}\n\nA lorebook pack of {len(notes)} notes (an OKF bundle in `{KNOWLEDGE}/`).\n\n"
        f"Import it into a repository with `lorebook pack import <this folder>`: it lands as "
        f"`.lorebook/nodes/{name}/`, for review with git.\n"
    )


def _root_index(chosen: list[StoredNote], base: PurePosixPath) -> str:
    lines = [f'---\nokf_version: "{OKF_VERSION}"\n---\n', "# Knowledge\n"]
    for stored in sorted(chosen, key=lambda s: s.path.as_posix()):
        rel = stored.path.relative_to(base).as_posix()
        lines.append(f"- [{stored.note.title}]({rel})")
    return "\n".join(lines) + "\n"


def _sidecars(
    paths: KBPaths, chosen: list[StoredNote], base: PurePosixPath
) -> tuple[str | None, str | None]:
    """The pack's redirects and folder summaries (None: nothing to write)."""
    from lorebook.kb.redirects import load_redirects, render_redirects
    from lorebook.kb.summaries import load_summaries, render_summaries

    ids = {s.note.id for s in chosen}
    redirects = {o: n for o, n in load_redirects(paths).items() if set(n) <= ids}
    summaries = {}
    for folder, text in load_summaries(paths).items():
        path = PurePosixPath(folder)
        if base.parts and path != base and path.is_relative_to(base):
            summaries[path.relative_to(base).as_posix()] = text
        elif not base.parts:
            summaries[folder] = text
    return (
        render_redirects(redirects) if redirects else None,
        render_summaries(summaries) if summaries else None,
    )


def export_pack(
    paths: KBPaths, out: Path, *, folder: str | None, budget: int, name: str | None = None
) -> ExportReport:
    """Write the pack (see the module docstring).

    Raises:
        PackError: lint errors, a bad ``out`` or ``folder``, nothing to export.
    """
    from lorebook.kb.summaries import load_summaries

    _check_out(paths, out)
    _lint_gate(paths, budget)
    chosen, base = _selected(paths, folder)
    pack_name = slugify(name or (base.name if folder else paths.repo.resolve().name)) or "pack"
    ids = {s.note.id for s in chosen}
    report = ExportReport(str(out), pack_name, sorted(ids))
    for stored in chosen:
        for key, targets in stored.note.edges().items():
            report.outside_edges += [f"{stored.note.id} {key} {t}" for t in targets if t not in ids]
    redirects, summaries = _sidecars(paths, chosen, base)
    description = load_summaries(paths).get(base.as_posix()) if folder else None
    shutil.rmtree(out / KNOWLEDGE, ignore_errors=True)
    for stored in chosen:
        data = (paths.nodes / stored.path).read_bytes()
        atomic_write_bytes(out / KNOWLEDGE / stored.path.relative_to(base), data)
    atomic_write_text(out / KNOWLEDGE / "index.md", _root_index(chosen, base))
    if redirects:
        atomic_write_text(out / KNOWLEDGE / REDIRECTS, redirects)
    if summaries:
        atomic_write_text(out / KNOWLEDGE / SUMMARIES, summaries)
    manifest: dict[str, Any] = {"lb_schema": 1, "name": pack_name, "notes": len(ids)}
    if description:
        manifest["description"] = description
    atomic_write_text(out / LOREBOOK_MANIFEST, yaml.safe_dump(manifest, sort_keys=False))
    atomic_write_text(out / "README.md", _readme(pack_name, report.notes))
    return report
