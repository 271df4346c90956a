"""The warm hook process: same answers as a hook in its own process, and it steps aside.

These tests run Claude Code's launcher as the host does, with the warm process allowed
(the suite turns it off everywhere else), and stop every server they start.
"""

from __future__ import annotations

import fcntl
import json
import os
import select
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from lorebook.fastpath.client import (
    available,
    connect,
    decode_request,
    encode_request,
    handled_by_server,
    receive,
    socket_path,
    stop_server,
)
from lorebook.fastpath.server import WARM_MODULES, Server, Stamps
from lorebook.fastpath.status import FAILED_NAME, LOCK_NAME, describe
from lorebook.kb.store import MarkdownStore
from lorebook.testing import make_note
from tests.conftest import CliRunner

pytestmark = pytest.mark.skipif(not available(), reason="the warm process needs POSIX fork")

PROMPT = "why does pytest miss the workspace packages when I run it bare?"
EVENTS: dict[str, tuple[str, dict[str, Any]]] = {
    "prompt": ("UserPromptSubmit", {"prompt": PROMPT}),
    "prompt no match": ("UserPromptSubmit", {"prompt": "a name for a pet hamster?"}),
    "pre-tool": (
        "PreToolUse",
        {"tool_name": "Bash", "tool_input": {"command": "git push --force origin main"}},
    ),
    "session start": ("SessionStart", {"source": "startup"}),
}


def fire(
    repo: Path, name: str, session: str, *, server: bool = True, wrapper: list[str] | None = None
) -> tuple[str, bool, list[str]]:
    """Run one event through the launcher: (stdout, answered in-process, hook-errors lines).

    ``server=False`` runs it with ``LOREBOOK_HOOK_SERVER=0``; ``wrapper`` is a command
    that runs the launcher's command line given after it.
    """
    host_event, fields = EVENTS[name]
    payload = {"session_id": session, "cwd": str(repo), "hook_event_name": host_event, **fields}
    env = {k: v for k, v in os.environ.items() if k != "LOREBOOK_HOOK_SERVER"}
    if not server:
        env["LOREBOOK_HOOK_SERVER"] = "0"
    launcher = str(repo / ".lorebook/bin/hook")
    proc = subprocess.run(
        [*(wrapper or []), sys.executable, "-X", "importtime", "-I", "-S", launcher, "claude",
         host_event],
        input=json.dumps(payload).encode(), capture_output=True, cwd=repo, env=env,
        check=True, timeout=60,
    )  # fmt: skip
    own = "lorebook.hook\n" in proc.stderr.decode()  # -X importtime lists the client's imports
    log = repo / ".lorebook/_logs/hook-errors.log"
    return proc.stdout.decode(), own, log.read_text().splitlines() if log.exists() else []


ADOPTER = """
import ctypes, json, os, subprocess, sys
if ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0) != 0:  # PR_SET_CHILD_SUBREAPER
    sys.exit("prctl(PR_SET_CHILD_SUBREAPER) failed")
code = subprocess.run(sys.argv[2:]).returncode
adopted = []  # what the hook started and left behind is ours now, running or a zombie
for task in os.listdir("/proc/self/task"):
    with open(f"/proc/self/task/{task}/children") as handle:
        adopted += [int(pid) for pid in handle.read().split()]
with open(sys.argv[1], "w") as report:
    json.dump(adopted, report)
sys.exit(code)
"""
"""Runs a command as its parent's subreaper: every process the command started and left
behind is adopted by this one when the command exits, and listed (Linux)."""


def fire_adopting(repo: Path, name: str, session: str) -> tuple[str, bool, list[int]]:
    """:func:`fire`, and the processes the hook left behind when it exited.

    A hook that starts the warm process spawns it before it exits; the spawned process
    outlives it, so this list says deterministically whether one was started, where a
    wait for the server's lock could only guess how long a start takes.
    """
    if not sys.platform.startswith("linux"):
        pytest.skip("adopting a hook's orphans needs Linux's child subreaper")
    report = repo.parent / f"adopted-{session}.json"
    stdout, own, _ = fire(repo, name, session, wrapper=[sys.executable, "-c", ADOPTER, str(report)])
    left: list[int] = json.loads(report.read_text())
    return stdout, own, left


def server_running(repo: Path) -> bool:
    """Whether a server holds the knowledge base's server lock."""
    lock = repo / ".lorebook/.cache" / LOCK_NAME
    if not lock.exists():
        return False
    fd = os.open(lock, os.O_RDWR)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)
    return False


def wait_for(condition: object, what: str, seconds: float = 20.0) -> None:
    """Poll ``condition()`` until it is true; fail naming ``what``."""
    give_up = time.monotonic() + seconds
    while not condition():  # type: ignore[operator]
        if time.monotonic() > give_up:
            pytest.fail(f"{what} within {seconds} s")
        time.sleep(0.05)


def server_pid(repo: Path) -> int:
    """The pid the running server wrote into its lock file (0 before the first one did)."""
    first = (repo / ".lorebook/.cache" / LOCK_NAME).read_text().partition("\n")[0]
    return int(first or 0)


def alive(pid: int) -> bool:
    """Whether process ``pid`` runs (a zombie, left unreaped by a container's init, does not)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def start(repo: Path) -> None:
    """Start the repository's server the way hooks do: an event answered in-process."""
    _, own, _ = fire(repo, "session start", f"start-{time.monotonic_ns()}")
    assert own
    sock = socket_path(str(repo / ".lorebook"))
    wait_for(lambda: os.path.exists(sock), "the warm process did not start")


@pytest.fixture
def repo(kb_repo: Path, cli: CliRunner, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A repository wired for Claude Code with two notes; its server is stopped after."""
    monkeypatch.delenv("LOREBOOK_HOOK_SERVER", raising=False)
    store = MarkdownStore(kb_repo)
    store.add(
        make_note(
            "use-uv",
            title="Run tests with uv run pytest",
            body="Never bare pytest: it misses the workspace packages.",
            tags=["testing"],
        )
    )
    store.add(
        make_note(
            "no-push-main",
            title="Never push to main",
            body="Open a pull request instead.",
            lb_anchors={"commands": [r"git push\b.*\bmain\b"]},
            lb_enforce="deny",
        )
    )
    assert cli("init", "--harnesses", "claude", cwd=kb_repo).exit_code == 0
    assert cli("index", "rebuild", cwd=kb_repo).exit_code == 0
    yield kb_repo
    stop_server(str(kb_repo / ".lorebook"))
    wait_for(lambda: not server_running(kb_repo), "the server did not stop")


def test_the_warm_process_answers_every_fast_event_as_the_hook_would(repo: Path) -> None:
    start(repo)
    for name in EVENTS:
        warm, own, _ = fire(repo, name, f"warm-{name.replace(' ', '-')}")
        cold, cold_own, _ = fire(repo, name, f"cold-{name.replace(' ', '-')}", server=False)
        assert not own, f"{name}: answered in-process although the server runs"
        assert cold_own
        assert warm == cold, name
    lines = [
        json.loads(line)
        for line in (repo / ".lorebook/_logs/hook-timing.log").read_text().splitlines()
    ]
    said = {(line["session"], line["warm"]) for line in lines}
    for name in EVENTS:
        assert (f"warm-{name.replace(' ', '-')}", True) in said
        assert (f"cold-{name.replace(' ', '-')}", False) in said
    warm, _, errors = fire(repo, "prompt", "warm-prompt")
    assert warm == ""  # the child kept the session's state: the note is not injected twice
    assert "Run tests with uv run pytest" in fire(repo, "prompt", "s2")[0]
    assert errors == []


def test_a_large_payload_reaches_the_warm_process_whole(repo: Path) -> None:
    start(repo)
    wait_for(lambda: not fire(repo, "prompt no match", "probe")[1], "no warm answer")
    host_event, fields = EVENTS["prompt"]
    answers = []
    for session, server in (("big-warm", True), ("big-cold", False)):
        payload = {"session_id": session, "cwd": str(repo), "hook_event_name": host_event}
        payload |= {**fields, "padding": "x" * 3_000_000}  # a tool's output, say
        env = {k: v for k, v in os.environ.items() if k != "LOREBOOK_HOOK_SERVER"}
        env |= {} if server else {"LOREBOOK_HOOK_SERVER": "0"}
        proc = subprocess.run(
            [sys.executable, "-I", "-S", str(repo / ".lorebook/bin/hook"), "claude", host_event],
            input=json.dumps(payload).encode(), capture_output=True, cwd=repo, env=env,
            check=True, timeout=60,
        )  # fmt: skip
        answers.append(proc.stdout.decode())
    assert "Run tests with uv run pytest" in answers[0]
    assert answers[0] == answers[1]
    assert [line["warm"] for line in timing_lines(repo, "big-warm")] == [True]


def children(pid: int) -> list[int]:
    """The pids of process ``pid``'s children (Linux's /proc)."""
    found = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    return [int(child) for child in found if alive(int(child))]


def fire_until_the_spare_answers(repo: Path, spare: int) -> str:
    """Fire prompts until ``spare`` answers one and exits; return what it printed.

    An event that comes while the spare still rehearses (a slow or busy machine) is
    answered by a child forked for it, and the spare goes on waiting for the next one.
    """
    give_up = time.monotonic() + 30.0
    for attempt in range(1000):
        out, own, _ = fire(repo, "prompt", f"spare-1-{attempt}")
        assert not own
        gone = time.monotonic() + 2.0
        while alive(spare) and time.monotonic() < gone:
            time.sleep(0.02)
        if not alive(spare):
            return out
        if time.monotonic() > give_up:
            break
    pytest.fail("the spare never answered an event and exited within 30 s")


@pytest.mark.skipif(
    not Path(f"/proc/{os.getpid()}/task/{os.getpid()}/children").exists(),
    reason="needs Linux's /proc/<pid>/task/<pid>/children",
)
def test_a_spare_child_waits_for_each_event_and_a_killed_one_is_replaced(repo: Path) -> None:
    start(repo)
    server = server_pid(repo)
    wait_for(lambda: len(children(server)) == 1, "no spare child waits")
    [spare] = children(server)
    out = fire_until_the_spare_answers(repo, spare)
    assert "Run tests with uv run pytest" in out
    wait_for(lambda: len(children(server)) == 1, "no next spare")
    [spare] = children(server)
    os.kill(spare, signal.SIGKILL)
    wait_for(lambda: not alive(spare), "the spare did not die")
    out, own, errors = fire(repo, "prompt", "spare-2")  # a child forked for it answers
    assert not own
    assert "Run tests with uv run pytest" in out
    wait_for(lambda: len(children(server)) == 1, "the killed spare was not replaced")
    assert children(server) != [spare]
    assert fire(repo, "prompt", "spare-3")[:2] == (out, False)
    assert errors == []


def test_a_spare_s_rehearsal_ranks_the_notes_and_leaves_no_trace(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from lorebook.fastpath import rehearse
    from lorebook.inject import choose as serve

    ranked: list[list[str]] = []
    real = serve.choose

    def choose(*args: Any, **kwargs: Any) -> Any:
        served = real(*args, **kwargs)
        ranked.append([c.id for c in served.ranked])
        return served

    monkeypatch.setattr("lorebook.fastpath.rehearse.choose", choose)  # what rehearse calls
    files = [p for p in (repo / ".lorebook").rglob("*") if p.is_file()]
    before = {p: p.stat().st_mtime_ns for p in files}
    rehearse.rehearse(str(repo / ".lorebook"))
    assert len(ranked) == 1  # the made-up prompt was ranked against the notes, once
    assert ranked[0]
    after = [p for p in (repo / ".lorebook").rglob("*") if p.is_file()]
    assert {p: p.stat().st_mtime_ns for p in after} == before  # no session, log or record


def test_parallel_events_each_get_their_answer(repo: Path) -> None:
    """Eight children hold an event each at once, and each answers its own.

    Spoken as the launcher speaks, but without its deadlines: eight launchers started
    together on a busy machine could miss the 0.3 s a child has to take an event (they
    then answer in-process) or the prompt's budget, which made the test flaky. The budgets
    are raised for it, and every event is taken before any payload is sent, so the
    children run side by side whatever the machine's load.
    """
    config = repo / ".lorebook/.cache/config.json"
    data = json.loads(config.read_text())
    data["budgets"] |= {"session_start_ms": 120_000, "prompt_ms": 120_000, "tool_ms": 120_000}
    config.write_text(json.dumps(data))
    start(repo)
    expected, _, _ = fire(repo, "prompt", "reference", server=False)
    assert "Run tests with uv run pytest" in expected
    host_event, fields = EVENTS["prompt"]
    by = time.monotonic() + 60
    held = []
    for i in range(8):  # each taken by a child of its own, which waits for the payload
        sock = connect(socket_path(str(repo / ".lorebook")), 60)
        sock.sendall(encode_request(["claude", host_event], time.monotonic()))
        assert receive(sock, 1, by) == b"+", f"event {i} was not taken by a child"
        while receive(sock, 1, by) not in (b"\n", b""):
            pass
        held.append(sock)
    answers = []
    for i, sock in enumerate(held):
        payload = {"session_id": f"p{i}", "cwd": str(repo), "hook_event_name": host_event}
        body = json.dumps(payload | fields).encode()
        sock.sendall(len(body).to_bytes(4, "little") + body)
    for sock in held:
        head = receive(sock, 5, by)
        assert head[:1] == b"="
        answers.append(receive(sock, int.from_bytes(head[1:], "little"), by).decode())
        sock.close()
    assert answers == [expected] * 8
    assert [line["warm"] for i in range(8) for line in timing_lines(repo, f"p{i}")] == [True] * 8


def test_a_rewritten_launcher_sends_the_event_back_in_process_and_stops_the_server(
    repo: Path,
) -> None:
    start(repo)
    first = server_pid(repo)
    launcher = repo / ".lorebook/bin/hook"
    later = launcher.stat().st_mtime + 10
    os.utime(launcher, (later, later))  # as `lorebook init` rewriting it would
    out, own, _ = fire(repo, "prompt", "after-init")
    assert own  # refused: the server runs the launcher it started from, not this one
    assert "Run tests with uv run pytest" in out
    wait_for(lambda: not alive(first), "the stale server did not exit")
    # The event answered in-process started a server of the current launcher.
    sock = socket_path(str(repo / ".lorebook"))
    wait_for(lambda: os.path.exists(sock) and server_pid(repo) != first, "no new server")
    assert not fire(repo, "prompt", "after-init-2")[1]


def test_a_server_stops_when_asked_and_hooks_go_on_in_their_own_process(
    repo: Path, cli: CliRunner
) -> None:
    start(repo)
    doctor = cli("doctor", "--json", cwd=repo).json()
    (check,) = [c for c in doctor["checks"] if c["name"] == "warm hook process"]
    assert (check["state"], check["detail"][:13]) == ("ok", "running (pid ")
    assert stop_server(str(repo / ".lorebook"))
    wait_for(lambda: not server_running(repo), "the server did not stop")
    assert not os.path.exists(socket_path(str(repo / ".lorebook")))
    out, own, errors = fire(repo, "prompt", "stopped", server=False)
    assert own
    assert "Run tests with uv run pytest" in out
    assert errors == []
    fine, detail, _ = describe(str(repo / ".lorebook"))
    assert (fine, detail) == (True, "not running: the next hook starts it")


def test_setting_the_minutes_to_zero_stops_the_server_and_starts_none(
    repo: Path, cli: CliRunner
) -> None:
    start(repo)
    config = repo / ".lorebook/config.yaml"
    text = config.read_text(encoding="utf-8")
    config.write_text(text.replace("hook_server_minutes: 30", "hook_server_minutes: 0"))
    assert cli("doctor", cwd=repo).exit_code in (0, 1)  # any command compiles the config
    out, own, _ = fire(repo, "prompt", "off")
    assert own
    assert "Run tests with uv run pytest" in out
    wait_for(lambda: not server_running(repo), "the server did not stop")
    out, own, left = fire_adopting(repo, "prompt", "off-2")
    assert (own, "Run tests with uv run pytest" in out) == (True, True)
    assert left == []  # the hook started no server (one would outlive it)
    assert not server_running(repo)


def test_a_server_that_cannot_listen_says_why_once_and_hooks_still_answer(repo: Path) -> None:
    sock = Path(socket_path(str(repo / ".lorebook")))
    sock.mkdir(parents=True)
    (sock / "in-the-way").write_text("x")  # a folder where the socket goes: bind fails
    out, own, left = fire_adopting(repo, "prompt", "no-socket")
    assert own
    assert len(left) == 1  # it started a server (which fails): what outlives a hook shows it
    assert "Run tests with uv run pytest" in out
    failed = sock.parent / FAILED_NAME
    wait_for(failed.exists, "the failed start was not recorded")
    wait_for(lambda: not server_running(repo), "the server did not exit")
    stamp = failed.stat().st_mtime_ns
    _, own, left = fire_adopting(repo, "prompt", "no-socket-2")
    assert own
    assert left == []  # no second server was started to fail again
    assert failed.stat().st_mtime_ns == stamp
    errors = (repo / ".lorebook/_logs/hook-errors.log").read_text().splitlines()
    assert sum("warm hook process not started" in line for line in errors) == 1
    fine, detail, fix = describe(str(repo / ".lorebook"))
    assert not fine
    assert detail.startswith("could not start (")
    assert fix is not None
    assert "hookd.failed" in fix


def test_the_warm_modules_are_all_a_fast_event_imports(repo: Path) -> None:
    script = f"""
import json, os, sys
from lorebook.fastpath.server import Server
server = Server({str(repo)!r}, {{"claude": "lorebook_claude.events"}}, "launcher")
server.warm()
before = set(sys.modules)
from lorebook.hook import run
for name, (event, fields) in json.loads(sys.argv[1]).items():
    payload = {{"session_id": "modules", "cwd": {str(repo)!r}, "hook_event_name": event}}
    read, write = os.pipe()
    os.write(write, json.dumps({{**payload, **fields}}).encode())
    os.close(write)
    os.dup2(read, 0)
    run(["claude", event], repo={str(repo)!r}, event_modules={{"claude": "lorebook_claude.events"}})
print(json.dumps(sorted(set(sys.modules) - before)), file=sys.stderr)
"""
    env = {**os.environ, "LOREBOOK_HOOK_SERVER": "0"}
    proc = subprocess.run(
        [sys.executable, "-c", script, json.dumps(EVENTS)],
        capture_output=True, cwd=repo, env=env, check=True, timeout=60,
    )  # fmt: skip
    assert "Run tests with uv run pytest" in proc.stdout.decode()  # the events were served
    assert json.loads(proc.stderr.decode().splitlines()[-1]) == []
    assert "lorebook.hook" in WARM_MODULES


def test_an_idle_server_stops_and_a_changed_file_is_noticed(tmp_path: Path) -> None:
    server = Server(str(tmp_path), {}, str(tmp_path / "launcher"))
    (tmp_path / "launcher").write_text("x")
    server.minutes = 1
    server.last = time.monotonic() - 61
    assert server.stop_reason() == "idle"
    server.last = time.monotonic()
    assert server.stop_reason() == "its socket was removed"
    code = tmp_path / "module.py"
    code.write_text("a = 1\n")
    stamps = Stamps([str(code)])
    assert stamps.changed() is None
    code.write_text("a = 22\n")
    assert stamps.changed() == str(code)


def test_a_request_keeps_arguments_folder_and_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LOREBOOK_TEST_VALUE", "a=b \u00e9")
    mask = os.umask(0o027)
    try:
        body = encode_request(["claude", "UserPromptSubmit"], 12.5)[4:]
    finally:
        os.umask(mask)
    request = decode_request(body)
    assert (request.started, request.cwd) == (12.5, os.getcwd())
    assert (request.umask, request.argv) == (0o027, ["claude", "UserPromptSubmit"])
    assert request.env["LOREBOOK_TEST_VALUE"] == "a=b \u00e9"
    assert request.env == dict(os.environ)
    with pytest.raises(ValueError, match="not a lorebook hook request"):
        decode_request(b"GET / HTTP/1.1")


def test_no_server_means_the_launcher_answers_itself(tmp_path: Path) -> None:
    assert handled_by_server(str(tmp_path / ".lorebook"), ["claude", "Stop"], 0.0) is False
    assert stop_server(str(tmp_path / ".lorebook")) is False


def test_a_terminated_server_removes_its_socket(repo: Path) -> None:
    start(repo)
    pid = server_pid(repo)
    os.kill(pid, signal.SIGTERM)
    wait_for(lambda: not alive(pid), "the server did not exit on SIGTERM")
    assert not os.path.exists(socket_path(str(repo / ".lorebook")))
    assert not server_running(repo)


def test_a_server_terminated_the_moment_its_socket_appears_removes_it(repo: Path) -> None:
    # The moment a starting hook sees the socket, the server may still be setting up
    # (collecting, forking its spare): a SIGTERM then must still clean up.
    sock = socket_path(str(repo / ".lorebook"))
    lock = repo / ".lorebook/.cache" / LOCK_NAME
    for attempt in range(5):
        proc = subprocess.Popen(
            [sys.executable, "-I", "-S", str(repo / ".lorebook/bin/hook"), "--serve"],
            cwd=repo, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )  # fmt: skip
        give_up = time.monotonic() + 20
        while not os.path.exists(sock) and proc.poll() is None:
            assert time.monotonic() < give_up, "the server did not bind its socket"
            time.sleep(0.0002)
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=20) == 0, f"attempt {attempt}: no clean exit"
        assert not os.path.exists(sock), f"attempt {attempt}: the socket was left behind"
        with open(lock, "rb+") as handle:  # released: the next server can take it
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)


def fake_server(kb_root: Path, reply: bytes | None) -> tuple[socket.socket, threading.Thread]:
    """A server at the socket path that takes one request and replies ``reply``
    (None: never, until the test closes the listener)."""
    (kb_root / ".cache").mkdir(parents=True, exist_ok=True)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(socket_path(str(kb_root)))
    listener.listen(1)

    def serve() -> None:
        conn, _ = listener.accept()
        with conn:
            conn.recv(1 << 16)
            if reply is not None:
                conn.sendall(reply)
            else:
                time.sleep(2)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    return listener, thread


@pytest.mark.parametrize(
    ("reply", "logged"),
    [(b"-", False), (b"", False), (None, True)],
    ids=["refused", "closed", "silent"],
)
def test_the_launcher_answers_itself_when_no_child_takes_the_event(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, reply: bytes | None, logged: bool
) -> None:
    from lorebook.fastpath import client as hookclient

    monkeypatch.delenv("LOREBOOK_HOOK_SERVER", raising=False)
    monkeypatch.setattr(hookclient, "_passed_over", False)
    kb_root = tmp_path / ".lorebook"
    listener, thread = fake_server(kb_root, reply)
    stdin = sys.stdin
    try:
        began = time.monotonic()
        assert handled_by_server(str(kb_root), ["claude", "UserPromptSubmit"], 0.0) is False
        assert time.monotonic() - began < hookclient.TAKE_WAIT + 0.5
    finally:
        thread.join(5)
        listener.close()
    assert sys.stdin is stdin  # never read: the launcher reads it in its own answer
    log = kb_root / "_logs/hook-errors.log"
    if logged:  # silent (stopped): the in-process answer starts no other server
        assert "the warm hook process did not take the event within" in log.read_text()
        assert not hookclient.enabled()
    else:
        assert not log.exists()
        assert hookclient.enabled()


def test_the_launcher_reads_no_more_of_a_payload_than_the_hook_accepts() -> None:
    from lorebook import hookinput
    from lorebook.fastpath import client as hookclient

    assert hookclient.MAX_PAYLOAD == hookinput.MAX_PAYLOAD


def test_a_launcher_runs_an_older_lorebook_that_has_no_warm_process(tmp_path: Path) -> None:
    """A lorebook downgraded under its launcher: no client, no finder, the old run()."""
    from lorebook.fastpath.launcher import launcher_entry

    old = tmp_path / "old" / "lorebook"
    old.mkdir(parents=True)
    (old / "__init__.py").write_text("")
    (old / "hook.py").write_text(
        "def run(argv, *, repo, event_modules):\n"
        "    print('old run', argv, sorted(event_modules))\n"
        "    return 0\n"
    )
    repo = tmp_path / "repo"
    (repo / ".lorebook/bin").mkdir(parents=True)
    hook = repo / ".lorebook/bin/hook.py"
    hook.write_text(launcher_entry({"claude": "lorebook_claude.events"}, [str(old.parent)]))
    env = {k: v for k, v in os.environ.items() if k != "LOREBOOK_HOOK_SERVER"}
    proc = subprocess.run(
        [sys.executable, "-I", "-S", str(hook), "claude", "UserPromptSubmit"],
        input=b"{}", capture_output=True, env=env, check=False, timeout=60,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr.decode()
    assert proc.stdout.decode() == "old run ['claude', 'UserPromptSubmit'] ['claude']\n"


def test_a_killed_server_costs_no_answer_and_the_next_event_starts_another(repo: Path) -> None:
    start(repo)
    first = server_pid(repo)
    os.kill(first, signal.SIGKILL)  # no cleanup: its socket file stays behind
    wait_for(lambda: not alive(first), "the server did not die")
    assert os.path.exists(socket_path(str(repo / ".lorebook")))
    out, own, errors = fire(repo, "prompt", "after-kill")
    assert own  # nothing listens on the socket: answered in its own process
    assert "Run tests with uv run pytest" in out
    assert errors == []
    wait_for(lambda: server_running(repo) and server_pid(repo) != first, "no new server")
    sock = socket_path(str(repo / ".lorebook"))
    wait_for(
        lambda: os.path.exists(sock) and not fire(repo, "prompt no match", "probe")[1],
        "no warm answer",
    )
    out, own, _ = fire(repo, "prompt", "after-kill-2")
    assert not own
    assert "Run tests with uv run pytest" in out


def payload_of(repo: Path, name: str, session: str) -> bytes:
    """The Claude Code payload of event ``name`` (a key of EVENTS) in ``session``."""
    host_event, fields = EVENTS[name]
    return json.dumps(
        {"session_id": session, "cwd": str(repo), "hook_event_name": host_event, **fields}
    ).encode()


def launch(repo: Path, name: str, session: str, wait: float) -> tuple[bytes, float, int | None]:
    """Run the launcher as the host does and read its stdout until every holder closed it.

    Returns what it printed, the seconds from starting it until its stdout closed (``wait``
    plus a little when it was still held then), and its exit code (None: still running).
    """
    env = {k: v for k, v in os.environ.items() if k != "LOREBOOK_HOOK_SERVER"}
    began = time.monotonic()
    proc = subprocess.Popen(
        [sys.executable, "-I", "-S", str(repo / ".lorebook/bin/hook"), "claude", EVENTS[name][0]],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
        cwd=repo, env=env,
    )  # fmt: skip
    assert proc.stdin is not None
    assert proc.stdout is not None
    proc.stdin.write(payload_of(repo, name, session))
    proc.stdin.close()
    out = b""
    with proc.stdout:
        while (left := began + wait - time.monotonic()) > 0:
            if not select.select([proc.stdout], [], [], left)[0]:
                break
            chunk = os.read(proc.stdout.fileno(), 1 << 16)
            if not chunk:
                break
            out += chunk
        seconds = time.monotonic() - began
    try:
        code: int | None = proc.wait(timeout=max(0.1, began + wait - time.monotonic()))
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        code = None
    return out, seconds, code


def timing_lines(repo: Path, session: str) -> list[dict[str, Any]]:
    """The timing log's lines of ``session`` (one per process that answered one of its events)."""
    log = repo / ".lorebook/_logs/hook-timing.log"
    lines = [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
    return [line for line in lines if line["session"] == session]


def test_a_stopped_server_costs_an_event_no_more_than_its_budget(repo: Path) -> None:
    """SIGSTOP: the kernel still accepts the connection, and nobody answers on it."""
    start(repo)
    wait_for(lambda: not fire(repo, "prompt no match", "probe")[1], "no warm answer")
    server = server_pid(repo)
    os.kill(server, signal.SIGSTOP)
    try:
        out, seconds, code = launch(repo, "prompt", "while-stopped", wait=1.0 + 2.0)
    finally:
        os.kill(server, signal.SIGCONT)
    # The prompt budget is 1 s; 2 s more is generous for a loaded machine.
    assert seconds < 3.0, "the launcher's stdout was still held"
    assert code == 0
    (answer,) = [json.loads(line) for line in out.decode().splitlines()]  # one answer
    assert "Run tests with uv run pytest" in json.dumps(answer)
    # Resumed, the server finds the launcher gone: nothing answers that event a second time.
    wait_for(lambda: not fire(repo, "prompt no match", "probe-2")[1], "no warm answer after")
    assert [line["warm"] for line in timing_lines(repo, "while-stopped")] == [False]
    errors = (repo / ".lorebook/_logs/hook-errors.log").read_text().splitlines()
    assert len([line for line in errors if "warm hook process" in line]) == 1


def stalled_child(
    kb_root: Path, budget: float, then: str
) -> tuple[socket.socket, threading.Thread, threading.Event]:
    """A server whose child takes the event and then stalls (``then="stall"``: it holds
    everything until the returned event is set) or dies (``"die"``: once it has the payload).

    It speaks the launcher's protocol: the request (length, body), then ``+<stdin by>
    <answer by>\\n`` with the event's deadline ``budget`` seconds after the launcher started,
    then the payload (length, bytes). Descriptors sent with the request are kept open while
    it stalls, as a wedged child would keep them.
    """
    (kb_root / ".cache").mkdir(parents=True, exist_ok=True)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(socket_path(str(kb_root)))
    listener.listen(1)
    release = threading.Event()

    def read(conn: socket.socket, size: int) -> bytes:
        data = b""
        while len(data) < size:
            chunk = conn.recv(size - len(data))
            if not chunk:
                break
            data += chunk
        return data

    def serve() -> None:
        conn, _ = listener.accept()
        fds: list[int] = []
        with conn:
            conn.settimeout(5.0)
            data, ancillary, _, _ = conn.recvmsg(1 << 16, socket.CMSG_SPACE(12))
            for _, _, fd_bytes in ancillary:
                fds += [int.from_bytes(fd_bytes[i : i + 4], sys.byteorder) for i in range(0, 12, 4)]
            body = data[4:] + read(conn, int.from_bytes(data[:4], "little") - len(data) + 4)
            end = float(body.split(b"\0")[1]) + budget
            conn.sendall(f"+{end!r} {end!r}\n".encode())
            try:
                size = int.from_bytes(read(conn, 4), "little")
                payload = read(conn, size)
            except OSError:
                payload = b""
            if then == "stall":
                release.wait(30)
            elif payload:
                assert b"UserPromptSubmit" in payload
        for fd in fds:
            os.close(fd)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    return listener, thread, release


def test_a_child_that_stalls_with_the_event_is_given_up_within_its_budget(repo: Path) -> None:
    kb_root = repo / ".lorebook"
    listener, thread, release = stalled_child(kb_root, 1.0, "stall")
    try:
        out, seconds, code = launch(repo, "prompt", "stalled", wait=1.0 + 2.0)
    finally:
        release.set()
        thread.join(10)
        listener.close()
    assert seconds < 3.0, "the launcher's stdout was still held"
    assert (out, code) == (b"", 0)  # nothing injected: the child may still be answering
    assert timing_lines(repo, "stalled") == []  # and no answer of the launcher's own
    errors = (kb_root / "_logs/hook-errors.log").read_text().splitlines()
    assert len(errors) == 1
    assert "did not answer within" in errors[0]


def test_a_child_killed_with_the_event_costs_no_answer(repo: Path) -> None:
    kb_root = repo / ".lorebook"
    listener, thread, _ = stalled_child(kb_root, 1.0, "die")
    try:
        out, seconds, code = launch(repo, "prompt", "killed-child", wait=1.0 + 8.0)
    finally:
        thread.join(10)
        listener.close()
    assert seconds < 3.0  # within the budget, and 2 s for a loaded machine
    assert code == 0
    (answer,) = [json.loads(line) for line in out.decode().splitlines()]  # answered once
    assert "Run tests with uv run pytest" in json.dumps(answer)
    assert [line["warm"] for line in timing_lines(repo, "killed-child")] == [False]
