"""The warm hook process stopped or killed in the middle of an event: what the host gets.

One Claude Code repository of 100 notes (benchmarks/kbgen.py). For each fault, R rounds:
the repository's warm process is made ready (a prompt answered warm, then a pause for its
spare child to rehearse), a prompt is fired through the launcher as Claude Code runs it,
and after a random delay (0 to 40 ms from the launcher's start, about what a warm event
takes here) one signal goes to:

- ``server kill`` / ``server stop``: the warm process (SIGKILL, or SIGSTOP until the round
  is over);
- ``child kill`` / ``child stop``: its spare child, the one that takes the next event.

Per fault it counts: the prompt answered as a cold run answers it, answered otherwise
(valid, other notes), nothing printed, stdout that is not one JSON document, more than one
answer, the event run by two processes (two lines in the timing log, once the stopped
process was resumed), a non-zero exit, and the host's stdout still held ``budget + 2 s``
after the launcher started (then the stopped process is resumed), with the longest time
until stdout closed. A signal that comes after the child answered and exited is not
counted (``late``), and the round is tried again. Exits 1 when an output was invalid,
doubled or held, or a kill cost an answer (a child stopped once it has the payload may
still be answering: the launcher gives that event up when its budget is spent).

``--against REV`` runs the same rounds with the code of git revision REV (its launcher
and warm process, as ``benchmarks/hook_latency.py --against`` builds them), after those
of this checkout.

    .venv/bin/python benchmarks/warm_faults.py [--rounds 30] [--seed 1] [--against REV]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import select
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from hook_latency import AGAINST, export_revision, write_against_launcher
from kbgen import write_kb

from lorebook.fastpath.client import stop_server
from lorebook.fastpath.status import LOCK_NAME

PROMPT = "why does the session start command fail when the repo path has spaces?"
FAULTS = ("server kill", "server stop", "child kill", "child stop")
BUDGET = 1.0
"""The prompt budget (``budgets.prompt_ms`` by default), seconds."""
HELD = BUDGET + 2.0
"""Past this, the host's stdout counts as held."""


def launch(launcher: Path, repo: Path, session: str) -> subprocess.Popen[bytes]:
    """Start the launcher on a prompt of ``session``, its payload written and stdin closed."""
    env = {k: v for k, v in os.environ.items() if k != "LOREBOOK_HOOK_SERVER"}
    proc = subprocess.Popen(
        [str(launcher), "claude", "UserPromptSubmit"], stdin=subprocess.PIPE,
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=repo, env=env,
    )  # fmt: skip
    payload = {"session_id": session, "cwd": str(repo), "hook_event_name": "UserPromptSubmit"}
    assert proc.stdin is not None
    proc.stdin.write(json.dumps({**payload, "prompt": PROMPT}).encode())
    proc.stdin.close()
    proc.stdin = None  # written: communicate() only reads
    return proc


def read_until_closed(proc: subprocess.Popen[bytes], began: float) -> tuple[bytes, float]:
    """What ``proc`` printed until its stdout closed or :data:`HELD` passed, and when."""
    assert proc.stdout is not None
    out = b""
    while (left := began + HELD - time.monotonic()) > 0:
        if not select.select([proc.stdout], [], [], left)[0]:
            break
        chunk = os.read(proc.stdout.fileno(), 1 << 16)
        if not chunk:
            return out, time.monotonic() - began
        out += chunk
    return out, float("inf")


def server_pid(repo: Path) -> int:
    """The running warm process's pid, from its lock file (0 when none)."""
    try:
        return int((repo / ".lorebook/.cache" / LOCK_NAME).read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 0


def spare_of(server: int) -> int:
    """The warm process's only child (its spare), or 0."""
    try:
        found = Path(f"/proc/{server}/task/{server}/children").read_text().split()
    except OSError:
        return 0
    return int(found[0]) if len(found) == 1 else 0


def ready(launcher: Path, repo: Path, probe: int) -> int:
    """Fire prompts until one is answered warm and a spare waits; return the server's pid."""
    give_up = time.monotonic() + 60
    while time.monotonic() < give_up:
        session = f"probe-{probe}-{time.monotonic_ns()}"
        proc = launch(launcher, repo, session)
        proc.communicate(timeout=60)
        lines = timing(repo, session)
        server = server_pid(repo)
        if lines and lines[0].get("warm") and server:
            time.sleep(0.3)  # the next spare rehearses
            if spare_of(server):
                return server
        time.sleep(0.1)
    sys.exit("the warm hook process never answered: see .lorebook/_logs/hook-errors.log")


def timing(repo: Path, session: str) -> list[dict[str, object]]:
    """The timing log's lines of ``session``."""
    log = repo / ".lorebook/_logs/hook-timing.log"
    lines = log.read_text(encoding="utf-8").splitlines() if log.exists() else []
    return [json.loads(line) for line in lines if f'"{session}"' in line]


def one_round(launcher: Path, repo: Path, fault: str, n: int, rng: random.Random) -> list[str]:
    """Fire one prompt with ``fault``; return what it counts towards."""
    server = ready(launcher, repo, n)
    target = server if fault.startswith("server") else spare_of(server)
    sig = signal.SIGKILL if fault.endswith("kill") else signal.SIGSTOP
    session = f"{fault.replace(' ', '-')}-{n}"
    began = time.monotonic()
    proc = launch(launcher, repo, session)
    time.sleep(rng.uniform(0.0, 0.040))
    try:
        os.kill(target, sig)
    except ProcessLookupError:  # the child had answered and exited: tried again
        proc.communicate(timeout=60)
        return ["late"]
    out, closed = read_until_closed(proc, began)
    if sig == signal.SIGSTOP:
        os.kill(target, signal.SIGCONT)
    out += proc.communicate(timeout=60)[0]
    counts = [f"closed {closed:.3f}"]
    if closed == float("inf"):
        counts.append("stdout held")
    if proc.returncode != 0:
        counts.append("non-zero exit")
    docs = out.decode(errors="replace").splitlines()
    try:
        answers = [json.loads(doc) for doc in docs]
    except ValueError:
        return [*counts, "invalid"]
    if not answers:
        counts.append("nothing printed")
    elif len(answers) > 1:
        counts.append("more than one answer")
    elif json.dumps(answers[0]) == reference(repo):
        counts.append("answered")
    else:
        counts.append("answered otherwise")
    if sig == signal.SIGSTOP:
        ready(launcher, repo, n)  # resumed: it has read what waited for it
    if len(timing(repo, session)) > 1:
        counts.append("run by two processes")
    return counts


_REFERENCE: dict[str, str] = {}


def reference(repo: Path) -> str:
    """The answer a cold run gives the prompt in a new session."""
    if not _REFERENCE:
        env = {**os.environ, "LOREBOOK_HOOK_SERVER": "0"}
        payload = {"session_id": "reference", "cwd": str(repo), "prompt": PROMPT}
        proc = subprocess.run(
            [str(repo / ".lorebook/bin/hook"), "claude", "UserPromptSubmit"],
            input=json.dumps({**payload, "hook_event_name": "UserPromptSubmit"}).encode(),
            capture_output=True, cwd=repo, env=env, check=True,
        )  # fmt: skip
        _REFERENCE["answer"] = json.dumps(json.loads(proc.stdout))
    return _REFERENCE["answer"]


def run(launcher: Path, repo: Path, rounds: int, seed: int) -> dict[str, Counter[str]]:
    """Every fault, ``rounds`` times; the counts per fault."""
    rng = random.Random(seed)
    results: dict[str, Counter[str]] = {}
    for fault in FAULTS:
        counts: Counter[str] = Counter()
        longest = 0.0
        n = 0
        while n - counts["late"] < rounds and n < 10 * rounds:
            n += 1
            for item in one_round(launcher, repo, fault, n, rng):
                if item.startswith("closed "):
                    longest = max(longest, float(item.split()[1]))
                else:
                    counts[item] += 1
        counts["longest ms"] = round(longest * 1000) if longest != float("inf") else -1
        results[fault] = counts
        print(f"  {fault}: {dict(counts)}", file=sys.stderr, flush=True)
    stop_server(str(repo / ".lorebook"))
    return results


COLUMNS = (
    "late", "answered", "answered otherwise", "nothing printed", "invalid", "more than one answer",
    "run by two processes", "non-zero exit", "stdout held", "longest ms",
)  # fmt: skip


def report(name: str, rounds: int, results: dict[str, Counter[str]]) -> None:
    """One table row per fault."""
    print(f"\n== {name}: {rounds} rounds per fault")
    print("| fault | " + " | ".join(COLUMNS) + " |")
    print("|---" * (len(COLUMNS) + 1) + "|")
    for fault, counts in results.items():
        print(f"| {fault} | " + " | ".join(str(counts.get(c, 0)) for c in COLUMNS) + " |")


def failed(results: dict[str, Counter[str]], rounds: int) -> bool:
    """Whether a round printed badly, twice or late, or lost its answer to a kill.

    A child stopped once it has the payload may still be answering: the launcher gives
    the event up at the end of its budget and prints nothing, so a stop may cost an answer.
    """
    bad = ("invalid", "more than one answer", "stdout held", "non-zero exit")
    lost = ("answered otherwise", "nothing printed")
    return any(
        any(counts[b] for b in bad) or (fault.endswith("kill") and any(counts[x] for x in lost))
        for fault, counts in results.items()
    )


def main(argv: list[str] | None = None) -> int:
    """Build the repository, run the faults (and those of ``--against``), print the tables."""
    if not Path(f"/proc/{os.getpid()}/task/{os.getpid()}/children").exists():
        sys.exit("needs Linux's /proc/<pid>/task/<pid>/children")
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--against", metavar="REV", help="also run the code of git revision REV")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="lorebook-warm-faults-") as tmp:
        repo = Path(tmp) / "repo"
        write_kb(repo, 100)
        launchers = {"this checkout": repo / ".lorebook/bin/hook"}
        if args.against:
            write_against_launcher(repo, export_revision(args.against, Path(tmp)))
            launchers[args.against] = repo / ".lorebook/bin" / AGAINST
        outcome = 0
        try:
            for name, launcher in launchers.items():
                print(f"{name}:", file=sys.stderr)
                results = run(launcher, repo, args.rounds, args.seed)
                report(name, args.rounds, results)
                if name == "this checkout" and failed(results, args.rounds):
                    outcome = 1
        finally:
            stop_server(str(repo / ".lorebook"))
    return outcome


if __name__ == "__main__":
    raise SystemExit(main())
