"""The warm hook process's children: the one that takes an event, and the spare.

The server (:mod:`lorebook.fastpath.server`) hands each event's connection to a child:
the :class:`Spare` it forked ahead of the event, or one it forks for it. The child takes
the event (:mod:`lorebook.fastpath.client` gives the exchange), runs
:func:`lorebook.hook.run` exactly as the launcher would have, sends back what that printed,
and exits.
"""

from __future__ import annotations

import contextlib
import os
import sys
import time

from lorebook.fastpath.client import GRACE, MAX_PAYLOAD, Request, decode_request, receive

TYPE_CHECKING = False
if TYPE_CHECKING:
    from socket import socket

    from lorebook.fastpath.server import Server

MAX_REQUEST = 1 << 20
"""A request larger than this is refused (arguments and environment, not the payload)."""
SPARE_WAIT = 2.0
"""Seconds a new spare child waits for the previous event's child to finish before it
rehearses (so that the two do not share a core), at most."""


def receive_request(conn: socket, fds_wanted: int) -> tuple[bytes, list[int]]:
    """The request's body and the descriptors that came with it (at most ``fds_wanted``)."""
    import array
    import socket

    data, ancillary, _, _ = conn.recvmsg(1 << 16, socket.CMSG_SPACE(4 * fds_wanted))
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


def _detach(server: Server) -> None:
    """In a child: the defaults a hook process has, and none of the server's descriptors."""
    import gc
    import signal

    gc.disable()  # as in the launcher's own process
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if server.listener is not None:
        server.listener.close()
    if server.spare is not None:
        server.spare.sock.close()  # or the spare would not see the server go
    if server.lock_fd >= 0:
        os.close(server.lock_fd)


def child(server: Server, conn: socket, request: Request) -> None:
    """Take the event of ``request`` on ``conn``, then exit."""
    try:
        _detach(server)
        _take(server, conn, request)
    except BaseException as exc:
        _log(server.kb_root, f"warm hook process: {type(exc).__name__}: {exc}")
    finally:
        conn.close()
        os._exit(0)


def deadlines(server: Server, request: Request) -> tuple[float, float]:
    """(until when the payload may come, when the event's budget ends) for ``request``.

    As the hook in its own process counts them: standard input is read against the longest
    fast-path budget, and the event's own budget counts from the launcher's start. An event
    its harness does not name gets the longest budget of all.
    """
    from lorebook.hook import _budget_ms  # the hook's own table of which budget is whose
    from lorebook.hookconfig import load_hook_config

    config = load_hook_config(server.kb_root)
    fast = max(config.session_start_ms, config.prompt_ms, config.tool_ms)
    harness, host_event = [*request.argv, "?", "?"][:2]
    translator = sys.modules.get(server.event_modules.get(harness, ""))
    name = getattr(translator, "EVENTS", {}).get(host_event)
    budget = _budget_ms(name, config) if isinstance(name, str) else max(fast, config.capture_ms)
    return request.started + fast / 1000, request.started + budget / 1000


def _take(server: Server, conn: socket, request: Request) -> None:
    """The child's side of the exchange: say it took the event, get the payload, answer.

    A launcher that went away meanwhile (it answered in its own process, or gave up) gets
    nothing: without its payload the event is not run, and an answer it can no longer
    read is dropped.
    """
    stdin_by, answer_by = deadlines(server, request)
    try:
        conn.settimeout(GRACE)
        conn.sendall(f"+{stdin_by!r} {answer_by!r}\n".encode())
        head = receive(conn, 4, stdin_by + GRACE)
        size = int.from_bytes(head, "little")
        if len(head) < 4 or size > MAX_PAYLOAD + 1:
            return  # the launcher went away (or this is no launcher)
        payload = receive(conn, size, stdin_by + GRACE)
    except OSError:
        return
    if len(payload) != size:
        return
    answer = _run(server, payload, request)
    with contextlib.suppress(OSError):
        conn.settimeout(max(answer_by + GRACE - time.monotonic(), 0.01))
        conn.sendall(b"=" + len(answer).to_bytes(4, "little") + answer)


def _run(server: Server, payload: bytes, request: Request) -> bytes:
    """Answer the event of ``request`` as the launcher would; return what it printed."""
    import io

    os.environ.clear()
    os.environ.update(request.env)
    os.umask(request.umask)
    try:
        os.chdir(request.cwd or server.repo)
    except OSError:
        os.chdir(server.repo)
    sys.stdin = io.TextIOWrapper(io.BytesIO(payload))
    printed = io.BytesIO()
    sys.stdout = io.TextIOWrapper(printed)
    from lorebook.hook import run

    run(
        request.argv,
        repo=server.repo,
        event_modules=server.event_modules,
        started=request.started,
        warm=True,
    )
    sys.stdout.flush()
    return printed.getvalue()


class Spare:
    """A child forked before the event it will answer, its prompt path rehearsed.

    Forking a 30 MB process and running the prompt path for the first time in it (every
    page it writes copied from the server's, every function's bytecode specialised
    again) cost a pasted prompt about 3 ms of its 10. A spare does that while no event
    waits: it rehearses (:func:`lorebook.fastpath.rehearse.rehearse`), says it is ready on its
    channel to the server (a socket pair), and waits there for an event, which the server
    hands it with the launcher's connection. It answers that one event, as any child
    does, and exits; the server forks the next spare at once. An event that comes while
    the spare is not ready yet gets a child forked for it, as before.
    """

    __slots__ = ("gone", "pid", "ready", "sock")

    def __init__(self, pid: int, sock: socket) -> None:
        self.pid = pid
        self.sock = sock
        """The server's end of the channel."""
        self.ready = False
        self.gone = False
        """It exited (killed, out of memory) without answering: the server forks another."""

    def is_ready(self) -> bool:
        """Whether it waits for an event (it sends one byte when it is)."""
        import socket

        if not self.ready and not self.gone:
            try:
                said = self.sock.recv(1, socket.MSG_DONTWAIT)
            except BlockingIOError:  # still rehearsing
                return False
            except OSError:
                said = b""
            self.ready = said == b"r"
            self.gone = not self.ready
        return self.ready

    def hand(self, body: bytes, conn: int) -> bool:
        """Give it an event: the request and the launcher's connection (its descriptor)."""
        import array
        import socket

        data = len(body).to_bytes(4, "little") + body
        try:
            fds_data = array.array("i", [conn]).tobytes()
            sent = self.sock.sendmsg([data], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, fds_data)])
            if sent < len(data):
                self.sock.sendall(data[sent:])
        except OSError:  # it died
            return False
        return True

    def close(self) -> None:
        """Close the server's end: a spare still waiting exits."""
        self.sock.close()


def fork_spare(server: Server, previous: int = 0) -> None:
    """Fork the server's next spare (``previous``: the child answering the last event)."""
    import socket

    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        pid = os.fork()
    except OSError:
        ours.close()
        theirs.close()
        raise
    if pid == 0:
        ours.close()
        _spare(server, theirs, previous)  # never returns
    theirs.close()
    server.spare = Spare(pid, ours)


def _spare(server: Server, channel: socket, previous: int) -> None:
    """The spare's life: get ready, wait for an event, answer it, exit."""
    try:
        _detach(server)
        server.spare = None
        _wait_for_exit(previous, SPARE_WAIT)
        from lorebook.fastpath.rehearse import rehearse

        with contextlib.suppress(Exception):  # no index yet: the event will say so
            rehearse(server.kb_root)
        channel.sendall(b"r")
        body, fds = receive_request(channel, 1)  # the server closed it: ValueError
    except BaseException:
        os._exit(0)  # the server went away, or stopped
    conn = None
    try:
        import socket

        conn = socket.socket(fileno=fds[0])
        _take(server, conn, decode_request(body))
    except BaseException as exc:
        _log(server.kb_root, f"warm hook process: {type(exc).__name__}: {exc}")
    finally:
        if conn is not None:
            conn.close()
        os._exit(0)


def _wait_for_exit(pid: int, seconds: float) -> None:
    """Return when process ``pid`` has exited (it is the server's child: reaped at once)."""
    end = time.monotonic() + seconds
    while pid > 0 and time.monotonic() < end:
        try:
            os.kill(pid, 0)
        except OSError:
            return
        time.sleep(0.001)


def _log(kb_root: str, message: str) -> None:
    from lorebook.appendlog import log_failure

    log_failure(kb_root, "-", "hookd", message)
