"""Re-check a note's declared dependencies when it is read, within a budget.

Runs on the hook fast path: standard library only, and not even :mod:`hashlib` (which
loads OpenSSL: about 3 ms measured, against 0.2 ms for CPython's built-in sha256 module,
which gives the same digest). A file is hashed only when its size, modification time or
inode differ from the stat cache in ``.lorebook/.cache/validity.json``, so unchanged
files cost one ``lstat``.

A check says one of four things:

- ``unchanged``: every declared file and tree hashes as it did when the note was written;
- ``stale``: at least one changed (or a declared file is gone);
- ``unknown``: nothing changed as far as the check got, but it could not finish (the budget
  of files, bytes or milliseconds ran out, a file was unreadable or a symbolic link).
  Unknown never counts as unchanged;
- ``untracked``: the note declares no dependency.
"""

from __future__ import annotations

import json
import os
import stat
import time

from lorebook.kb.globs import glob_regex

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Mapping
    from typing import Any

UNCHANGED = "unchanged"
STALE = "stale"
UNKNOWN = "unknown"
UNTRACKED = "untracked"
SOURCE_GONE = "the documents it quotes no longer say it"
"""The reason of a stale note whose quoted sentence left its documents
(:func:`lorebook.validity.report.source_gone`)."""

MAX_FILES = 256
"""Files one read may look at (all the notes it serves together)."""
MAX_BYTES = 16 * 1024 * 1024
"""Bytes one read may hash (files whose stat is cached cost none)."""
MAX_MS = 200
"""Milliseconds one read may spend checking."""
MAX_ENTRIES = 10_000
"""Directory entries one read may scan to expand tree globs."""
RACY_NS = 2_000_000_000
"""A file modified this recently is hashed but not cached: another write within the same
clock tick would leave its stat unchanged (git's "racily clean" problem)."""
CACHE_NAME = "validity.json"
SKIPPED_DIRS = frozenset({".git", ".hg", ".svn"})
"""Folders a tree glob never descends into."""


def _sha256() -> Callable[[bytes], Any]:
    # CPython's built-in module is _sha2 from 3.12 on, _sha256 before; other interpreters
    # get hashlib.
    for name in ("_sha2", "_sha256"):
        try:
            return __import__(name).sha256  # type: ignore[no-any-return]  # not importlib: ~0.4 ms
        except (ImportError, AttributeError):
            continue
    from hashlib import sha256

    return sha256


def content_hash(data: bytes) -> str:
    """sha256 of file content with CRLF line endings read as LF (same on every OS)."""
    return str(_sha256()(data.replace(b"\r\n", b"\n")).hexdigest())


def digest_pairs(pairs: Iterable[tuple[str, str]]) -> str:
    """The digest of a tree: sha256 over its sorted ``path NUL sha256 LF`` lines."""
    text = "".join(f"{path}\x00{sha}\n" for path, sha in sorted(pairs))
    return str(_sha256()(text.encode("utf-8")).hexdigest())


class Spent(Exception):
    """The check's budget ran out (the message says which part)."""


class Unreadable(Exception):
    """A declared input cannot be checked (the message says why)."""


class Budget:
    """What one read may spend checking: files, bytes hashed, directory entries, time."""

    __slots__ = ("bytes", "end", "entries", "files")

    def __init__(
        self,
        files: int | None = None,
        bytes: int | None = None,
        ms: float | None = None,
        entries: int | None = None,
    ) -> None:
        """Limits default to :data:`MAX_FILES`, :data:`MAX_BYTES`, :data:`MAX_MS`, ..."""
        self.files = MAX_FILES if files is None else files
        self.bytes = MAX_BYTES if bytes is None else bytes
        self.entries = MAX_ENTRIES if entries is None else entries
        self.end = time.monotonic() + (MAX_MS if ms is None else ms) / 1000

    @classmethod
    def unlimited(cls) -> Budget:
        """No limit (writers stamping a note use it)."""
        return cls(files=1 << 62, bytes=1 << 62, ms=1e12, entries=1 << 62)

    def _time(self) -> None:
        if time.monotonic() > self.end:
            raise Spent("the check ran out of its time budget")

    def take_file(self) -> None:
        """Spend one file, or raise :class:`Spent`."""
        self._time()
        if self.files <= 0:
            raise Spent("the check ran out of its budget of files")
        self.files -= 1

    def take_bytes(self, size: int) -> None:
        """Spend ``size`` bytes of hashing, or raise :class:`Spent`."""
        if size > self.bytes:
            raise Spent("the check ran out of its budget of bytes to hash")
        self.bytes -= size

    def take_entry(self) -> None:
        """Spend one directory entry, or raise :class:`Spent`."""
        if self.entries <= 0:
            raise Spent("the check ran out of its budget of directory entries")
        self.entries -= 1
        if self.entries % 256 == 0:
            self._time()


class StatCache:
    """File path -> (size, mtime, inode, sha256), so an unchanged file is never re-hashed."""

    __slots__ = ("dirty", "entries", "hashed", "path")

    def __init__(self, path: str | None = None) -> None:
        self.path = path
        self.entries: dict[str, list[Any]] = {}
        self.dirty = False
        self.hashed: list[str] = []
        """Files this cache's user had to hash (tests read it)."""
        if path is not None:
            try:
                with open(path, encoding="utf-8") as handle:
                    data = json.load(handle)
                files = data.get("files") if isinstance(data, dict) else None
                if isinstance(files, dict):
                    self.entries = files
            except (OSError, ValueError):
                pass  # a missing or broken cache only costs hashing

    @classmethod
    def for_kb(cls, kb_root: str) -> StatCache:
        """The cache of the knowledge base at ``kb_root`` (``.lorebook/``)."""
        return cls(os.path.join(kb_root, ".cache", CACHE_NAME))

    def get(self, rel: str, st: os.stat_result) -> str | None:
        """The cached hash of ``rel`` if its stat is unchanged, else None."""
        entry = self.entries.get(rel)
        if (
            isinstance(entry, list)
            and len(entry) == 4
            and entry[:3] == [st.st_size, st.st_mtime_ns, st.st_ino]
            and isinstance(entry[3], str)
        ):
            return entry[3]
        return None

    def put(self, rel: str, st: os.stat_result, sha: str) -> None:
        """Remember the hash of ``rel`` unless it was modified too recently to trust."""
        self.hashed.append(rel)
        if time.time_ns() - st.st_mtime_ns < RACY_NS:
            self.entries.pop(rel, None)
            return
        self.entries[rel] = [st.st_size, st.st_mtime_ns, st.st_ino, sha]
        self.dirty = True

    def save(self) -> None:
        """Write the cache back (atomically) if it changed; never raise."""
        if not self.dirty or self.path is None:
            return
        tmp = f"{self.path}.{os.getpid()}.tmp"
        try:
            os.makedirs(os.path.dirname(self.path), exist_ok=True)
            with open(tmp, "w", encoding="utf-8") as handle:
                json.dump({"version": 1, "files": self.entries}, handle, sort_keys=True)
            os.replace(tmp, self.path)
            self.dirty = False
        except OSError:
            _remove_quietly(tmp)


def _remove_quietly(path: str) -> None:
    try:
        os.remove(path)
    except OSError:  # contextlib costs the hook path ~0.6 ms to import
        return


def safe_rel(rel: object) -> str:
    """Return a repository-relative POSIX path, or raise :class:`Unreadable`."""
    if not isinstance(rel, str) or not rel or "\\" in rel or "\x00" in rel:
        raise Unreadable(f"{rel!r} is not a repository-relative path")
    parts = rel.split("/")
    if rel.startswith("/") or (len(rel) > 1 and rel[1] == ":") or ".." in parts or "" in parts:
        raise Unreadable(f"{rel!r} is not a path inside the repository")
    return rel


def _regular_file(repo: str, rel: str) -> tuple[str, os.stat_result] | None:
    """The full path and ``lstat`` of ``repo/rel``; None when the file does not exist.

    Raises:
        Unreadable: the path is unsafe, a symbolic link, not a regular file, or unreadable.
    """
    full = os.path.join(repo, *safe_rel(rel).split("/"))
    try:
        st = os.lstat(full)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise Unreadable(f"`{rel}` cannot be read: {exc.strerror}") from None
    if stat.S_ISLNK(st.st_mode):
        raise Unreadable(f"`{rel}` is a symbolic link; lorebook does not follow it")
    if not stat.S_ISREG(st.st_mode):
        raise Unreadable(f"`{rel}` is not a regular file")
    return full, st


def _read(full: str, rel: str, st: os.stat_result, budget: Budget) -> bytes:
    """The bytes of a file :func:`_regular_file` found, spending its size of the budget.

    Raises:
        Spent: the budget ran out.
        Unreadable: it cannot be read.
    """
    budget.take_bytes(st.st_size)
    try:
        with open(full, "rb") as handle:
            return handle.read(st.st_size + 1)
    except OSError as exc:
        raise Unreadable(f"`{rel}` cannot be read: {exc.strerror}") from None


def file_hash(repo: str, rel: str, budget: Budget, cache: StatCache) -> str | None:
    """The content hash of ``repo/rel``; None when the file does not exist.

    Raises:
        Spent: the budget ran out.
        Unreadable: the path is unsafe, a symbolic link, not a regular file, or unreadable.
    """
    found = _regular_file(repo, rel)
    if found is None:
        return None
    full, st = found
    budget.take_file()
    cached = cache.get(rel, st)
    if cached is not None:
        return cached
    sha = content_hash(_read(full, rel, st, budget))
    cache.put(rel, st, sha)
    return sha


def _fixed_prefix(pattern: str) -> str:
    """The folders of a glob before its first wildcard (``src/db`` for ``src/db/**/*.py``)."""
    parts = pattern.split("/")[:-1]
    fixed = []
    for part in parts:
        if any(ch in part for ch in "*?["):
            break
        fixed.append(part)
    return "/".join(fixed)


def tree_files(repo: str, pattern: str, budget: Budget) -> list[str]:
    """Every regular file under ``repo`` whose relative path matches ``pattern``, sorted."""
    if pattern.startswith("/") or ".." in pattern.split("/"):
        raise Unreadable(f"tree {pattern!r} is not a glob inside the repository")
    regex = glob_regex(pattern)
    prefix = _fixed_prefix(pattern)
    found: list[str] = []
    stack = [prefix]
    while stack:
        rel_dir = stack.pop()
        try:
            entries = list(os.scandir(os.path.join(repo, *rel_dir.split("/")) if rel_dir else repo))
        except FileNotFoundError:
            continue
        except OSError as exc:
            raise Unreadable(f"`{rel_dir or '.'}` cannot be listed: {exc.strerror}") from None
        for entry in entries:
            budget.take_entry()
            rel = f"{rel_dir}/{entry.name}" if rel_dir else entry.name
            if entry.is_dir(follow_symlinks=False):
                if entry.name not in SKIPPED_DIRS:
                    stack.append(rel)
            elif entry.is_file(follow_symlinks=False) and regex.match(rel):
                found.append(rel)
    return sorted(found)


def tree_digest(repo: str, pattern: str, budget: Budget, cache: StatCache) -> str:
    """The digest of every file the glob matches now (see :func:`digest_pairs`)."""
    pairs = []
    for rel in tree_files(repo, pattern, budget):
        sha = file_hash(repo, rel, budget, cache)
        if sha is not None:
            pairs.append((rel, sha))
    return digest_pairs(pairs)


class Verdict:
    """The outcome of one note's check.

    Attributes:
        state: ``unchanged``, ``stale``, ``unknown`` or ``untracked``.
        changed: The declared files or tree globs that changed (stale) or could not be
            checked (unknown), in declaration order.
        reason: Why the check could not finish (unknown), or "" otherwise.
    """

    __slots__ = ("changed", "reason", "state")

    def __init__(self, state: str, changed: tuple[str, ...] = (), reason: str = "") -> None:
        self.state = state
        self.changed = changed
        self.reason = reason

    def __repr__(self) -> str:
        return f"Verdict({self.state!r}, changed={self.changed!r}, reason={self.reason!r})"

    @property
    def fresh(self) -> bool:
        """True when nothing says the note may be out of date (unchanged or untracked)."""
        return self.state in (UNCHANGED, UNTRACKED)

    def mark(self) -> str:
        """The line a served note carries when it is not fresh ("" when it is)."""
        names = ", ".join(f"`{name}`" for name in self.changed)
        if self.state == STALE and self.reason == SOURCE_GONE:
            return f"recheck: {names} no longer says what it quotes"
        if self.state == STALE:
            verb = "changed" if len(self.changed) == 1 else "have changed"
            return f"recheck: {names} {verb} since this was written"
        if self.state == UNKNOWN:
            return f"recheck: {names} could not be verified ({self.reason}); treat it as unverified"
        return ""


def _one(repo: str, dep: Mapping[str, Any], budget: Budget, cache: StatCache) -> bool:
    """True when the dependency still hashes as recorded."""
    if "path" in dep:
        return file_hash(repo, dep["path"], budget, cache) == dep.get("sha256")
    if "tree" in dep and isinstance(dep["tree"], str):
        return tree_digest(repo, dep["tree"], budget, cache) == dep.get("digest")
    raise Unreadable("a dependency names neither a path nor a tree")


_QUOTED_SOURCE = None


QUOTE_WORDS = 10
"""The words of a quote's first line that its document must still hold, in that order."""
QUOTE_SPREAD = 3
"""How far apart, at most, those words may stand in the document (times their number):
markup the quote left out sits between them (reStructuredText's ``:meth:`~a.b``)."""


def _words(text: str) -> list[str]:
    """Its words, lower case: markup and wrapping aside, how a quote and a document compare."""
    import re

    return re.findall(r"[^\W_]+", text.lower())


def _says(doc: list[str], quote: list[str]) -> bool:
    """Whether ``doc`` holds ``quote``'s words in order, close together."""
    span = QUOTE_SPREAD * len(quote)
    for start, word in enumerate(doc):
        if word != quote[0]:
            continue
        at, found = start + 1, 1
        while found < len(quote) and at < min(len(doc), start + span):
            found += doc[at] == quote[found]
            at += 1
        if found == len(quote):
            return True
    return False


def source_gone(
    repo: str,
    body: str,
    cited: Iterable[str],
    budget: Budget,
    read: dict[str, list[str]],
    cache: StatCache | None = None,
) -> str | None:
    """The document a note's body quotes, when none of the documents quoted says it now.

    A note bootstrap distilled quotes the sentence each document states it with
    (``> the sentence`` then ``From `doc`, under ...``); once the sentence left every
    document the note cites (``cited``: its ``lb_derived_from`` files), it is no longer
    the documentation's rule. ``read`` keeps the documents read (their words) for the next
    note; ``cache`` remembers each answer against the document's stat, so a document that
    did not change costs one ``lstat``. None when the body quotes no cited document, one
    still says it, or none of them is in the repository: a document renamed or deleted, or
    another repository's (a note a pack brought) cannot say whether the rule still holds.

    Raises:
        Spent: the budget ran out.
    """
    global _QUOTED_SOURCE
    if _QUOTED_SOURCE is None:
        import re

        _QUOTED_SOURCE = re.compile(r"^> (.+)\n(?:> .*\n)*\s*\nFrom `([^`]+)`", re.M)
    wanted = set(cited)
    pairs = [(doc, _words(line)[:QUOTE_WORDS]) for line, doc in _QUOTED_SOURCE.findall(body)]
    quoted = [(doc, words) for doc, words in pairs if doc in wanted and words]
    silent: list[str] = []  # the documents here that no longer say what the note quotes
    for doc, words in quoted:
        try:
            file = _regular_file(repo, doc)
        except Unreadable:
            return None  # unknown is not gone
        if file is None:
            continue  # not here: renamed, deleted, or another repository's (a pack's note)
        full, st = file
        key = f"says:{doc}:{_sha256()(' '.join(words).encode('utf-8')).hexdigest()[:16]}"
        said = cache.get(key, st) if cache is not None else None
        if said is None:
            if doc not in read:
                budget.take_file()
                try:
                    read[doc] = _words(_read(full, doc, st, budget).decode("utf-8", "replace"))
                except Unreadable:
                    return None
            said = "yes" if _says(read[doc], words) else "no"
            if cache is not None:
                cache.put(key, st, said)
        if said == "yes":
            return None
        silent.append(doc)
    return silent[0] if silent else None


def label(dep: Mapping[str, Any]) -> str:
    """How a dependency is named in marks and listings (its path, or its tree glob)."""
    return str(dep.get("path") or dep.get("tree") or "?")


def check(
    repo: str, deps: Iterable[Mapping[str, Any]], budget: Budget, cache: StatCache
) -> Verdict:
    """Re-check declared dependencies against the working tree at ``repo``."""
    stale: list[str] = []
    unknown: list[str] = []
    reasons: list[str] = []
    count = 0
    for dep in deps:
        count += 1
        try:
            if not _one(repo, dep, budget, cache):
                stale.append(label(dep))
        except (Spent, Unreadable) as exc:
            unknown.append(label(dep))
            if str(exc) not in reasons:
                reasons.append(str(exc))
    if not count:
        return Verdict(UNTRACKED)
    if stale:
        return Verdict(STALE, tuple(stale))
    if unknown:
        return Verdict(UNKNOWN, tuple(unknown), "; ".join(reasons))
    return Verdict(UNCHANGED)
