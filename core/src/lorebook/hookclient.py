"""The launcher's first step: hand the event to the repository's warm hook process.

A hook process spends most of its time starting: the interpreter, then some forty lorebook
modules, before it reads a byte of the index. :mod:`lorebook.hookserver` keeps those
modules imported in one process per repository and forks a child per event, so the
launcher only has to connect to its socket (``.lorebook/.cache/hookd.sock``) and pass it
this process's standard input, output and error. The child answers exactly as the
launcher would have (it runs :func:`lorebook.hook.run` on the same descriptors, with this
process's arguments, environment, working folder and start time); this process waits for
the child to finish and exits 0.

When there is no server, or it refuses (its code or launcher changed, it is shutting
down), or it is not this user's, :func:`handled_by_server` returns False before anything
has read standard input, and the launcher answers in-process as before.

Imports only ``os``, ``sys``, :mod:`lorebook.constants` and ``_socket`` (``socket`` would
import ``enum`` and ``selectors``): it runs before anything else in every hook.
"""

from __future__ import annotations

import os
import sys

from lorebook.constants import ENV_HOOK_SERVER

TYPE_CHECKING = False
if TYPE_CHECKING:
    from _socket import socket

SOCKET_NAME = "hookd.sock"
"""The server's socket in ``.lorebook/.cache/``."""
MAGIC = b"lorebook-hook-1"
"""The first field of a request: the protocol's version."""
REPLY_WAIT = 2.0
"""Seconds to wait for the server to accept the connection."""
TAKEN_WAIT = 10.0
"""Seconds to wait, once the server has the descriptors, for it to say whether it took the
event (it forks at once: milliseconds)."""
STDIO = (0, 1, 2)


def available() -> bool:
    """Whether this platform can run the server and pass it descriptors."""
    return os.name == "posix" and hasattr(os, "fork")


def enabled() -> bool:
    """Whether hooks use and start the warm process (available, ``LOREBOOK_HOOK_SERVER`` not 0)."""
    return os.environ.get(ENV_HOOK_SERVER) != "0" and available()


def socket_path(kb_root: str) -> str:
    """The server socket of the knowledge base at ``kb_root``."""
    return os.path.join(kb_root, ".cache", SOCKET_NAME)


class Request:
    """What the launcher hands the server besides its descriptors."""

    __slots__ = ("argv", "cwd", "env", "started", "umask")

    def __init__(
        self, started: float, cwd: str, umask: int, argv: list[str], env: dict[str, str]
    ) -> None:
        self.started = started
        """When the launcher started (``time.monotonic()``): the event's budget counts from it."""
        self.cwd = cwd
        """The launcher's working folder ("" when it was removed)."""
        self.umask = umask
        self.argv = argv
        self.env = env


def encode_request(argv: list[str], started: float) -> bytes:
    """This process's request: magic, start time, working folder, umask, arguments, environment.

    Fields are separated by NUL bytes (none can hold one); the whole is prefixed by its
    length (4 bytes, little-endian).
    """
    try:
        cwd = os.fsencode(os.getcwd())
    except OSError:  # the working folder was removed: the child keeps the server's
        cwd = b""
    umask = os.umask(0o022)
    os.umask(umask)
    fields = [MAGIC, repr(started).encode(), cwd, str(umask).encode(), str(len(argv)).encode()]
    fields += [os.fsencode(arg) for arg in argv]
    fields += [key + b"=" + value for key, value in os.environb.items()]
    body = b"\0".join(fields)
    return len(body).to_bytes(4, "little") + body


def decode_request(body: bytes) -> Request:
    """The :class:`Request` whose body (after the length) :func:`encode_request` wrote.

    Raises:
        ValueError: not a request of this protocol.
    """
    fields = body.split(b"\0")
    if len(fields) < 5 or fields[0] != MAGIC:
        raise ValueError("not a lorebook hook request")
    count = int(fields[4])
    argv = [os.fsdecode(arg) for arg in fields[5 : 5 + count]]
    if len(argv) != count:
        raise ValueError("the request lost some of its arguments")
    env = {}
    for item in fields[5 + count :]:
        key, eq, value = item.partition(b"=")
        if eq:
            env[os.fsdecode(key)] = os.fsdecode(value)
    return Request(float(fields[1]), os.fsdecode(fields[2]), int(fields[3]), argv, env)


def connect(path: str, timeout: float) -> socket:
    """A connected socket to ``path``, checked to belong to this user.

    The socket file is reached from ``.lorebook`` down without following a link
    (:mod:`lorebook.safeopen`) and must be a socket, so a committed link cannot send the
    event to another socket of the user's (an agent's, say).

    Raises:
        OSError: no server listens there, a link is in the way, or it is another user's.
    """
    import _socket
    import stat

    from lorebook.safeopen import open_folder

    folder = open_folder(os.path.dirname(path), create=False)
    sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        name = os.path.basename(path)
        if not stat.S_ISSOCK(os.stat(name, dir_fd=folder, follow_symlinks=False).st_mode):
            raise ConnectionRefusedError(f"{path} is not a socket")
        sock.settimeout(timeout)
        here = os.open(".", getattr(os, "O_PATH", os.O_RDONLY))
        try:
            os.fchdir(folder)  # by its name in that folder: no link, any path length
            sock.connect(name)
        finally:
            os.fchdir(here)
            os.close(here)
        if peer_uid(sock, path) != os.getuid():
            raise PermissionError(f"{path} is served by another user")
    except BaseException:
        sock.close()
        raise
    finally:
        os.close(folder)
    return sock


def peer_uid(sock: socket, path: str) -> int:
    """The user id of the process at the other end of ``sock`` (``SO_PEERCRED``).

    Where the kernel offers no such option, the owner of the socket file at ``path``.
    """
    import _socket

    option = getattr(_socket, "SO_PEERCRED", None)
    if option is not None:
        creds = sock.getsockopt(_socket.SOL_SOCKET, option, 12)  # pid, uid, gid
        return int.from_bytes(creds[4:8], sys.byteorder)
    return os.stat(path).st_uid


def handled_by_server(kb_root: str, argv: list[str], started: float) -> bool:
    """Let the warm server answer this event; False when it did not take it.

    False means nothing has read standard input: the caller answers in-process. True means
    a child of the server ran the hook on this process's descriptors and has finished, or,
    once the server had the descriptors, that it did not say within :data:`TAKEN_WAIT`
    whether it took the event: then nothing is answered (one line in the hook error log),
    since a child may be reading standard input.
    """
    if not enabled():
        return False
    try:
        sock = connect(socket_path(kb_root), REPLY_WAIT)
    except OSError:
        return False
    try:
        return _exchange(sock, encode_request(argv, started), kb_root, argv)
    finally:
        sock.close()


def _exchange(sock: socket, request: bytes, kb_root: str, argv: list[str]) -> bool:
    import _socket

    fds = b"".join(fd.to_bytes(4, sys.byteorder, signed=True) for fd in STDIO)
    try:
        sent = sock.sendmsg([request], [(_socket.SOL_SOCKET, _socket.SCM_RIGHTS, fds)])
        if sent < len(request):
            sock.sendall(request[sent:])
    except OSError:
        return False  # an incomplete request: the server forks for none
    try:
        sock.settimeout(TAKEN_WAIT)
        reply = sock.recv(1)
    except OSError as exc:
        from lorebook.hook import log_failure

        host_event = argv[1] if len(argv) > 1 else "?"
        message = f"the warm hook process did not answer ({exc or 'timed out'}): nothing injected"
        log_failure(kb_root, argv[0] if argv else "?", host_event, message)
        return True
    if reply != b"+":
        return False  # "-", or closed without forking: nothing read standard input
    sock.settimeout(None)
    try:
        while sock.recv(4096):
            pass  # the child closes the connection when it exits
    except OSError:
        pass
    return True


def stop_server(kb_root: str, timeout: float = 5.0) -> bool:
    """Ask the knowledge base's server to exit, and wait for it; False if none answered."""
    if not available():
        return False
    try:
        sock = connect(socket_path(kb_root), timeout)
    except OSError:
        return False
    try:
        body = MAGIC + b"\0stop"
        sock.sendall(len(body).to_bytes(4, "little") + body)
        while sock.recv(4096):
            pass  # the server closes the connection once it has stopped listening
    except OSError:
        pass
    finally:
        sock.close()
    return True
