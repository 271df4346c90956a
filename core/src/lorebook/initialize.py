"""Create or update a repository's knowledge base, and wire harnesses (``lorebook init``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lorebook.config import load_config, write_config
from lorebook.errors import NotSupportedYetError
from lorebook.kb.fsutil import kb_lock, write_if_changed
from lorebook.kb.index import rebuild_indexes
from lorebook.kb.paths import KBPaths
from lorebook.models.config import Config
from lorebook.plugins import get_plugins

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
    """What ``init`` changed."""

    repo: Path
    changed: list[str] = field(default_factory=list)
    harnesses: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        """Return the report as a JSON-ready dict."""
        return {
            "ok": True,
            "repo": str(self.repo),
            "changed": self.changed,
            "harnesses": self.harnesses,
            "notes": self.notes,
        }


def _check_harnesses(names: list[str]) -> None:
    """Fail before anything is written if a name is unknown or not supported yet."""
    plugins = get_plugins()
    for name in names:
        spec = plugins.harness(name)
        if spec.factory is None:
            raise NotSupportedYetError(
                f"harness {name!r} is not supported yet: its plugin is installed, but this "
                "version of lorebook cannot wire it",
                hint="nothing was written; wire a supported harness, or upgrade lorebook",
            )


def init_repo(repo: Path, harnesses: list[str]) -> InitReport:
    """Create ``.lorebook/`` (config, .gitignore, generated indexes) and wire harnesses.

    Validates every harness name before writing anything, and writes only what changes.
    """
    _check_harnesses(harnesses)
    paths = KBPaths(repo)
    report = InitReport(repo=repo)
    config = load_config(paths) if paths.config.exists() else Config()
    wanted = sorted(set(config.harnesses) | set(harnesses))
    config = config.model_copy(update={"harnesses": wanted})
    paths.nodes.mkdir(parents=True, exist_ok=True)
    with kb_lock(paths.lock):
        if write_config(paths, config):
            report.changed.append(paths.rel(paths.config))
        gitignore = paths.root / ".gitignore"
        if write_if_changed(gitignore, GITIGNORE):
            report.changed.append(paths.rel(gitignore))
    rebuilt = rebuild_indexes(paths, config.budgets.entry_chars)
    report.changed += list(rebuilt.written) + list(rebuilt.notes_relinked)
    report.harnesses = wanted
    if not harnesses and not config.harnesses:
        report.notes.append(
            "no harness wired yet: run `lorebook init --harnesses <name>` to connect one"
        )
    return report
