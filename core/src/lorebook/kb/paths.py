"""The knowledge base layout, and the one validator every value that becomes a path uses."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from lorebook.constants import KB_DIRNAME
from lorebook.errors import NotInitializedError, UnsafePathError

_SEGMENT_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$")
_WINDOWS_RESERVED = frozenset(
    {"con", "prn", "aux", "nul"}
    | {f"com{i}" for i in range(1, 10)}
    | {f"lpt{i}" for i in range(1, 10)}
)


def validate_relpath(value: str, *, what: str) -> PurePosixPath:
    """Check a user- or file-supplied relative path and return it in POSIX form.

    The rules hold on every platform, so a knowledge base written on one works on all:
    no absolute path or drive, no backslash, no ``.`` or ``..`` segment, no empty
    segment, segments of letters, digits, ``.``, ``_`` and ``-`` that do not start with a
    dot, and no name Windows reserves.

    Args:
        value: The path as given (``"tooling/python"``).
        what: What the value is, for the error message (``"folder"``, ``"note id"``).

    Raises:
        UnsafePathError: naming ``what``, the value and the rule it breaks.
    """

    def bad(rule: str) -> UnsafePathError:
        return UnsafePathError(f"{what} {value!r} is not allowed: {rule}")

    if not value or not value.strip():
        raise bad("it is empty")
    if "\x00" in value:
        raise bad("it contains a NUL byte")
    if "\\" in value:
        raise bad("use '/' to separate folders, not '\\'")
    if value.startswith("/") or re.match(r"^[A-Za-z]:", value):
        raise bad("it is an absolute path; give a path relative to the knowledge base")
    parts = value.split("/")
    for part in parts:
        if part in ("", "."):
            raise bad("it has an empty or '.' segment")
        if part == "..":
            raise bad("'..' would leave the knowledge base")
        if not _SEGMENT_RE.match(part):
            raise bad(
                f"segment {part!r} must start with a letter or digit and hold only "
                "letters, digits, '.', '_' and '-' (at most 100 characters)"
            )
        if part.split(".")[0].lower() in _WINDOWS_RESERVED:
            raise bad(f"segment {part!r} is a name Windows reserves")
    return PurePosixPath(*parts)


def resolve_inside(base: Path, rel: PurePosixPath, *, what: str) -> Path:
    """Join a validated relative path to ``base``, refusing any symlink on the way.

    Every existing component from ``base`` down to the target is checked, ``base`` included,
    so a folder replaced by a link to somewhere else is refused rather than written through.

    Raises:
        UnsafePathError: a component is a symlink, or the result leaves ``base``.
    """
    current = base
    if current.is_symlink():
        raise UnsafePathError(f"{what}: {current} is a symbolic link; lorebook does not follow it")
    for part in rel.parts:
        current = current / part
        if current.is_symlink():
            raise UnsafePathError(
                f"{what} {rel.as_posix()!r}: {current} is a symbolic link; "
                "lorebook does not write through links"
            )
    resolved_base = base.resolve()
    if not current.resolve().is_relative_to(resolved_base):
        raise UnsafePathError(f"{what} {rel.as_posix()!r} resolves outside {base}")
    return current


@dataclass(frozen=True, slots=True)
class KBPaths:
    """Where everything of one repository's knowledge base lives."""

    repo: Path

    @classmethod
    def for_repo(cls, repo: str | Path) -> KBPaths:
        """Return the layout of the repository at ``repo``."""
        return cls(Path(repo))

    @property
    def root(self) -> Path:
        """``.lorebook/``."""
        return self.repo / KB_DIRNAME

    @property
    def config(self) -> Path:
        """``.lorebook/config.yaml``."""
        return self.root / "config.yaml"

    @property
    def nodes(self) -> Path:
        """``.lorebook/nodes/``: the notes."""
        return self.root / "nodes"

    @property
    def entry(self) -> Path:
        """``.lorebook/ENTRY.md``: the catalog injected at session start."""
        return self.root / "ENTRY.md"

    @property
    def graph(self) -> Path:
        """``.lorebook/GRAPH.md``: the edge overlay."""
        return self.root / "GRAPH.md"

    @property
    def summaries(self) -> Path:
        """``.lorebook/FOLDER_SUMMARIES.md``: one line per folder."""
        return self.root / "FOLDER_SUMMARIES.md"

    @property
    def redirects(self) -> Path:
        """``.lorebook/nodes/.redirects.json``: retired id -> successor ids."""
        return self.nodes / ".redirects.json"

    @property
    def conflicts(self) -> Path:
        """``.lorebook/conflicts/``."""
        return self.root / "conflicts"

    @property
    def sessions(self) -> Path:
        """``.lorebook/_sessions/`` (gitignored)."""
        return self.root / "_sessions"

    @property
    def logs(self) -> Path:
        """``.lorebook/_logs/`` (gitignored)."""
        return self.root / "_logs"

    @property
    def state(self) -> Path:
        """``.lorebook/.state/`` (gitignored)."""
        return self.root / ".state"

    @property
    def tallies(self) -> Path:
        """``.lorebook/.state/follow/``: the capture follow-up's tally of each staged log."""
        return self.state / "follow"

    @property
    def cache(self) -> Path:
        """``.lorebook/.cache/`` (gitignored)."""
        return self.root / ".cache"

    @property
    def bin(self) -> Path:
        """``.lorebook/bin/`` (gitignored): this machine's hook launcher."""
        return self.root / "bin"

    @property
    def lock(self) -> Path:
        """The lock every knowledge base writer holds."""
        return self.state / "kb.lock"

    def rel(self, path: Path) -> str:
        """Return ``path`` relative to the repository, in POSIX form."""
        return path.relative_to(self.repo).as_posix()


def find_repo(start: Path) -> Path | None:
    """Return the nearest folder at or above ``start`` holding ``.lorebook/config.yaml``."""
    start = start.resolve()
    for folder in (start, *start.parents):
        if (folder / KB_DIRNAME / "config.yaml").is_file():
            return folder
    return None


def require_repo(start: Path) -> KBPaths:
    """Return the knowledge base at or above ``start``, or fail saying how to create one."""
    repo = find_repo(start)
    if repo is None:
        raise NotInitializedError(
            f"no lorebook knowledge base at or above {start} (no {KB_DIRNAME}/config.yaml)",
            hint="run `lorebook init` at the root of your repository",
        )
    return KBPaths(repo)
