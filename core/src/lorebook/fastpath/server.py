"""The warm hook process: one per repository, a forked child per event.

Started by a hook that answered in its own process (:func:`start_server`, called after
:func:`lorebook.hook.run` by :func:`lorebook.fastpath.after_event`), through the launcher
(``.lorebook/bin/hook --serve``). It imports what the fast-path events need
(:data:`WARM_MODULES` and the wired harnesses' translators), then listens on
``.lorebook/.cache/hookd.sock``. For each event the launcher connects and sends its request,
and the server hands the connection to a child: the spare
(:class:`lorebook.fastpath.child.Spare`) it forked ahead of the event, or one it forks for
it when the spare is not ready. The child takes the event on that connection
(:mod:`lorebook.fastpath.client` gives the exchange): it gets the launcher's payload, takes
its arguments, environment, working folder, umask and start time, runs
:func:`lorebook.hook.run` exactly as the launcher would have, and sends back what that
printed. Every read of the index, the notes, the configuration and the session state happens
in the child, on the files as they are now. The server itself reads no note and keeps no
data between events: only code (a spare's rehearsal reads the notes, but keeps nothing of
them either). No process of the server's ever holds the host's standard input or output: the
launcher keeps them.

It refuses an event (the launcher then answers in-process) and exits when any lorebook
module it imported, a translator, the top module of another package it imported (simsimd,
numpy), or the launcher changed on disk since it started (an upgrade, or ``lorebook init``
rewiring the harnesses), or when ``budgets.hook_server_minutes`` became 0. It exits after
that many minutes without an event, when its socket file is removed or replaced, when the
launcher is removed, on SIGTERM, and when asked (:func:`lorebook.fastpath.client.stop_server`).
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

from lorebook.fastpath.child import child, fork_spare, receive_request
from lorebook.fastpath.client import decode_request, peer_uid, socket_path
from lorebook.fastpath.status import FAILED_NAME, LOCK_NAME, idle_minutes

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from socket import socket

    from lorebook.fastpath.child import Spare

RETRY_AFTER = 3600.0
"""Seconds after a failed start during which hooks start no other server."""
TICK = 5.0
"""Seconds between the checks an idle server makes (idle time, socket, launcher)."""
OLD_LAUNCHER_FDS = 3
"""The descriptors a launcher of the first protocol sent with its request (it is refused,
and answers in its own process): received only to be closed."""
WARM_MODULES = (
    "lorebook.hook",
    "lorebook.hookconfig",
    "lorebook.kb",
    "lorebook.kb.version",
    "lorebook.hookinput",
    "lorebook.events",
    "lorebook.inject.stages",
    "lorebook.inject.served",
    "lorebook.inject.session",
    "lorebook.nudges",
    "lorebook.inject.render",
    "lorebook.inject.sanitize",
    "lorebook.recall.pipeline",
    "lorebook.hookplugins",
    "lorebook.recall.semantic",
    "lorebook.recall.piecefile",
    "lorebook.recall.dense",
    "lorebook.recall.vectorfile",
    "lorebook.validity.check",
    "lorebook.validity.fields",
    "lorebook.stats.usage",
    "lorebook.stats.timing",
    "lorebook.appendlog",
    "lorebook.safeopen",
    "lorebook.hostkit.once",
    "lorebook.hostkit.loaded",
    "lorebook.inject.loaded",
    "lorebook.bounds",
    "lorebook.recall.freshness",
    "lorebook.recall.writer",
    "select",
)
"""What a prompt, a tool event or a session start imports (a test runs each after warm-up
and checks it imported nothing more). Capture's modules load in its child, as they would
in its own process."""
PLUGIN_HOST = "lorebook.hookspecs"
"""Imported (with pluggy) when ``hook_plugins`` names a module: every prompt then builds a
plugin manager (:mod:`lorebook.hookplugins`), and a child finds pluggy loaded."""
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
        self.spare: Spare | None = None
        self.answering = 0
        """The pid of the spare that took the last event (the next spare waits for it)."""
        self.binding = False
        """Whether the socket is being bound: a SIGTERM now only sets :attr:`terminated`."""
        self.terminated = False

    def lock(self) -> bool:
        """Take the knowledge base's server lock; False when another server holds it.

        False too when ``.lorebook/.cache/`` is gone (the repository was removed meanwhile).
        """
        import fcntl

        from lorebook.safeopen import open_file

        lock = os.path.join(self.cache, LOCK_NAME)
        try:  # in the folder the hook that started it wrote its index in: never created here
            self.lock_fd = open_file(lock, os.O_RDWR | os.O_CREAT, 0o600, create_folders=False)
        except FileNotFoundError:  # the repository went away before the server started
            return False
        try:
            fcntl.flock(self.lock_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(self.lock_fd)
            self.lock_fd = -1
            return False
        # For `lorebook doctor`: written over the last server's pid, then cut to length, so
        # a reader at any moment finds a whole pid on the first line.
        mine = f"{os.getpid()}\n".encode()
        os.pwrite(self.lock_fd, mine, 0)
        os.ftruncate(self.lock_fd, len(mine))
        return True

    def warm(self) -> None:
        """Import the fast path's modules and record the files they came from."""
        for name in (*WARM_MODULES, *self.event_modules.values()):
            __import__(name)
        for name in OPTIONAL_MODULES:
            with contextlib.suppress(ImportError):
                __import__(name)
        from lorebook.hookconfig import load_hook_config

        if load_hook_config(self.kb_root).hook_plugins:
            __import__(PLUGIN_HOST)  # the configured modules themselves load in each child
        from lorebook.inject.sanitize import prepare

        prepare()
        tops = {"lorebook", *(name.partition(".")[0] for name in self.event_modules.values())}
        self.stamps = Stamps([self.launcher, *code_files(tops)])
        self.minutes = idle_minutes(self.kb_root)

    def listen(self) -> None:
        """Bind the socket (owner-only) where the launchers look for it."""
        import socket

        from lorebook.safeopen import open_folder

        folder = open_folder(self.cache, create=False)  # never through a committed link
        try:
            os.fchdir(folder)  # bound by its name: a long repository path fits the limit
        finally:
            os.close(folder)
        name = os.path.basename(self.path)
        if os.path.islink(name):  # committed with the repository: not ours to remove
            from lorebook.safeopen import SymlinkRefused

            raise SymlinkRefused(self.path, self.path)
        if os.path.lexists(name):
            os.unlink(name)  # a dead server's: the lock says no other is running
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.listener = listener
        mask = os.umask(0o177)
        self.binding = True  # a SIGTERM waits until the socket is known as ours
        try:
            listener.bind(name)
            self.inode = os.stat(name).st_ino
        finally:
            os.umask(mask)
            self.binding = False
        if self.terminated:
            raise SystemExit(0)  # close() removes the socket
        listener.listen(128)
        listener.settimeout(TICK)
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
        """Stop listening, remove our socket (not a successor's), release the lock.

        The spare child, if any, finds its channel closed and exits.
        """
        if self.spare is not None:
            self.spare.close()
            self.spare = None
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

    def terminate(signum: int, frame: object) -> None:
        if server.binding:  # no exit between the bind and knowing the socket's inode
            server.terminated = True
        else:
            raise SystemExit(0)

    # From the first step: a SIGTERM at any point exits through close(), which removes
    # the socket. (Masking the signal while binding would not do: a library's thread, such
    # as numpy's, may take it, and the handler then runs at the main thread's next step.)
    signal.signal(signal.SIGTERM, terminate)
    try:
        try:
            if not server.lock():
                return 0  # another server is running
            server.warm()
            if server.minutes <= 0:
                return 0
            server.listen()
        except Exception as exc:
            _failed(server, f"{type(exc).__name__}: {exc}")
            return 0
        signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # children are reaped by the kernel
        import gc

        gc.collect()
        gc.freeze()  # what warm-up created is never collected, nor copied by a collection
        gc.enable()
        with contextlib.suppress(OSError):  # no fork now: the first event tries again
            fork_spare(server)
        _loop(server)
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)  # a second one must not cut close() short
        server.close()
    return 0


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
        if server.spare is None:  # forked with no descriptor of the event open
            with contextlib.suppress(OSError):
                fork_spare(server, server.answering)


def _answer(server: Server, conn: socket) -> bool:
    """Take one connection; False when the server must stop."""
    fds: list[int] = []
    try:
        conn.settimeout(2.0)
        if peer_uid(conn, server.path) != os.getuid():
            return True
        body, fds = receive_request(conn, OLD_LAUNCHER_FDS)
        if body.endswith(b"\0stop") and body.count(b"\0") == 1:
            server.close()  # no new connection from here; the caller waits for the close
            return False
        refusal = server.refusal()
        if refusal is not None or fds:
            conn.sendall(b"-")
            return refusal is None
        request = decode_request(body)
        spare = server.spare
        if spare is not None and spare.is_ready():
            if spare.hand(body, conn.fileno()):
                server.spare = None  # the loop forks the next one, once this event's
                server.answering = spare.pid  # connection is closed here
                spare.close()
                return True
            spare.gone = True
        if spare is not None and spare.gone:
            spare.close()
            server.spare = None
        if os.fork() == 0:
            child(server, conn, request)  # never returns
    except (OSError, ValueError):
        pass  # a client that went away or sent garbage: it answers in-process
    finally:
        for fd in fds:
            os.close(fd)
    return True


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


def _failed(server: Server, reason: str) -> None:
    """Record why the server could not start (the hooks start no other for a while)."""
    from pathlib import Path

    from lorebook.kb.fsutil import atomic_write_bytes

    _log(server, f"warm hook process not started: {reason}")
    with contextlib.suppress(OSError):
        atomic_write_bytes(Path(server.cache, FAILED_NAME), reason.encode() + b"\n")


def _log(server: Server, message: str) -> None:
    from lorebook.appendlog import log_failure

    log_failure(server.kb_root, "-", "hookd", message)
