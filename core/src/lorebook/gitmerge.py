"""Merging branches that both changed the knowledge base, without conflicts in generated files.

ENTRY.md, GRAPH.md and every ``nodes/**/index.md`` change on any branch that adds a note,
so a plain ``git merge`` of two such branches conflicts in them. They are a function of the
notes, so the right merge result is not a merge of the two texts but a regeneration from the
merged notes, which a merge driver cannot do: it runs file by file, before the other
branch's notes are all in the working tree. So:

* ``.lorebook/.gitattributes`` (committed, written by ``lorebook init``) gives the generated
  files the merge driver ``lorebook-generated``, and ``FOLDER_SUMMARIES.md`` git's built-in
  ``union`` driver (one line per folder: a union keeps both branches' new lines; two
  different summaries of one folder become two lines, which ``lint`` reports).
* ``lorebook init`` defines that driver in this clone's git config as ``true``: keep this
  branch's copy, report no conflict. Git config is per clone, so every clone runs ``init``
  (which a fresh clone does anyway for its hook launcher); without it git falls back to its
  text merge, and conflicts in generated files are resolved the same way as below.
* After the merge, ``lorebook index rebuild`` regenerates them from the merged notes, and
  the result is committed. Until then ``lint`` reports them as ``stale-generated``.

``nodes/.redirects.json`` is left to git's ordinary merge: it is JSON, and a union of two
branches' last lines would drop the comma between them. It changes rarely (only when an id
is retired), and a conflict in it is a real one for a human.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from lorebook.kb.fsutil import write_if_changed
from lorebook.kb.paths import KBPaths

DRIVER = "lorebook-generated"
DRIVER_NAME = "lorebook generated file: keep ours, then run `lorebook index rebuild`"
DRIVER_COMMAND = "true"
"""Leaves ``%A`` (this branch's copy) as it is and exits 0: no conflict, no markers."""

GITATTRIBUTES = f"""\
# Written by `lorebook init`; edits are overwritten. How git merges the knowledge base.
# Generated files: a merge keeps this branch's copy (driver `{DRIVER}`, which
# `lorebook init` defines in each clone's git config); then run `lorebook index rebuild`
# and commit, which regenerates them from the merged notes.
/ENTRY.md merge={DRIVER} linguist-generated=true
/GRAPH.md merge={DRIVER} linguist-generated=true
/nodes/**/index.md merge={DRIVER} linguist-generated=true
# One line per folder: a union merge keeps the lines both branches added.
/FOLDER_SUMMARIES.md merge=union
# One event a line (lorebook premise): both branches' records and retractions stay.
/premises/*/events.jsonl merge=union
"""


@dataclass(slots=True)
class MergeSetup:
    """What installing merge support changed.

    Attributes:
        changed: Files written (repository-relative).
        notes: Other changes and skips, one line each (git config is not a repository file).
    """

    changed: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def gitattributes_path(paths: KBPaths) -> Path:
    """``.lorebook/.gitattributes``."""
    return paths.root / ".gitattributes"


def _git(repo: Path, *args: str) -> subprocess.CompletedProcess[str] | None:
    """Run git in ``repo``; None when git is not installed."""
    try:
        return subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, check=False)
    except OSError:
        return None


def in_work_tree(repo: Path) -> bool:
    """Whether ``repo`` is inside a git work tree (False when git is not installed)."""
    proc = _git(repo, "rev-parse", "--is-inside-work-tree")
    return proc is not None and proc.returncode == 0 and proc.stdout.strip() == "true"


def _config_get(repo: Path, key: str) -> str | None:
    proc = _git(repo, "config", "--local", "--get", key)
    return proc.stdout.rstrip("\n") if proc is not None and proc.returncode == 0 else None


def driver_problem(repo: Path) -> str | None:
    """Say what is wrong with this clone's merge driver setup, or None when it is right.

    Not being in a git work tree is not a problem here (``init`` warns about it).
    """
    if not in_work_tree(repo):
        return None
    current = _config_get(repo, f"merge.{DRIVER}.driver")
    if current == DRIVER_COMMAND:
        return None
    got = "not defined" if current is None else f"set to {current!r}"
    return (
        f"git config merge.{DRIVER}.driver is {got} in this clone: merging branches that "
        "both added notes will stop on ENTRY.md and the indexes (run `lorebook init`)"
    )


def configure_driver(repo: Path) -> list[str]:
    """Define the merge driver in this clone's git config; return what changed (one line each).

    Writes nothing when it is already defined, or when ``repo`` is not in a git work tree.
    """
    if not in_work_tree(repo):
        return []
    changed: list[str] = []
    for key, value in (("name", DRIVER_NAME), ("driver", DRIVER_COMMAND)):
        full = f"merge.{DRIVER}.{key}"
        if _config_get(repo, full) == value:
            continue
        proc = _git(repo, "config", "--local", full, value)
        if proc is None or proc.returncode != 0:
            detail = "git is not installed" if proc is None else proc.stderr.strip()
            return [*changed, f"could not set git config {full}: {detail}"]
        changed.append(f"set git config {full} (this clone)")
    return changed


def remove_driver(repo: Path) -> list[str]:
    """Remove the merge driver ``configure_driver`` defined from this clone's git config.

    ``lorebook uninstall`` calls it when no harness stays wired; the committed
    ``.gitattributes`` then names an undefined driver, and git merges those files as text,
    as it did before ``init``. Returns what changed (one line each).
    """
    if _config_get(repo, f"merge.{DRIVER}.driver") is None and not _config_get(
        repo, f"merge.{DRIVER}.name"
    ):
        return []
    proc = _git(repo, "config", "--local", "--remove-section", f"merge.{DRIVER}")
    if proc is None or proc.returncode != 0:
        detail = "git is not installed" if proc is None else proc.stderr.strip()
        return [f"could not remove git config merge.{DRIVER}: {detail}"]
    return [f"removed git config merge.{DRIVER} (this clone)"]


def install_merge_support(paths: KBPaths) -> MergeSetup:
    """Write ``.lorebook/.gitattributes`` and define the merge driver in this clone.

    Callers hold the knowledge base lock. Idempotent: a second run changes nothing.
    """
    setup = MergeSetup()
    target = gitattributes_path(paths)
    if write_if_changed(target, GITATTRIBUTES):
        setup.changed.append(paths.rel(target))
    setup.notes += configure_driver(paths.repo)
    return setup


__all__ = [
    "DRIVER",
    "GITATTRIBUTES",
    "MergeSetup",
    "configure_driver",
    "driver_problem",
    "gitattributes_path",
    "install_merge_support",
    "remove_driver",
]
