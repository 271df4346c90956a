"""Concurrent hooks and writers on one repository for a fixed time (60 s by default).

One Claude Code repository (``lorebook init --harnesses claude``, 100 notes) and, at the
same time, each worker in a loop of real processes:

- ``note add`` writers, each adding notes with titles of its own;
- prompt hooks and session-start hooks, run through the machine's launcher
  (``.lorebook/bin/hook claude <event>``, as the committed command runs it, without the
  command's ``|| true`` so a failure shows);
- per transcript, one appender growing a Claude Code transcript by a few turns at a time,
  and stop hooks capturing it (inline capture, as a host's Stop event does).

Then one ``lorebook capture`` per transcript stages what the last hooks left, and the run
checks: every note whose ``note add`` succeeded is there and parses, every note add and
hook exited 0, every hook printed nothing or one JSON document, every user turn of every
transcript is staged exactly once, ``lorebook lint`` passes, no temporary file is left.
Prints the counts; exits 1 when a check failed.

    .venv/bin/python benchmarks/concurrency.py [--seconds 60] [--ops N]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from kbgen import write_kb
from kill_writers import claude_line

from lorebook.fastpath.client import stop_server

LOREBOOK = [sys.executable, "-m", "lorebook"]
TIMEOUT = 120.0


@dataclass
class Results:
    """Counts of what every worker did, and what went wrong."""

    runs: Counter[str] = field(default_factory=Counter)
    added: list[str] = field(default_factory=list)
    turns: dict[str, list[str]] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def record(self, kind: str, problem: str | None = None) -> None:
        """Count one run of ``kind``, and its problem if it had one."""
        with self.lock:
            self.runs[kind] += 1
            if problem:
                self.problems.append(f"{kind}: {problem}")


def hook(repo: Path, event: str, payload: dict[str, object], results: Results) -> None:
    """Run the launcher for one event; check its exit code and its stdout."""
    launcher = repo / ".lorebook" / "bin" / "hook"
    body = json.dumps({"cwd": str(repo), "hook_event_name": event, **payload})
    proc = subprocess.run(
        [str(launcher), "claude", event], input=body.encode(), cwd=repo,
        capture_output=True, timeout=TIMEOUT, check=False,
    )  # fmt: skip
    problem = None
    if proc.returncode != 0:
        problem = f"exit {proc.returncode}: {proc.stderr.decode(errors='replace')[:200]}"
    elif proc.stdout.strip():
        try:
            json.loads(proc.stdout)
        except ValueError:
            problem = f"stdout is not one JSON document: {proc.stdout[:200]!r}"
    results.record(f"hook {event}", problem)


def note_adder(repo: Path, worker: int, stop: Stop, results: Results) -> None:
    """Add notes with titles of this worker until told to stop."""
    n = 0
    while stop.more(f"add{worker}"):
        title = f"Concurrent writer {worker} note {n} keeps its place"
        proc = subprocess.run(
            [*LOREBOOK, "note", "add", "--title", title, "--kind", "gotcha", "--description",
             f"Added by worker {worker}", "--folder", f"concurrent/w{worker % 2}"],
            cwd=repo, capture_output=True, text=True, timeout=TIMEOUT, check=False,
        )  # fmt: skip
        if proc.returncode == 0:
            with results.lock:
                results.added.append(title)
        results.record("note add", f"exit {proc.returncode}: {proc.stderr[:200]}"
                       if proc.returncode else None)  # fmt: skip
        n += 1


def prompter(repo: Path, worker: int, stop: Stop, results: Results) -> None:
    """Prompt hooks (and a session start every fourth run)."""
    n = 0
    while stop.more(f"prompt{worker}"):
        sid = f"prompt-{worker}"
        if n % 4 == 0:
            hook(repo, "SessionStart", {"session_id": sid, "source": "startup"}, results)
        prompt = f"how do the concurrent writer notes and the release checks work {n}"
        hook(repo, "UserPromptSubmit", {"session_id": sid, "prompt": prompt}, results)
        n += 1


def appender(path: Path, sid: str, stop: Stop, results: Results) -> None:
    """Grow a transcript a few turns at a time; remember every user text written."""
    n = 0
    while stop.more(f"grow{sid}"):
        lines, texts = [], []
        for _ in range(3):
            text = f"Turn {n} of {sid}: no, always run the {sid} check before the step {n}."
            reply = f"Understood, step {n}."
            lines += [claude_line(sid, 2 * n, "user", text),
                      claude_line(sid, 2 * n + 1, "assistant", reply)]  # fmt: skip
            texts.append(text)
            n += 1
        with path.open("a", encoding="utf-8") as handle:
            handle.write("\n".join(lines) + "\n")
        with results.lock:
            results.turns.setdefault(sid, []).extend(texts)
        time.sleep(0.05)


def stopper(repo: Path, path: Path, sid: str, worker: int, stop: Stop, results: Results) -> None:
    """Stop hooks capturing the growing transcript."""
    while stop.more(f"stop{sid}{worker}"):
        payload = {"session_id": sid, "transcript_path": str(path), "stop_hook_active": False}
        hook(repo, "Stop", payload, results)


class Stop:
    """Tells workers to stop: at a deadline, or after ``ops`` rounds of each worker."""

    def __init__(self, seconds: float, ops: int | None) -> None:
        self.deadline = time.monotonic() + seconds
        self.ops = ops
        self.rounds: Counter[str] = Counter()

    def more(self, worker: str) -> bool:
        """Whether ``worker`` goes on for another round."""
        self.rounds[worker] += 1
        if self.ops is not None and self.rounds[worker] > self.ops:
            return False
        return time.monotonic() < self.deadline


def check(repo: Path, results: Results) -> None:
    """After every worker stopped: notes, staged turns, lint, temporary files."""
    from lorebook.capture.stage import load_log, log_path
    from lorebook.kb.paths import KBPaths
    from lorebook.kb.store import load_snapshot

    paths = KBPaths(repo)
    snapshot = load_snapshot(paths)
    results.problems += [f"note: {p}" for p in snapshot.problems]
    titles = Counter(s.note.title for s in snapshot.notes.values())
    results.problems += [f"lost note: {t}" for t in results.added if titles[t] != 1]
    for sid, texts in sorted(results.turns.items()):
        subprocess.run(
            [*LOREBOOK, "capture", "--harness", "claude", "--session", sid, "--transcript",
             f"{sid}.jsonl"], cwd=repo, capture_output=True, timeout=TIMEOUT, check=True,
        )  # fmt: skip
        log = load_log(log_path(paths, "claude", sid))
        staged = Counter(t.text for t in (log.turns if log else []) if t.role == "user")
        results.problems += [f"turn staged {staged[t]} times: {t}" for t in texts if staged[t] != 1]
        results.problems += [f"turn never written: {t}" for t in staged if t not in texts]
    lint = subprocess.run([*LOREBOOK, "lint"], cwd=repo, capture_output=True, text=True,
                          timeout=TIMEOUT, check=False)  # fmt: skip
    if lint.returncode != 0:
        results.problems.append(f"lint: exit {lint.returncode}: {lint.stdout[-300:]}")
    results.problems += [f"temporary file left: {p}" for p in (repo / ".lorebook").rglob("*.tmp")]


def run(repo: Path, seconds: float, ops: int | None, workers: dict[str, int]) -> Results:
    """Build the repository, run every worker at once, then check."""
    write_kb(repo, 100)
    results = Results()
    stop = Stop(seconds, ops)
    threads = [threading.Thread(target=note_adder, args=(repo, w, stop, results))
               for w in range(workers["adders"])]  # fmt: skip
    threads += [threading.Thread(target=prompter, args=(repo, w, stop, results))
                for w in range(workers["prompters"])]  # fmt: skip
    for t in range(workers["transcripts"]):
        sid = f"grow-{t}"
        path = repo / f"{sid}.jsonl"
        path.touch()
        threads.append(threading.Thread(target=appender, args=(path, sid, stop, results)))
        threads += [threading.Thread(target=stopper, args=(repo, path, sid, w, stop, results))
                    for w in range(workers["stoppers"])]  # fmt: skip
    started = time.monotonic()
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        stop_server(str(repo / ".lorebook"))  # the hooks started it (unless it is turned off)
    results.runs["seconds"] = round(time.monotonic() - started)
    timing = (repo / ".lorebook/_logs/hook-timing.log").read_text().splitlines()
    results.runs["hook answers by the warm process"] = sum('"warm": true' in t for t in timing)
    check(repo, results)
    return results


def wait_for_detached(repo: Path, seconds: float = 120.0) -> None:
    """Wait until no process names ``repo`` on its command line (up to ``seconds``).

    The stop hooks start detached capture processes that outlive them by design; the
    repository is removed only once they have finished writing into it.
    """
    give_up = time.monotonic() + seconds
    while time.monotonic() < give_up:
        found = subprocess.run(["pgrep", "-f", str(repo)], capture_output=True, check=False)
        if not found.stdout.strip():
            return
        time.sleep(0.2)


def main(argv: list[str] | None = None) -> int:
    """Run, print the counts and the first problems; 1 if any check failed."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--ops", type=int, help="at most this many rounds per worker")
    parser.add_argument("--adders", type=int, default=3)
    parser.add_argument("--prompters", type=int, default=3)
    parser.add_argument("--transcripts", type=int, default=2)
    parser.add_argument("--stoppers", type=int, default=3, help="stop-hook workers per transcript")
    args = parser.parse_args(argv)
    workers = {k: getattr(args, k) for k in ("adders", "prompters", "transcripts", "stoppers")}
    with tempfile.TemporaryDirectory(prefix="lorebook-concurrency-") as tmp:
        results = run(Path(tmp) / "repo", args.seconds, args.ops, workers)
        wait_for_detached(Path(tmp) / "repo")
    report(results)
    return 1 if results.problems else 0


def report(results: Results) -> None:
    """The counts, then up to ten problems."""
    turns = sum(len(t) for t in results.turns.values())
    print(f"{results.runs['seconds']} s; note add {results.runs['note add']} "
          f"({len(results.added)} landed); " + "; ".join(
              f"{k} {v}" for k, v in sorted(results.runs.items()) if k.startswith("hook")
          ) + f"; transcript turns {turns}; problems {len(results.problems)}")  # fmt: skip
    for problem in results.problems[:10]:
        print(f"    {problem}")


if __name__ == "__main__":
    sys.exit(main())
