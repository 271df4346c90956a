"""A whole file that lorebook owns in a repository (a host plugin, a rules file).

Some hosts are wired by a file of lorebook's own rather than by entries in a shared file
(OpenCode reads JS plugins from ``.opencode/plugins/``, Cursor always-applied rules from
``.cursor/rules/``). Such a file carries a marker line; a file of the same name without it
is the user's and is never overwritten or removed (install says so and goes on). Install
writes only what changes; uninstall removes our file and the folders it leaves empty
(never the repository itself); check says ``ok``, ``changed`` (ours, but not this
version) or ``missing``.

Not for the hook path: it imports ``pathlib`` and the atomic writer.
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from lorebook.errors import UnsafePathError
from lorebook.kb.fsutil import write_if_changed
from lorebook.kb.paths import resolve_inside

if TYPE_CHECKING:
    from lorebook.harness import CheckState


class ManagedFile:
    """One file lorebook writes whole: its repository-relative path, text and marker.

    Args:
        path: The file, relative to the repository (``.opencode/plugins/lorebook.js``).
        text: The exact content lorebook installs (it must contain ``marker``).
        marker: The line that says a file is lorebook's (any version of it).
    """

    def __init__(self, path: str, text: str, marker: str) -> None:
        """Bind the file's path, text and marker."""
        if marker not in text:
            raise ValueError(f"the text of {path} does not hold its marker")
        self.path = path
        self.text = text
        self.marker = marker

    def _target(self, repo: Path) -> Path:
        return resolve_inside(repo, PurePosixPath(self.path), what="managed file")

    def read(self, repo: Path) -> str | None:
        """The file's text (None when it does not exist or is not UTF-8 text)."""
        try:
            return (repo / self.path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return None

    def is_ours(self, repo: Path) -> bool:
        """Whether the file exists and carries the marker."""
        text = self.read(repo)
        return text is not None and self.marker in text

    def install(self, repo: Path) -> tuple[bool, str | None]:
        """Write the file; (whether it was written, a note when a user's file is in the way)."""
        try:
            target = self._target(repo)
        except UnsafePathError as exc:
            return False, f"left {self.path} alone: {exc.message}"
        if target.exists() and not self.is_ours(repo):
            return False, (
                f"left {self.path} alone: it is not lorebook's (no lorebook marker); move it "
                "away and run `lorebook init` again"
            )
        return write_if_changed(target, self.text), None

    def uninstall(self, repo: Path) -> bool:
        """Remove the file if it is ours, and the folders it leaves empty; True if removed."""
        if not self.is_ours(repo):
            return False
        try:
            target = self._target(repo)
        except UnsafePathError:
            return False
        target.unlink()
        folder = target.parent
        while folder != repo and folder.is_dir() and not any(folder.iterdir()):
            folder.rmdir()
            folder = folder.parent
        return True

    def state(self, repo: Path) -> CheckState:
        """``ok`` (this version), ``changed`` (ours, edited or older) or ``missing``."""
        text = self.read(repo)
        if text == self.text:
            return "ok"
        return "changed" if text is not None and self.marker in text else "missing"
