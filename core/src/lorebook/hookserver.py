"""The warm hook process: one per repository, a forked child per event.

Started by a hook that answered in its own process (:func:`start_server`, called by
:func:`lorebook.hook.run`), through the launcher (``.lorebook/bin/hook --serve``). It
imports what the fast-path events need (:data:`WARM_MODULES` and the wired harnesses'
translators), then listens on ``.lorebook/.cache/hookd.sock``. For each event the launcher
connects, passes its standard input, output and error, and the server forks: the child puts
those descriptors in place, takes the launcher's arguments, environment, working folder,
umask and start time, and runs :func:`lorebook.hook.run` exactly as the launcher would
have, so every read of the index, the notes, the configuration and the session state
happens in the child, on the files as they are now. The server itself reads no note and
keeps no data between events: only code.

It refuses an event (the launcher then answers in-process) and exits when any lorebook
module it imported, a translator, the top module of another package it imported (simsimd,
numpy), or the launcher changed on disk since it started (an upgrade, or ``lorebook init``
rewiring the harnesses), or when ``budgets.hook_server_minutes`` became 0. It exits after
that many minutes without an event, when its socket file is removed or replaced, when the
launcher is removed, on SIGTERM, and when asked (:func:`lorebook.hookclient.stop_server`).
Only a connection from the same user is served (``SO_PEERCRED``); the socket is created
readable and writable by its owner only. One server runs per knowledge base (an exclusive
lock on ``hookd.lock``); one that cannot start writes why to ``hookd.failed``, and hooks
do not start another for an hour.
"""

from __future__ import annotations

import contextlib
import os
import sys
import time

from lorebook.hookclient import STDIO, Request, decode_request, peer_uid, socket_path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from socket import socket

LOCK_NAME = "hookd.lock"
FAILED_NAME = "hookd.failed"
"""Written when a server cannot start: the reason, one line."""
RETRY_AFTER = 3600.0
"""Seconds after a failed start during which hooks start no other server."""
TICK = 5.0
"""Seconds between the checks an idle server makes (idle time, socket, launcher)."""
MAX_REQUEST = 1 << 20
"""A request larger than this is refused (arguments and environment, not the payload)."""
WARM_MODULES = (
    "lorebook.hook",
    "lorebook.hookconfig",
    "lorebook.hookinput",
    "lorebook.events",
    "lorebook.inject.stages",
    "lorebook.inject.served",
    "lorebook.inject.session",
    "lorebook.inject.render",
    "lorebook.inject.sanitize",
    "lorebook.recall.pipeline",
    "lorebook.recall.semantic",
    "lorebook.recall.piecefile",
    "lorebook.recall.dense",
    "lorebook.recall.vectorfile",
    "lorebook.validity.check",
    "lorebook.validity.fields",
    "lorebook.stats.usage",
    "lorebook.stats.timing",
    "lorebook.appendlog",
    "lorebook.hostkit.once",
    "lorebook.bounds",
    "lorebook.recall.freshness",
    "lorebook.recall.writer",
    "select",
)
"""What a prompt, a tool event or a session start imports (a test runs each after warm-up
and checks it imported nothing more). Capture's modules load in its child, as they would
in its own process."""
OPTIONAL_MODULES = ("simsimd", "numpy", "lorebook.recall.wholesum")
"""Imported when installed (the semantic extra brings both): with numpy loaded, a child
scores a prompt's many postings in compiled code (:mod:`lorebook.recall.wholesum`)."""


class Stamps:
    """(mtime, size) of the files whose change makes this server's code stale."""

    def __init__(self, paths: list[str]) -> None:
        self.stamps = {path: self._stamp(path) for path in dict.fromkeys(paths)}

    @staticmethod
    def _stamp(path: str) -> tuple[int, int] | None:
        try:
            info = os.stat(path)
        except OSError:
            return None
        return info.st_mtime_ns, info.st_size

    def changed(self) -> str | None:
        """The first file that changed or went away since, or None."""
        for path, stamp in self.stamps.items():
            if self._stamp(path) != stamp:
                return path
        return None


def code_files(tops: set[str]) -> list[str]:
    """The files of the loaded modules an upgrade or an edit changes.

    Every module of the packages ``tops`` (lorebook's, the harnesses'); of any other
    package outside the standard library (simsimd, numpy), its top module, which its
    installer rewrites (a check of each of numpy's hundred modules would cost every event).
    """
    stdlib = os.path.dirname(os.__file__) + os.sep
    files = []
    for name, module in list(sys.modules.items()):
        origin = getattr(module, "__file__", None)
        if not isinstance(origin, str) or origin.startswith(stdlib):
            continue
        if name.partition(".")[0] in tops or "." not in name:
            files.append(origin)
    return sorted(files)


def idle_minutes(kb_root: str) -> int:
    """``budgets.hook_server_minutes`` as the hooks read it."""
    from lorebook.hookconfig import load_hook_config

    return load_hook_config(kb_root).hook_server_minutes


class Server:
    """The listening socket, its lock, and what makes the server stop."""

    def __init__(self, repo: str, event_modules: Mapping[str, str], launcher: str) -> None:
        self.repo = repo
        self.kb_root = os.path.join(repo, ".lorebook")
        self.event_modules = dict(event_modules)
        self.launcher = os.path.abspath(launcher)
        self.path = socket_path(self.kb_root)
        self.cache = os.path.dirname(self.path)
        self.lock_fd = -1
        self.listener: socket | None = None
        self.inode = 0
        self.stamps = Stamps([])
        self.last = time.monotonic()
        self.minutes = 0

    def lock(self) -> bool:
        """Take the knowledge base's server lock; False when another server holds it.

        False too when ``.lorebook/.cache/`` is gone (the repository was removed meanwhile).
        """
        import fcntl

        try:  # in the folder the hook that started it wrote its index in: never created here
            self.lock_fd = os.open(
                os.path.join(self.cache, LOCK_NAME), os.O_RDWR | os.O_CREAT, 0o600
            )
        except FileNotFoundError:  # the repository went away before the server started
            return False
        try:
            fcntl.flock(self.lock_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(self.lock_fd)
            self.lock_fd = -1
            return False
        os.ftruncate(self.lock_fd, 0)
        os.write(self.lock_fd, f"{os.getpid()}\n".encode())  # for `lorebook doctor`
        return True

    def warm(self) -> None:
        """Import the fast path's modules and record the files they came from."""
        for name in (*WARM_MODULES, *self.event_modules.values()):
            __import__(name)
        for name in OPTIONAL_MODULES:
            with contextlib.suppress(ImportError):
                __import__(name)
        from lorebook.inject.sanitize import prepare

        prepare()
        tops = {"lorebook", *(name.partition(".")[0] for name in self.event_modules.values())}
        self.stamps = Stamps([self.launcher, *code_files(tops)])
        self.minutes = idle_minutes(self.kb_root)

    def listen(self) -> None:
        """Bind the socket (owner-only) where the launchers look for it."""
        import socket

        os.chdir(self.cache)  # bound by its name: a long repository path fits the limit
        name = os.path.basename(self.path)
        if os.path.lexists(name):
            os.unlink(name)  # a dead server's: the lock says no other is running
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        mask = os.umask(0o177)
        try:
            listener.bind(name)
        finally:
            os.umask(mask)
        listener.listen(128)
        listener.settimeout(TICK)
        self.listener = listener
        self.inode = os.stat(name).st_ino
        if os.path.exists(FAILED_NAME):
            os.unlink(FAILED_NAME)

    def stop_reason(self) -> str | None:
        """Why an idle server should exit now, or None."""
        if time.monotonic() - self.last > self.minutes * 60:
            return "idle"
        try:
            if os.stat(self.path).st_ino != self.inode:
                return "its socket was replaced"
        except OSError:
            return "its socket was removed"
        if not os.path.exists(self.launcher):
            return "the launcher was removed"
        return None

    def refusal(self) -> str | None:
        """Why this server must not answer an event (and exit), or None."""
        changed = self.stamps.changed()
        if changed is not None:
            return f"{changed} changed"
        self.minutes = idle_minutes(self.kb_root)
        return "budgets.hook_server_minutes is 0" if self.minutes <= 0 else None

    def close(self) -> None:
        """Stop listening, remove our socket (not a successor's), release the lock."""
        if self.listener is not None:
            self.listener.close()
            self.listener = None
            try:
                if os.stat(self.path).st_ino == self.inode:
                    os.unlink(self.path)
            except OSError:
                pass
        if self.lock_fd >= 0:
            os.close(self.lock_fd)
            self.lock_fd = -1


def serve(repo: str, event_modules: Mapping[str, str], launcher: str) -> int:
    """Run the warm hook process of ``repo`` until it has a reason to stop. Returns 0."""
    import signal

    server = Server(repo, event_modules, launcher)
    try:
        if not server.lock():
            return 0  # another server is running
        server.warm()
        if server.minutes <= 0:
            return 0
        server.listen()
    except Exception as exc:
        _failed(server, f"{type(exc).__name__}: {exc}")
        server.close()
        return 0
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # children are reaped by the kernel
    signal.signal(signal.SIGTERM, _terminate)  # exit through close(): the socket goes too
    import gc

    gc.collect()
    gc.freeze()  # what warm-up created is never collected, nor copied by a collection
    gc.enable()
    try:
        _loop(server)
    finally:
        server.close()
    return 0


def _terminate(signum: int, frame: object) -> None:
    raise SystemExit(0)


def _loop(server: Server) -> None:
    assert server.listener is not None
    while True:
        try:
            conn, _ = server.listener.accept()
        except TimeoutError:
            if server.stop_reason() is not None:
                return
            continue
        except InterruptedError:
            continue
        server.last = time.monotonic()
        with conn:
            if not _answer(server, conn):
                return


def _answer(server: Server, conn: socket) -> bool:
    """Take one connection; False when the server must stop."""
    fds: list[int] = []
    try:
        conn.settimeout(2.0)
        if peer_uid(conn, server.path) != os.getuid():
            return True
        body, fds = _receive(conn)
        if body.endswith(b"\0stop") and body.count(b"\0") == 1:
            server.close()  # no new connection from here; the caller waits for the close
            return False
        refusal = server.refusal()
        if refusal is not None or len(fds) != len(STDIO):
            conn.sendall(b"-")
            return refusal is None
        request = decode_request(body)
        if os.fork() == 0:
            _child(server, conn, fds, request)  # never returns
        conn.sendall(b"+")
    except (OSError, ValueError):
        pass  # a client that went away or sent garbage: it answers in-process
    finally:
        for fd in fds:
            os.close(fd)
    return True


def _receive(conn: socket) -> tuple[bytes, list[int]]:
    """The request's body and the descriptors that came with it."""
    import array
    import socket

    data, ancillary, _, _ = conn.recvmsg(1 << 16, socket.CMSG_SPACE(4 * len(STDIO)))
    fds = array.array("i")
    for level, kind, payload in ancillary:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            fds.frombytes(payload[: len(payload) - len(payload) % fds.itemsize])
    received = list(fds)
    try:
        if len(data) < 4:
            raise ValueError("a request without its length")
        size = int.from_bytes(data[:4], "little")
        if size > MAX_REQUEST:
            raise ValueError(f"a request of {size:,} bytes")
        chunks = [data[4:]]
        have = len(data) - 4
        while have < size:
            chunk = conn.recv(min(1 << 16, size - have))
            if not chunk:
                raise ValueError("the request ended early")
            chunks.append(chunk)
            have += len(chunk)
    except BaseException:
        for fd in received:
            os.close(fd)
        raise
    return b"".join(chunks), received


def _child(server: Server, conn: socket, fds: list[int], request: Request) -> None:
    """Run the hook on the launcher's descriptors, then exit (the launcher then exits)."""
    import gc
    import signal

    try:
        gc.disable()  # as in the launcher's own process
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        if server.listener is not None:
            server.listener.close()
        os.close(server.lock_fd)
        for target, fd in zip(STDIO, fds, strict=True):
            os.dup2(fd, target)
        os.environ.clear()
        os.environ.update(request.env)
        os.umask(request.umask)
        try:
            os.chdir(request.cwd or server.repo)
        except OSError:
            os.chdir(server.repo)
        from lorebook.hook import run

        run(
            request.argv,
            repo=server.repo,
            event_modules=server.event_modules,
            started=request.started,
            warm=True,
        )
    except BaseException as exc:
        _log(server, f"warm hook process: {type(exc).__name__}: {exc}")
    finally:
        conn.close()
        os._exit(0)


def failed_recently(kb_root: str) -> bool:
    """Whether a server could not start here within the last :data:`RETRY_AFTER` seconds."""
    try:
        failed = os.stat(os.path.join(kb_root, ".cache", FAILED_NAME)).st_mtime
    except OSError:
        return False
    return time.time() - failed < RETRY_AFTER


def start_server(kb_root: str, launcher: str) -> bool:
    """Start the knowledge base's server in the background, detached and silent.

    Called by a hook that answered in its own process; False when it did not start one
    (a server failed to start within the last :data:`RETRY_AFTER` seconds, or the platform
    cannot spawn it). A server that finds another running exits at once.
    """
    if failed_recently(kb_root) or not sys.executable or not hasattr(os, "posix_spawn"):
        return False
    quiet = [
        (os.POSIX_SPAWN_OPEN, fd, os.devnull, flags, 0)
        for fd, flags in ((0, os.O_RDONLY), (1, os.O_WRONLY), (2, os.O_WRONLY))
    ]
    argv = [sys.executable, "-I", "-S", launcher, "--serve"]
    try:  # its own session: no terminal's signal reaches it
        os.posix_spawn(sys.executable, argv, dict(os.environ), file_actions=quiet, setsid=True)
    except NotImplementedError:  # a platform without POSIX_SPAWN_SETSID
        return False
    return True


def describe(kb_root: str) -> tuple[bool, str, str | None]:
    """(working as it should, what ``lorebook doctor`` says, the fix) of the warm process."""
    from lorebook.constants import ENV_HOOK_SERVER
    from lorebook.hookclient import available, connect

    own = "every hook runs in its own process"
    if os.environ.get(ENV_HOOK_SERVER) == "0":
        return True, f"off on this machine ({ENV_HOOK_SERVER}=0): {own}", None
    if not available():
        return True, f"not available on this platform: {own}", None
    if idle_minutes(kb_root) <= 0:
        return True, f"off (budgets.hook_server_minutes is 0): {own}", None
    failed = os.path.join(kb_root, ".cache", FAILED_NAME)
    try:
        with open(failed, encoding="utf-8", errors="replace") as handle:
            reason = handle.readline().strip()
    except OSError:
        pass
    else:
        fix = f"fix that, then delete {os.path.relpath(failed, os.path.dirname(kb_root))}"
        return False, f"could not start ({reason}): {own}", fix
    try:
        connect(socket_path(kb_root), 1.0).close()
    except OSError:
        return True, "not running: the next hook starts it", None
    try:
        with open(os.path.join(kb_root, ".cache", LOCK_NAME), encoding="utf-8") as handle:
            pid = handle.read().strip()
    except OSError:
        pid = "?"
    return True, f"running (pid {pid}): it answers the hooks of this repository", None


def _failed(server: Server, reason: str) -> None:
    """Record why the server could not start (the hooks start no other for a while)."""
    from pathlib import Path

    from lorebook.kb.fsutil import atomic_write_bytes

    _log(server, f"warm hook process not started: {reason}")
    with contextlib.suppress(OSError):
        atomic_write_bytes(Path(server.cache, FAILED_NAME), reason.encode() + b"\n")


def _log(server: Server, message: str) -> None:
    from lorebook.hook import log_failure

    log_failure(server.kb_root, "-", "hookd", message)
