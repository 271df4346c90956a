"""The proposed change to the knowledge base: what git sees changed under ``.lorebook/``.

Curation and ``note`` commands write to the working tree and stage nothing, so the
proposal is exactly what git sees changed under ``.lorebook/`` since ``HEAD``: tracked files
that differ from it, and new files git does not ignore. :func:`list_changes` lists them and
:func:`render_diff` shows them as one patch; deciding on them is :mod:`lorebook.review.verdicts`.
Generated files are never reviewed one by one: they follow from the notes.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any, Literal

from lorebook.constants import KB_DIRNAME
from lorebook.errors import LorebookError

if TYPE_CHECKING:
    from lorebook.kb.paths import KBPaths

ChangeKind = Literal["added", "modified", "deleted"]
Category = Literal["note", "other", "conflict", "generated"]
CATEGORY_ORDER: tuple[Category, ...] = ("note", "other", "conflict", "generated")
"""The order changes are shown in: notes first, generated files last."""

_STATUS_KINDS: dict[str, ChangeKind] = {"A": "added", "D": "deleted"}
_CHUNK = 100
"""Paths per git command line (Windows caps a command line at 32 K characters)."""


class ReviewError(LorebookError):
    """The review cannot be shown, or a change cannot be rejected (the message says why)."""


@dataclass(frozen=True, slots=True)
class Change:
    """One file under ``.lorebook/`` that differs from ``HEAD``.

    Attributes:
        path: Repository-relative POSIX path.
        kind: added, modified or deleted.
        category: note, other (summaries, redirects, config), conflict, or generated.
        tracked: False for a new file git does not know yet.
        note_id: The note's id (its file name) when the file is a note.
    """

    path: str
    kind: ChangeKind
    category: Category
    tracked: bool
    note_id: str | None = None

    def as_json(self) -> dict[str, Any]:
        """Return the change as a JSON-ready dict."""
        return {
            "path": self.path,
            "change": self.kind,
            "category": self.category,
            "tracked": self.tracked,
            "id": self.note_id,
        }


def categorize(kb_relative: PurePosixPath) -> Category:
    """Say what a path relative to ``.lorebook/`` is."""
    parts = kb_relative.parts
    if parts in (("ENTRY.md",), ("GRAPH.md",)) or (
        parts[0] == "nodes" and kb_relative.name == "index.md"
    ):
        return "generated"
    if parts[0] == "nodes" and kb_relative.suffix == ".md" and len(parts) > 1:
        return "note"
    if parts[0] == "conflicts":
        return "conflict"
    return "other"


# --- git -------------------------------------------------------------------------------


def git(repo: Path, *args: str, ok: tuple[int, ...] = (0,), stdin: str | None = None) -> str:
    """Run git in ``repo`` and return its stdout.

    Raises:
        ReviewError: git is missing, or exits with a code not in ``ok``.
    """
    try:
        proc = subprocess.run(
            ["git", "-c", "core.quotepath=off", *args],
            cwd=repo,
            input=stdin,
            capture_output=True,
            text=True,
            encoding="utf-8",
            errors="replace",  # a note that is not UTF-8 still shows (lint reports it)
            check=False,
        )
    except OSError as exc:
        raise ReviewError(f"cannot run git: {exc}", hint="install git; review needs it") from None
    if proc.returncode not in ok:
        raise ReviewError(f"git {' '.join(args)} failed: {proc.stderr.strip()}")
    return proc.stdout


def _base(repo: Path) -> str:
    """Return what the working tree is compared with: ``HEAD``, or the empty tree."""
    inside = subprocess.run(
        ["git", "rev-parse", "--is-inside-work-tree"],
        cwd=repo,
        capture_output=True,
        text=True,
        check=False,
    )
    if inside.returncode != 0 or inside.stdout.strip() != "true":
        raise ReviewError(
            f"{repo} is not inside a git work tree: review shows and undoes changes with git",
            hint="`git init` and commit the knowledge base, or review the files by hand",
        )
    if git(repo, "rev-parse", "--verify", "--quiet", "HEAD^{commit}", ok=(0, 1)).strip():
        return "HEAD"
    return git(repo, "hash-object", "-t", "tree", "--stdin", stdin="").strip()


def _change(rel: str, kind: ChangeKind, tracked: bool) -> Change:
    kb_rel = PurePosixPath(rel).relative_to(KB_DIRNAME)
    category = categorize(kb_rel)
    note_id = kb_rel.stem if category == "note" else None
    return Change(rel, kind, category, tracked, note_id)


def list_changes(paths: KBPaths) -> list[Change]:
    """Return every change under ``.lorebook/`` since ``HEAD``, notes first, generated last.

    Raises:
        ReviewError: not a git work tree, or git failed.
    """
    base = _base(paths.repo)
    spec = f"{KB_DIRNAME}/"
    raw = git(
        paths.repo, "diff", base, "--name-status", "--no-renames", "-z", "--relative", "--", spec
    )
    fields = [f for f in raw.split("\0") if f]
    changes = [
        _change(rel, _STATUS_KINDS.get(status[0], "modified"), True)
        for status, rel in zip(fields[::2], fields[1::2], strict=True)
    ]
    untracked = git(paths.repo, "ls-files", "--others", "--exclude-standard", "-z", "--", spec)
    changes += [_change(rel, "added", False) for rel in untracked.split("\0") if rel]
    return sorted(changes, key=lambda c: (CATEGORY_ORDER.index(c.category), c.path))


# --- the diff --------------------------------------------------------------------------


def _tracked_diff(repo: Path, base: str, rels: list[str], color: bool) -> str:
    out = []
    for at in range(0, len(rels), _CHUNK):
        out.append(
            git(
                repo,
                "diff",
                base,
                "--no-renames",
                "--relative",
                f"--color={'always' if color else 'never'}",
                "--",
                *rels[at : at + _CHUNK],
            )
        )
    return "".join(out)


def _new_file_diff(repo: Path, rel: str, color: bool) -> str:
    # git special-cases /dev/null in --no-index mode on every platform; exit 1 = differences.
    return git(
        repo,
        "diff",
        "--no-index",
        f"--color={'always' if color else 'never'}",
        "--",
        "/dev/null",
        rel,
        ok=(0, 1),
    )


def render_diff(
    paths: KBPaths, changes: list[Change], *, generated: bool = False, color: bool = False
) -> str:
    """Return one diff of ``changes`` in their order; generated files only when asked.

    Tracked files are diffed against ``HEAD`` by ``git diff``; new files against
    ``/dev/null`` by ``git diff --no-index``, so the whole proposal reads as one patch.
    """
    base = _base(paths.repo)
    parts: list[str] = []
    for category in CATEGORY_ORDER:
        if category == "generated" and not generated:
            continue
        group = [c for c in changes if c.category == category]
        tracked = [c.path for c in group if c.tracked]
        if tracked:  # changed and deleted files first, then the new ones
            parts.append(_tracked_diff(paths.repo, base, tracked, color))
        parts += [_new_file_diff(paths.repo, c.path, color) for c in group if not c.tracked]
    return "".join(parts)


__all__ = [
    "CATEGORY_ORDER",
    "Category",
    "Change",
    "ChangeKind",
    "ReviewError",
    "categorize",
    "git",
    "list_changes",
    "render_diff",
]
