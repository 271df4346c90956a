"""Stamp a note's dependencies when it is written, and refuse hashes that moved.

``note add --depends-on-file PATH`` and ``--depends-on-tree GLOB`` (and the same two
options of ``note verify``) record the hash of what is on disk now. A writer that read the
file earlier passes the hash it saw, ``PATH=SHA256`` (or ``GLOB=DIGEST``); if the file no
longer hashes so, the whole write is refused, because the note would certify content its
writer never read. Curation does the same with the dependencies a proposal carries.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from pathlib import Path, PurePosixPath

from lorebook.errors import LorebookError
from lorebook.kb.paths import resolve_inside
from lorebook.models.note import Dependency, FileDependency, TreeDependency
from lorebook.validity.check import (
    STALE,
    UNKNOWN,
    Budget,
    StatCache,
    Unreadable,
    check,
    file_hash,
    safe_rel,
    tree_digest,
)

_SUPPLIED = re.compile(r"^(?P<target>.+)=(?P<hash>[0-9a-fA-F]{64})$")


class DependencyError(LorebookError):
    """A declared dependency cannot be recorded (the message names it and says why)."""


def split_supplied(value: str) -> tuple[str, str | None]:
    """``PATH=SHA256`` -> (PATH, SHA256); a value without a hash -> (value, None)."""
    match = _SUPPLIED.match(value)
    if match is None:
        return value, None
    return match.group("target"), match.group("hash").lower()


def _relative(repo: Path, value: str, option: str) -> str:
    path = Path(value)
    if path.is_absolute():
        try:
            value = path.resolve().relative_to(repo.resolve()).as_posix()
        except ValueError:
            raise DependencyError(f"{option} {value}: it is outside the repository") from None
    value = value.removeprefix("./")
    try:
        return safe_rel(value)
    except Unreadable as exc:
        raise DependencyError(f"{option} {value}: {exc}") from None


def stamp_file(repo: Path, value: str, *, option: str = "--depends-on-file") -> FileDependency:
    """Record a file dependency: its repository-relative path and the hash of its content.

    Raises:
        DependencyError: the path leaves the repository, is a link, is not a file, or its
            content no longer has the hash the writer supplied.
    """
    target, supplied = split_supplied(value)
    rel = _relative(repo, target, option)
    try:
        resolve_inside(repo, PurePosixPath(rel), what=f"{option} {rel}")
    except LorebookError as exc:
        raise DependencyError(exc.message) from None
    try:
        sha = file_hash(str(repo), rel, Budget.unlimited(), StatCache())
    except Unreadable as exc:
        raise DependencyError(f"{option} {rel}: {exc}") from None
    if sha is None:
        path, _, given = target.rpartition("=")
        if path and (repo / path).is_file():
            raise DependencyError(
                f"{option} {value}: {given!r} is not a SHA-256 (64 hex digits)",
                hint=f"`sha256sum {path}` prints it; or pass the path alone to hash it now",
            )
        raise DependencyError(f"{option} {rel}: there is no such file in the repository")
    if supplied is not None and supplied != sha:
        raise DependencyError(
            f"{option} {rel}: the file changed since it was read (it hashes {sha[:12]}…, "
            f"not {supplied[:12]}…); nothing was written",
            hint="read the file again, check the note still holds, and pass its new hash",
        )
    return FileDependency(path=rel, sha256=sha)


def stamp_tree(repo: Path, value: str, *, option: str = "--depends-on-tree") -> TreeDependency:
    """Record a tree dependency: the glob and the digest of every file it matches now.

    A glob matching nothing is recorded too: the claim "there is no such file" becomes
    stale when one appears.

    Raises:
        DependencyError: the glob leaves the repository, or its digest is not the one the
            writer supplied.
    """
    pattern, supplied = split_supplied(value)
    pattern = pattern.removeprefix("./")
    try:
        safe_rel(pattern)
        digest = tree_digest(str(repo), pattern, Budget.unlimited(), StatCache())
    except Unreadable as exc:
        raise DependencyError(f"{option} {pattern}: {exc}") from None
    if supplied is not None and supplied != digest:
        raise DependencyError(
            f"{option} {pattern}: the files it matches changed since they were read; "
            "nothing was written",
            hint="look at the files again, check the note still holds, and pass the new digest",
        )
    return TreeDependency(tree=pattern, digest=digest)


def stamp(repo: Path, files: Iterable[str] = (), trees: Iterable[str] = ()) -> list[Dependency]:
    """Stamp every file and tree (files first, each list in the order given, no repeats)."""
    out: list[Dependency] = []
    seen: set[str] = set()
    for value in files:
        dep = stamp_file(repo, value)
        if dep.path not in seen:
            seen.add(dep.path)
            out.append(dep)
    for value in trees:
        tree = stamp_tree(repo, value)
        if tree.tree not in seen:
            seen.add(tree.tree)
            out.append(tree)
    return out


def refuse_moved(repo: Path, dependencies: Sequence[Dependency], *, what: str) -> None:
    """Refuse a write whose recorded dependencies no longer hold on disk.

    Raises:
        DependencyError: naming ``what`` and the files that changed or cannot be checked.
    """
    if not dependencies:
        return
    deps = [d.model_dump() for d in dependencies]
    verdict = check(str(repo), deps, Budget.unlimited(), StatCache())
    if verdict.state in (STALE, UNKNOWN):
        names = ", ".join(verdict.changed)
        why = "changed since it was read" if verdict.state == STALE else verdict.reason
        raise DependencyError(
            f"{what}: {names} {why}; it was not written",
            hint="propose it again from the current files, or reject the proposal",
        )
