"""Create or update a repository's knowledge base and wire harnesses (``init``, ``uninstall``)."""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lorebook.config import load_config, write_config
from lorebook.fastpath.launcher import remove_launcher, write_launcher
from lorebook.gitmerge import install_merge_support
from lorebook.kb.fsutil import kb_lock, write_if_changed
from lorebook.kb.index import rebuild_indexes
from lorebook.kb.paths import KBPaths
from lorebook.mcp_config import sync_mcp
from lorebook.models.config import Config
from lorebook.plugins import get_plugins
from lorebook.pointer import install_pointer, pointer_file, remove_pointer
from lorebook.providers import HarnessSpec
from lorebook.recall.sync import reconcile
from lorebook.skills import SkillReport, sync_skills

GITIGNORE = (
    "# Per-machine and per-user files: never committed.\n"
    "bin/\n"
    "_sessions/\n"
    "_logs/\n"
    ".state/\n"
    ".cache/\n"
)


@dataclass(slots=True)
class InitReport:
    """What ``init`` or ``uninstall`` changed."""

    repo: Path
    changed: list[str] = field(default_factory=list)
    """Every file written or deleted (``created`` and ``removed`` say which were which)."""
    harnesses: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    created: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)

    def how(self, rel: str) -> str:
        """``created``, ``removed`` or ``changed``: what happened to ``rel``."""
        return "created" if rel in self.created else "removed" if rel in self.removed else "changed"

    def as_json(self) -> dict[str, Any]:
        """Return the report as a JSON-ready dict."""
        return {
            "ok": True,
            "repo": str(self.repo),
            "changed": self.changed,
            "created": self.created,
            "removed": self.removed,
            "harnesses": self.harnesses,
            "notes": self.notes,
        }

    def classify(self, before: set[str]) -> None:
        """Sort the changed files into created and removed, given the files there before."""
        self.changed = list(dict.fromkeys(self.changed))
        self.created = [r for r in self.changed if r not in before and (self.repo / r).exists()]
        self.removed = [r for r in self.changed if not (self.repo / r).exists()]


_NOT_OURS = {
    ".git", ".venv", "venv", "node_modules", ".tox", ".nox", "__pycache__", ".cache",
    "_sessions", "_logs", ".state", ".mypy_cache", ".ruff_cache", ".pytest_cache",
}  # fmt: skip
"""Folders init and uninstall never write a reported file in (and that may be large)."""


def files_present(repo: Path) -> set[str]:
    """The files where ``init`` writes: the top level and the dot folders (``/``-relative)."""
    found: set[str] = set()
    for top in repo.iterdir() if repo.is_dir() else ():
        if top.is_file():
            found.add(top.name)
        elif top.is_dir() and top.name.startswith(".") and top.name not in _NOT_OURS:
            for folder, dirs, files in os.walk(top):
                dirs[:] = [d for d in dirs if d not in _NOT_OURS]
                rel = Path(folder).relative_to(repo).as_posix()
                found.update(f"{rel}/{name}" for name in files)
    return found


def ignored_by_git(repo: Path, rels: list[str]) -> list[str]:
    """Those of ``rels`` that git ignores and does not track yet ([] outside git)."""
    if not rels:
        return []
    try:
        proc = subprocess.run(
            ["git", "check-ignore", "--stdin"],
            cwd=repo, input="\n".join(rels), capture_output=True, text=True, check=False,
        )  # fmt: skip
    except OSError:
        return []
    return [line for line in proc.stdout.splitlines() if line in rels]


def _specs(names: list[str]) -> dict[str, HarnessSpec]:
    """Look every name up before anything is written: an unknown name fails."""
    plugins = get_plugins()
    return {name: plugins.harness(name) for name in names}


def _sync_pointers(paths: KBPaths, specs: dict[str, HarnessSpec], wired: list[str]) -> list[str]:
    """Keep the pointer block in exactly the instruction files the wired harnesses read."""
    wanted = _pointer_files(paths, specs, wired)
    every = {f for spec in specs.values() for f in spec.instruction_files}
    changed = []
    for rel in sorted(every):
        target = paths.repo / rel
        if (rel in wanted and install_pointer(target)) or (
            rel not in wanted and remove_pointer(target)
        ):
            changed.append(rel)
    return changed


def _pointer_files(paths: KBPaths, specs: dict[str, HarnessSpec], wired: list[str]) -> set[str]:
    """The instruction files that get the block: one a wired host reads, for each host.

    A host that loads another chosen file by itself (Claude Code, whose ``CLAUDE.md``
    imports ``@AGENTS.md``, which Codex reads) gets no block of its own: it would read the
    block twice, every session.
    """
    from lorebook.inject.loaded import spec_loads

    chosen = {
        name: pointer_file(paths.repo, specs[name].instruction_files)
        for name in wired
        if specs[name].instruction_files
    }
    wanted = set(chosen.values())
    for name in sorted(chosen):
        own = chosen[name]
        if (wanted - {own}) & spec_loads(specs[name].event_module, str(paths.repo)):
            wanted.discard(own)
    return wanted


def _sync_skills(repo: Path, specs: dict[str, HarnessSpec], wired: list[str]) -> SkillReport:
    """Keep the curation skill in exactly the skill folders the wired harnesses read."""
    wanted = [folder for name in wired for folder in specs[name].skill_dirs]
    known = [folder for spec in specs.values() for folder in spec.skill_dirs]
    return sync_skills(repo, wanted, known)


def _sync_mcp(paths: KBPaths, wired: list[str]) -> tuple[list[str], list[str]]:
    """Keep core's MCP server in exactly the MCP config files the wired harnesses read.

    Every installed harness's file is known, so our entry also leaves the file of a host
    unwired by hand (taken out of ``harnesses:`` in config.yaml).
    """
    return sync_mcp(paths, wired, get_plugins().harnesses())


def _event_modules(specs: dict[str, HarnessSpec], wired: list[str]) -> dict[str, str]:
    return {n: specs[n].event_module for n in wired if specs[n].event_module}  # type: ignore[misc]


def init_repo(repo: Path, harnesses: list[str]) -> InitReport:
    """Create ``.lorebook/`` (config, .gitignore, indexes) and wire harnesses.

    Validates every harness name before writing anything, and writes only what changes.
    Harnesses already in the config are wired again (a fresh clone's ``init`` restores the
    per-machine launcher and the note index).
    """
    paths = KBPaths(repo)
    config = load_config(paths) if paths.config.exists() else Config()
    wired = sorted(set(config.harnesses) | set(harnesses))
    specs = _specs(wired)
    config = config.model_copy(update={"harnesses": wired})
    report = InitReport(repo=repo, harnesses=wired)
    before = files_present(repo)
    paths.nodes.mkdir(parents=True, exist_ok=True)
    with kb_lock(paths.lock):
        if write_config(paths, config):
            report.changed.append(paths.rel(paths.config))
        gitignore = paths.root / ".gitignore"
        if write_if_changed(gitignore, GITIGNORE):
            report.changed.append(paths.rel(gitignore))
        merge = install_merge_support(paths)  # .gitattributes + this clone's merge driver
        report.changed += merge.changed
        report.notes += merge.notes
    for name in wired:
        installed = specs[name].factory().install(repo)
        report.changed += list(installed.changed)
        report.notes += list(installed.notes)  # what the user must still do (trust, ...)
    report.changed += _sync_pointers(paths, specs, wired)
    skills = _sync_skills(repo, specs, wired)  # the in-session curation skill, where hosts look
    report.changed += skills.changed
    report.notes += skills.notes
    mcp_changed, mcp_notes = _sync_mcp(paths, wired)  # for hosts reading project MCP config
    report.changed += mcp_changed
    report.notes += mcp_notes
    rebuilt = rebuild_indexes(paths, config.budgets.entry_chars)
    report.changed += list(rebuilt.written) + list(rebuilt.notes_relinked)
    reconcile(paths)
    if wired:
        launcher = write_launcher(paths, _event_modules(specs, wired))
        report.notes += [f"wrote this machine's hook launcher: {rel}" for rel in launcher]
    else:
        report.notes.append("no harness wired yet: run `lorebook init --harnesses <name>`")
    report.classify(before)
    kept = [rel for rel in report.changed if rel not in report.removed]
    ignored = ignored_by_git(repo, kept)
    if ignored:  # a committed file the team's clones need, which a commit would leave out
        more = f" and {len(ignored) - 3} more" if len(ignored) > 3 else ""
        shown = ", ".join(ignored[:3]) + more
        report.notes.append(
            f"git ignores {shown} (this repository's .gitignore), so a commit leaves "
            f"{'it' if len(ignored) == 1 else 'them'} out: `git add -f {ignored[0]}` to share it"
        )
    return report


def uninstall_repo(repo: Path, harnesses: list[str]) -> InitReport:
    """Unwire harnesses (all wired ones when ``harnesses`` is empty); keep every note."""
    paths = KBPaths(repo)
    config = load_config(paths)
    names = harnesses or list(config.harnesses)
    specs = _specs(sorted(set(config.harnesses) | set(names)))
    remaining = [n for n in config.harnesses if n not in names]
    report = InitReport(repo=repo, harnesses=remaining)
    before = files_present(repo)
    for name in names:
        report.changed += list(specs[name].factory().uninstall(repo).changed)
    report.changed += _sync_pointers(paths, specs, remaining)
    report.changed += _sync_skills(repo, specs, remaining).changed  # gone with the last reader
    report.changed += _sync_mcp(paths, remaining)[0]
    with kb_lock(paths.lock):
        if write_config(paths, config.model_copy(update={"harnesses": remaining})):
            report.changed.append(paths.rel(paths.config))
    if remaining:
        write_launcher(paths, _event_modules(specs, remaining))
    else:
        report.notes += [f"removed {rel}" for rel in remove_launcher(paths)]
    report.classify(before)
    return report
