"""What a host loads by itself: the helpers behind an event module's ``loaded_files``.

A harness's event module may define ``loaded_files(repo, cwd)``: the repository files its
host puts in the model's context in full, on its own, at every session start (Claude Code's
``CLAUDE.md`` and what it imports, ``AGENTS.md`` for Codex). A note derived from one of
them is then not served at that host's prompts (:mod:`lorebook.inject.loaded`): the model
has its source already. The host's own rules differ; these are the parts they share.

Paths in and out are repository-relative with ``/`` separators (what bootstrap writes in
``lb_derived_from``). Runs at session start on the hook path: standard library only.
"""

from __future__ import annotations

import os
import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator

MAX_READ_BYTES = 1 << 20
"""Largest instruction file read to follow its imports or its front matter (1 MiB)."""


def folders(repo: str, cwd: str | None) -> list[str]:
    """The folders from the repository's root down to ``cwd``: ``""``, then ``a``, ``a/b``.

    Hosts that read an instruction file in every folder between the root and where they
    run (Codex, Claude Code) read these; a ``cwd`` outside the repository (or none) is the
    root alone.
    """
    if not cwd:
        return [""]
    rel = os.path.relpath(os.path.realpath(cwd), os.path.realpath(repo))
    if rel == "." or rel == os.pardir or rel.startswith(os.pardir + os.sep):
        return [""]
    parts = rel.split(os.sep)
    return [""] + ["/".join(parts[: i + 1]) for i in range(len(parts))]


def join(folder: str, name: str) -> str:
    """``folder/name`` as a repository-relative path (``name`` alone at the root)."""
    return f"{folder}/{name}" if folder else name


def is_file(repo: str, rel: str) -> bool:
    """``rel`` is a regular file in the repository (a symbolic link is not followed)."""
    try:
        st = os.stat(os.path.join(repo, *rel.split("/")), follow_symlinks=False)
    except (OSError, ValueError):
        return False
    return (st.st_mode & 0o170000) == 0o100000


def regular(repo: str, rel: str) -> str | None:
    """The repository path of the regular file ``rel`` is, or links to; None for neither.

    ``CLAUDE.md`` linked to ``AGENTS.md`` is a common layout: the host reads the link and
    gets ``AGENTS.md``'s text, the file bootstrap took the notes from (it skips links). A
    link that leaves the repository, or ends in no regular file, loads nothing here.
    """
    if is_file(repo, rel):
        return rel
    path = os.path.join(repo, *rel.split("/"))
    if not os.path.islink(path):
        return None
    root = os.path.realpath(repo)
    try:
        target = os.path.relpath(os.path.realpath(path), root)
    except ValueError:  # Windows: a link to another drive
        return None
    if target == os.pardir or target.startswith(os.pardir + os.sep) or os.path.isabs(target):
        return None
    target = target.replace(os.sep, "/")
    return target if is_file(root, target) else None


def existing(repo: str, rels: Iterable[str]) -> list[str]:
    """The regular files of ``rels`` (a link as the file it names), in order, each once."""
    found = (regular(repo, rel) for rel in dict.fromkeys(rels))
    return list(dict.fromkeys(rel for rel in found if rel is not None))


def read_text(repo: str, rel: str) -> str | None:
    """The text of a repository file (at most :data:`MAX_READ_BYTES`), or None."""
    try:
        with open(os.path.join(repo, *rel.split("/")), "rb") as handle:
            data = handle.read(MAX_READ_BYTES + 1)
    except OSError:
        return None
    if len(data) > MAX_READ_BYTES:
        return None
    return data.decode("utf-8", errors="replace")


def inside(repo: str, base: str, target: str) -> str | None:
    """``target`` (relative to the folder ``base``, or absolute) as a repository path.

    None when it leaves the repository or names the home folder (``~/...``).
    """
    if not target or target.startswith("~"):
        return None
    if os.path.isabs(target):
        rel = os.path.relpath(os.path.normpath(target), os.path.normpath(repo))
    else:
        rel = os.path.normpath(os.path.join(*base.split("/"), target) if base else target)
    if rel == "." or rel == os.pardir or rel.startswith(os.pardir + os.sep) or os.path.isabs(rel):
        return None
    return rel.replace(os.sep, "/")


def within_bytes(repo: str, rels: Iterable[str], limit: int) -> list[str]:
    """The leading files of ``rels`` whose sizes together stay within ``limit`` bytes.

    For a host that reads its instruction files in order up to a byte cap: the file the
    cap cuts, and every one after it, is not read in full.
    """
    total = 0
    kept: list[str] = []
    for rel in rels:
        try:
            total += os.stat(os.path.join(repo, *rel.split("/"))).st_size
        except OSError:
            continue
        if total > limit:
            break
        kept.append(rel)
    return kept


def front_matter(text: str) -> Iterator[tuple[str, str]]:
    """The ``key: value`` lines of a file's ``---`` front matter (none without one)."""
    lines = text.lstrip("\ufeff").splitlines()
    if not lines or lines[0].strip() != "---":
        return
    for line in lines[1:]:
        if line.strip() == "---":
            return
        key, sep, value = line.partition(":")
        if sep and not line[:1].isspace():
            yield key.strip(), value.strip().strip("\"'")


_IMPORT = re.compile(r"(?:^|\s)@((?:[^\s\\]|\\ )+)")
_SPAN = re.compile(r"(`+).+?\1")
_FENCES = ("```", "~~~")


def imports(text: str) -> list[str]:
    r"""The ``@path`` imports of a ``CLAUDE.md``, in order (code is not read for them).

    >>> imports("See @docs/testing.md and `@not/this.md`.\n```\n@nor/this.md\n```\n@a\\ b.md")
    ['docs/testing.md', 'a b.md']
    """
    if "@" not in text:
        return []
    found: list[str] = []
    fence = ""
    for line in text.splitlines():
        head = line.lstrip()[:3]
        if fence:
            fence = "" if head == fence else fence
        elif head in _FENCES:
            fence = head
        elif "@" in line:
            found += [m.group(1).replace("\\ ", " ") for m in _IMPORT.finditer(_SPAN.sub("", line))]
    return found


TRAILING = ".,;:!?)]}'\""
"""Punctuation after an import (``see @docs/a.md.``): Copilot CLI loads ``docs/a.md``,
Claude Code looks for ``docs/a.md.`` (1.0.102 and 2.1.197, tests/e2e/test_loaded_files.py)."""


def _imported(repo: str, base: str, target: str, strip: bool) -> str | None:
    """The regular file ``target`` names: as written, then (``strip``) without punctuation."""
    for candidate in dict.fromkeys((target, target.rstrip(TRAILING) if strip else target)):
        path = inside(repo, base, candidate) if candidate else None
        if path is not None and is_file(repo, path):
            return path
    return None


def follow_imports(
    repo: str, roots: list[str], here: str, depth: int, *, strip_punctuation: bool = False
) -> list[str]:
    """``roots`` and the files they import with ``@path``, up to ``depth`` hops, in order.

    Claude Code's import rule, which Copilot CLI applies to ``CLAUDE.md`` too: a path is
    relative to the importing file (or absolute), is not read inside code, and counts only
    when it is a regular file inside the folder ``here`` the host runs in (``""``: the
    root); an import from outside it waits for the user's approval, and a headless run does
    not load it. With ``strip_punctuation``, punctuation right after the path
    (:data:`TRAILING`) is not part of it when the path as written names no file.
    """
    prefix = f"{here}/" if here else ""
    found = dict.fromkeys(roots)
    frontier = list(roots)
    for _ in range(depth):
        following: list[str] = []
        for rel in frontier:
            text = read_text(repo, rel)
            for target in imports(text) if text else ():
                path = _imported(repo, rel.rpartition("/")[0], target, strip_punctuation)
                if path is None or path in found or not path.startswith(prefix):
                    continue
                found[path] = None
                following.append(path)
        frontier = following
    return list(found)
