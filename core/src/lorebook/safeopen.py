"""Open, create and replace files under ``.lorebook/`` without following a symbolic link.

A repository can commit a symbolic link anywhere under ``.lorebook/`` (``git add -f`` puts
one even in an ignored folder): ``.cache/hookd.lock -> ../../../../.bashrc``, or
``.state/sessions -> /somewhere/else``. Hooks and the processes they start write there on
every teammate's machine, so following such a link would let a cloned repository overwrite
any file its user can write. Every file lorebook writes under a ``.lorebook`` folder is
therefore reached one folder at a time from the ``.lorebook`` folder down, each opened with
``O_DIRECTORY | O_NOFOLLOW`` relative to the one before (``openat``), and the file itself
with ``O_NOFOLLOW`` relative to its folder. A link anywhere on that chain is refused with
:class:`SymlinkRefused` naming it; a folder another process swaps for a link between two
steps is refused the same way, since no step looks a path up again.

Paths outside a ``.lorebook`` folder (the personal store's own folder, an export) have only
their last component checked. Where the platform has no ``openat`` (Windows), every folder
on the chain is checked with ``lstat`` before the path is used.

Standard library only: the hook's fast path imports it.
"""

from __future__ import annotations

import errno
import os
import stat

KB_DIRNAME = ".lorebook"  # lorebook.constants.KB_DIRNAME (this module imports no lorebook module)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_BINARY = getattr(os, "O_BINARY", 0)
AT = bool(_NOFOLLOW and _DIRECTORY) and {os.open, os.mkdir, os.rename} <= os.supports_dir_fd
"""Whether folders are walked with ``openat`` (POSIX); else with ``lstat`` checks."""


class SymlinkRefused(OSError):
    """A symbolic link stands where lorebook was about to write (the message names it)."""

    def __init__(self, link: str, target: str) -> None:
        super().__init__(
            errno.ELOOP,
            f"{link} is a symbolic link; lorebook does not follow symbolic links under "
            f".lorebook (it was about to write {target})",
        )
        self.link = link
        self.filename = target


def kb_chain(path: str) -> tuple[str, list[str]]:
    """Split ``path`` into the folder holding its ``.lorebook`` folder and the names below it.

    ``("/repo", [".lorebook", ".cache", "hookd.lock"])``; a path with no ``.lorebook``
    component splits into its folder and its last name.
    """
    absolute = os.path.abspath(path)
    parts = absolute.split(os.sep)
    if KB_DIRNAME in parts[:-1]:
        root = len(parts) - 1 - parts[::-1].index(KB_DIRNAME)
        return os.sep.join(parts[:root]) or os.sep, parts[root:]
    return os.path.dirname(absolute), [os.path.basename(absolute)]


def _is_link_error(exc: OSError) -> bool:
    return exc.errno in (errno.ELOOP, errno.ENOTDIR, errno.EMLINK)


def open_folder(folder: str, *, create: bool = True) -> int:
    """A descriptor of ``folder``, reached without following a link from ``.lorebook`` down.

    Missing folders are created (``create``), owner-writable, but never a ``.lorebook``
    folder or one above it: ``lorebook init`` makes the knowledge base, and a repository
    removed while a detached capture still runs stays removed. The caller closes it.

    Raises:
        SymlinkRefused: a folder on the chain is a symbolic link (or not a folder).
        FileNotFoundError: a folder is missing and ``create`` is False, or it is the
            ``.lorebook`` folder or one above it.
        OSError: the OS refused (permission, read-only, full disk).
    """
    base, names = kb_chain(os.path.join(folder, "x"))
    names = names[:-1]
    in_kb = names[:1] == [KB_DIRNAME]
    if not AT:
        _check_chain(base, names, folder)
        if create and in_kb and not os.path.isdir(os.path.join(base, KB_DIRNAME)):
            raise FileNotFoundError(
                errno.ENOENT, "no knowledge base", os.path.join(base, KB_DIRNAME)
            )
        if create:
            os.makedirs(folder, exist_ok=True)
        return os.open(folder, os.O_RDONLY | _BINARY)
    try:
        fd = os.open(base, os.O_RDONLY | _DIRECTORY)
    except FileNotFoundError:  # above .lorebook (or a path outside one): plain folders
        if not create or in_kb:
            raise
        os.makedirs(base, exist_ok=True)
        fd = os.open(base, os.O_RDONLY | _DIRECTORY)
    walked = base
    try:
        for depth, name in enumerate(names):
            walked = os.path.join(walked, name)
            try:
                step = os.open(name, os.O_RDONLY | _DIRECTORY | _NOFOLLOW, dir_fd=fd)
            except FileNotFoundError:
                if not create or (in_kb and depth == 0):  # .lorebook itself: init makes it
                    raise
                try:  # noqa: SIM105 (the fast path does not import contextlib)
                    os.mkdir(name, 0o755, dir_fd=fd)
                except FileExistsError:  # another process made it meanwhile
                    pass
                try:
                    step = os.open(name, os.O_RDONLY | _DIRECTORY | _NOFOLLOW, dir_fd=fd)
                except OSError as exc:
                    if _is_link_error(exc):
                        raise SymlinkRefused(walked, folder) from None
                    raise
            except OSError as exc:
                if _is_link_error(exc):
                    raise SymlinkRefused(walked, folder) from None
                raise
            os.close(fd)
            fd = step
    except BaseException:
        os.close(fd)
        raise
    return fd


def _check_chain(base: str, names: list[str], target: str) -> None:
    """Without ``openat``: refuse when a component from ``.lorebook`` down is a link."""
    walked = base
    for name in names:
        walked = os.path.join(walked, name)
        try:
            mode = os.lstat(walked).st_mode
        except FileNotFoundError:
            return
        if stat.S_ISLNK(mode) or not stat.S_ISDIR(mode):
            raise SymlinkRefused(walked, target)


class folder_of:
    """The descriptor of ``path``'s folder (see :func:`open_folder`), closed after.

    A class, not ``contextlib.contextmanager``: the hook's fast path does not import
    contextlib.
    """

    def __init__(self, path: str, *, create: bool = True) -> None:
        self.fd = open_folder(os.path.dirname(os.path.abspath(path)), create=create)

    def __enter__(self) -> int:
        return self.fd

    def __exit__(self, *exc: object) -> None:
        os.close(self.fd)


def makedirs(folder: str) -> None:
    """Create ``folder`` and its missing parents, refusing a link on the way."""
    os.close(open_folder(folder, create=True))


def open_file(path: str, flags: int, mode: int = 0o644, *, create_folders: bool = True) -> int:
    """``os.open(path, flags | O_NOFOLLOW, mode)``, its folders reached without links.

    Raises:
        SymlinkRefused: ``path`` or a folder on its chain is a symbolic link.
        OSError: as ``os.open``.
    """
    name = os.path.basename(path)
    with folder_of(path, create=create_folders) as folder:
        try:
            if AT:
                return os.open(name, flags | _NOFOLLOW | _BINARY, mode, dir_fd=folder)
            if os.path.islink(path):
                raise SymlinkRefused(path, path)
            return os.open(path, flags | _NOFOLLOW | _BINARY, mode)
        except OSError as exc:
            if exc.errno == errno.ELOOP and not isinstance(exc, SymlinkRefused):
                raise SymlinkRefused(os.path.abspath(path), path) from None
            raise


def temp_name(name: str) -> str:
    """A new temporary name for a write of ``name``: a dot-file naming the writer's pid."""
    return f".{name}.{os.getpid()}.{os.urandom(4).hex()}.tmp"


def write_atomic(path: str, *parts: bytes, sync: bool = True) -> None:
    """Replace ``path`` with ``parts``: a temporary file in its folder renamed over it.

    The parts are written one after another, never joined first (a vectors file's parts
    are megabytes each). The folder is reached without links; a link at ``path`` itself is
    refused (a rename would only replace the link, but the user should see that one was
    committed). No temporary file is left on failure.

    Raises:
        SymlinkRefused: ``path`` or a folder on its chain is a symbolic link.
        OSError: the write failed; the old content is intact.
    """
    name = os.path.basename(path)
    tmp = temp_name(name)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _BINARY
    with folder_of(path) as folder:
        at = folder if AT else None
        full = tmp if AT else os.path.join(os.path.dirname(os.path.abspath(path)), tmp)
        try:
            mode = os.lstat(name if AT else path, dir_fd=at).st_mode
        except FileNotFoundError:
            mode = 0
        if stat.S_ISLNK(mode):
            raise SymlinkRefused(os.path.abspath(path), path)
        try:
            fd = os.open(full, flags, 0o644, dir_fd=at)
            try:
                for part in parts:
                    view = memoryview(part)
                    while view:
                        view = view[os.write(fd, view) :]
                if sync:
                    os.fsync(fd)
            finally:
                os.close(fd)
            if AT:
                os.replace(tmp, name, src_dir_fd=folder, dst_dir_fd=folder)
            else:
                os.replace(full, path)
        except BaseException:
            try:  # noqa: SIM105 (the fast path does not import contextlib)
                os.unlink(full, dir_fd=at)
            except OSError:
                pass
            raise


SQLITE_FILES = ("", "-journal", "-wal", "-shm")
"""A SQLite database's file and the side files SQLite opens beside it, by suffix."""


def refuse_links(path: str, suffixes: tuple[str, ...] = ("",)) -> None:
    """Make ``path``'s folders without following a link; refuse a link at ``path + suffix``.

    For files another library opens by name (SQLite follows links, its journal's too):
    ``refuse_links(index, SQLITE_FILES)`` before connecting.

    Raises:
        SymlinkRefused: a folder on the chain, or one of the files, is a symbolic link.
    """
    name = os.path.basename(path)
    with folder_of(path) as folder:
        for suffix in suffixes:
            at, full = (folder, name + suffix) if AT else (None, path + suffix)
            try:
                mode = os.lstat(full, dir_fd=at).st_mode
            except FileNotFoundError:
                continue
            if stat.S_ISLNK(mode):
                raise SymlinkRefused(os.path.abspath(path + suffix), path)


def touch(path: str) -> None:
    """Create ``path`` empty if missing, else set its times to now; never through a link."""
    fd = open_file(path, os.O_WRONLY | os.O_CREAT)
    try:
        if os.utime in os.supports_fd:
            os.utime(fd)
        else:
            os.utime(path)
    finally:
        os.close(fd)


def crosses_link(path: str) -> bool:
    """Whether ``path`` or a folder between it and its ``.lorebook`` folder is a link.

    For code that walks or deletes by path (pruning): a linked folder is left alone.
    """
    base, names = kb_chain(path)
    walked = base
    for name in names:
        walked = os.path.join(walked, name)
        if os.path.islink(walked):
            return True
    return False


def links_under(kb_root: str, *, limit: int = 50) -> list[str]:
    """The symbolic links inside ``kb_root`` (and ``kb_root`` itself), at most ``limit``.

    For ``lorebook doctor``: a link is never followed by a write, but the user should know
    that one was committed.
    """
    found: list[str] = []
    if os.path.islink(kb_root):
        return [kb_root]
    for folder, dirs, files in os.walk(kb_root):
        for name in [*dirs, *files]:
            full = os.path.join(folder, name)
            if os.path.islink(full):
                found.append(full)
                if len(found) >= limit:
                    return found
    return found
