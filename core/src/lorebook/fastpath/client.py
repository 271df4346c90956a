"""The launcher's first step: hand the event to the repository's warm hook process.

A hook process spends most of its time starting: the interpreter, then some forty lorebook
modules, before it reads a byte of the index. :mod:`lorebook.fastpath.server` keeps those
modules imported in one process per repository and forks a child per event, so the
launcher only has to connect to its socket (``.lorebook/.cache/hookd.sock``) and trade a
few messages with that child. The child answers exactly as the launcher would have (it
runs :func:`lorebook.hook.run` with this process's arguments, environment, working folder,
start time and payload), and the launcher prints its answer and exits 0.

The launcher keeps the host's standard input and output to itself: it reads the payload
and passes it on, and prints the answer it gets back. No other process ever holds them,
so a warm process that is stopped, swamped or killed can neither hold the host's output
open nor have read the payload the launcher needs to answer the event itself. The
exchange, on one connection (protocol :data:`MAGIC`):

1. The launcher sends its request (:func:`encode_request`).
2. The server refuses it (``-``: its code or launcher changed, it is shutting down) or
   closes (it could not fork), or a child of its takes the event and says until when it
   waits for the payload and when the event's budget ends (``+<stdin by> <answer by>``
   and a newline, ``time.monotonic()`` times; the hook reads the payload against the
   first in its own process too).
3. The launcher reads its standard input and sends it (4-byte length, bytes).
4. The child answers and sends what it would have printed (``=``, 4-byte length, bytes).

:func:`handled_by_server` returns False, and the launcher answers in-process, when no
server listens, when it refuses or closes, when no child takes the event within
:data:`TAKE_WAIT` of the connection (the server was stopped: the kernel still accepts into
its backlog), and when the child ends without an answer (killed): the payload, if it was
read, is put back on ``sys.stdin``. Only a child that has the payload and has not answered
when the event's budget (and :data:`GRACE`) is spent makes the launcher give up: nothing
is printed, one line goes to the hook error log, and it exits 0. A child's late answer
reaches nobody: only the launcher writes to the host.

Imports only ``io``, ``os``, ``sys``, ``time``, :mod:`lorebook.constants` and ``_socket``
(``socket`` would import ``enum`` and ``selectors``), and ``select`` once a child has taken
the event: it runs before anything else in every hook.
"""

from __future__ import annotations

import os
import sys
import time

from lorebook.constants import ENV_HOOK_SERVER

TYPE_CHECKING = False
if TYPE_CHECKING:
    from _socket import socket

SOCKET_NAME = "hookd.sock"
"""The server's socket in ``.lorebook/.cache/``."""
MAGIC = b"lorebook-hook-2"
"""The first field of a request: the protocol's version."""
TAKE_WAIT = 0.3
"""Seconds from connecting within which a child must take the event (a spare does in well
under a millisecond); past them the launcher answers in its own process, with what is left
of the event's budget."""
GRACE = 0.25
"""Seconds past the event's budget the launcher still waits for the child's answer (the
child checks the budget before it renders the answer; sending it and exiting follow)."""
MAX_PAYLOAD = 8 * 1024 * 1024
"""As :data:`lorebook.hookinput.MAX_PAYLOAD` (a test keeps them equal; that module imports
``re``): the launcher reads at most one byte more, and the hook refuses the payload then."""

_passed_over = False
"""Set when this process found a server that did not answer its event (stopped, swamped,
or its child killed): the in-process answer then starts no other server, which would only
find the lock held and exit."""


def available() -> bool:
    """Whether this platform can run the server (POSIX, with ``fork``)."""
    return os.name == "posix" and hasattr(os, "fork")


def enabled() -> bool:
    """Whether hooks use and start the warm process (available, ``LOREBOOK_HOOK_SERVER`` not 0).

    False too, in a launcher, once the warm process failed to answer its event.
    """
    return not _passed_over and os.environ.get(ENV_HOOK_SERVER) != "0" and available()


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
    """Let the warm server answer this event; False when the caller must answer it.

    True: the child's answer is printed (it may be nothing), or the event was given up
    (one line in the hook error log). False: answer it in-process; standard input is
    untouched, or the payload read from it is back on ``sys.stdin``. Never raises.
    """
    if not enabled():
        return False
    take_by = time.monotonic() + TAKE_WAIT
    try:
        sock = connect(socket_path(kb_root), TAKE_WAIT)
    except TimeoutError:  # its backlog is full: stopped, or far behind
        _pass_over(kb_root, argv, f"did not take the event within {TAKE_WAIT * 1000:.0f} ms")
        return False
    except OSError:
        return False
    try:
        return _exchange(sock, kb_root, argv, started, take_by)
    finally:
        sock.close()


def _exchange(sock: socket, kb_root: str, argv: list[str], started: float, take_by: float) -> bool:
    try:
        sock.settimeout(TAKE_WAIT)
        sock.sendall(encode_request(argv, started))
        reply = _read_reply(sock, take_by)
    except TimeoutError:
        _pass_over(kb_root, argv, f"did not take the event within {TAKE_WAIT * 1000:.0f} ms")
        return False
    except OSError:
        return False
    if not reply.startswith(b"+"):  # "-" (refused) or "" (closed): no child has the event
        return False
    try:
        stdin_by, answer_by = (float(field) for field in reply[1:].split())
    except ValueError:
        return False
    payload = _read_stdin(stdin_by)
    if payload is None:  # as the hook in its own process would say
        _log(kb_root, argv, "StdinTimeout: the host kept stdin open past the budget")
        return True
    try:
        answer = _send_payload(sock, payload, answer_by + GRACE)
    except TimeoutError:  # it may still be answering: only this process writes to the host
        budget = round((answer_by - started) * 1000)
        message = f"the warm hook process did not answer within the {budget} ms budget"
        _log(kb_root, argv, f"{message}: nothing injected")
        return True
    if answer is None:
        _pass_over(kb_root, argv, "ended without an answer")
        import io

        sys.stdin = io.TextIOWrapper(io.BytesIO(payload))  # read back by lorebook.hook.run
        return False
    _print(answer)
    return True


def _pass_over(kb_root: str, argv: list[str], what: str) -> None:
    """Log that the warm process failed this event, which this process now answers."""
    global _passed_over  # the in-process answer must start no server
    _passed_over = True
    _log(kb_root, argv, f"the warm hook process {what}: answered in its own process")


def _log(kb_root: str, argv: list[str], message: str) -> None:
    from lorebook.appendlog import log_failure

    harness, host_event = [*argv, "?", "?"][:2]
    log_failure(kb_root, harness, host_event, message)


def _read_reply(sock: socket, by: float) -> bytes:
    """The server's or child's reply: up to its newline, or all it sent before closing.

    Raises:
        TimeoutError: nothing complete arrived before ``by``.
    """
    reply = b""
    while not reply.endswith(b"\n"):
        chunk = receive(sock, 64, by, exactly=False)
        if not chunk:
            break
        reply += chunk
    return reply


def receive(sock: socket, size: int, by: float, *, exactly: bool = True) -> bytes:
    """``size`` bytes from ``sock`` (fewer when it closes first; ``exactly=False``: what came).

    Raises:
        TimeoutError: the monotonic time ``by`` passed first.
    """
    data = bytearray()  # a payload may come in many pieces: no copy of all for each
    while len(data) < size:
        left = by - time.monotonic()
        if left <= 0:
            raise TimeoutError("timed out")
        sock.settimeout(left)
        chunk = sock.recv(min(size - len(data), 1 << 16))
        data += chunk
        if not chunk or not exactly:
            break
    return bytes(data)


def _read_stdin(by: float) -> bytes | None:
    """Standard input to its end, at most :data:`MAX_PAYLOAD` + 1 bytes; None past ``by``.

    :func:`lorebook.hookinput.read_stdin`'s loop, without its module's imports.
    """
    import select

    chunks = []
    size = 0
    while size <= MAX_PAYLOAD:
        left = by - time.monotonic()
        if left <= 0:
            return None
        try:
            if not select.select([0], [], [], left)[0]:
                continue
            chunk = os.read(0, 1 << 16)
        except OSError:  # no standard input: the hook will say the payload is empty
            break
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)


def _send_payload(sock: socket, payload: bytes, by: float) -> bytes | None:
    """Send the child the payload and return its answer; None when it ended without one.

    Raises:
        TimeoutError: the answer had not come by ``by``.
    """
    try:
        sock.settimeout(max(by - time.monotonic(), 0.001))
        sock.sendall(len(payload).to_bytes(4, "little") + payload)
        head = receive(sock, 5, by)
        if len(head) < 5 or head[:1] != b"=":
            return None
        size = int.from_bytes(head[1:], "little")
        answer = receive(sock, size, by)
    except TimeoutError:  # an OSError too, but not the end of the child
        raise
    except OSError:  # killed: the connection was reset
        return None
    return answer if len(answer) == size else None


def _print(answer: bytes) -> None:
    """Write the child's answer on standard output, all of it (the host may have left)."""
    view = memoryview(answer)
    try:
        while view:
            view = view[os.write(1, view) :]
    except OSError:
        pass


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
