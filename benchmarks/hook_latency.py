"""How long each hook takes at a given knowledge-base size, next to hooks that do nothing.

For each size, builds (or reuses) a repository wired for Claude Code with a realistic
knowledge base (benchmarks/kbgen.py), then runs, interleaved, for R rounds:

- floor: `python -I -S -c pass`, the interpreter alone;
- do-nothing: `python -I -S -c "import json,sys; json.load(sys.stdin)"`, the least a Python
  hook can do (start, read the payload);
- prompt (typical / long pasted / no match): `.lorebook/bin/hook claude UserPromptSubmit`,
  exactly what Claude Code runs, with three prompt shapes users type;
- session start and pre-tool (a Bash command), through the same launcher.

Each hook figure is run twice: answered by the repository's warm hook process (what a
session gets from its second event on; the server is started before the rounds and
stopped after them) and, as "(cold)", in its own process from nothing
(``LOREBOOK_HOOK_SERVER=0``: the first event of a session, or a machine where no server
runs). The warm process's own resident memory is printed after the table; the RSS column
of a warm figure is the peak of the child that answers it (the pages it shares with the
warm process included), not that of the launcher, which stays near the floor's.

Events are ``--gap`` seconds apart (0.1 by default; the sleep is not timed): in a session
the model answers between two events, and the warm process readies its spare child for the
next event meanwhile (see ``lorebook.fastpath.child.Spare``). ``--gap 0`` runs them back to
back, which a session never does: an event that comes before the spare is ready gets a
child forked for it, whose first run costs more.

Each round uses a new session id, so notes are injected every time. Prints median, min and
max (wall clock, ms), the ratio of each median to the do-nothing hook's, and the peak RSS
of one run of each (from /usr/bin/time). The machine is shared and noisy: quote medians and
ratios from one run.

``--against REV`` adds, in the same rounds, every hook figure run by the code of git
revision REV (its ``core/src`` and ``plugins/claude/src``, exported beside the knowledge
bases) through a second launcher on the same knowledge base, with a session id of its own:
a before/after comparison of the code in one run (both launchers are this checkout's), each
event in its own process, so it compares with the "(cold)" figures. REV must write the same
index version.

    .venv/bin/python benchmarks/hook_latency.py --notes 1000,10000 [--rounds 20] [--keep DIR]
        [--gap 0.1] [--against REV]
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from kbgen import knowledge_bases, peak_rss_mb

PROMPTS = {
    "prompt typical": "why does the session start command fail when the repo path has spaces?",
    "prompt pasted": (
        "I ran the tests and got this, what is going on?\n"
        "Traceback (most recent call last):\n"
        '  File "src/app/cli.py", line 88, in main\n'
        "    result = run_command(args.command, config=load_config(args.config))\n"
        '  File "src/app/commands.py", line 142, in run_command\n'
        "    return handler(**options)\n"
        '  File "src/app/handlers/deploy.py", line 57, in deploy\n'
        "    client.upload(bundle, retries=settings.retries)\n"
        '  File "src/app/net/client.py", line 210, in upload\n'
        "    raise UploadError(f'upload failed after {retries} retries: {last_error}')\n"
        "app.net.errors.UploadError: upload failed after 3 retries: 504 Gateway Timeout from "
        "the cache layer while pushing the bundle to the staging bucket; the request id was "
        "7f3a9c and the previous deploy succeeded, so did something change in how we "
        "configure retries or timeouts for the staging environment, and should the test use "
        "a mock client instead of the real one?"
    ),
    "prompt no match": "what's a good name for a pet hamster who likes to run at night?",
}
FIGURES = ("floor", "do-nothing", *PROMPTS, "session start", "pre-tool")
HOOKS = FIGURES[2:]
"""The figures a launcher runs (the others are the baselines)."""
COLD = " (cold)"
"""Suffix of the figures run in their own process, without the warm hook process."""
ROOT = Path(__file__).resolve().parent.parent
AGAINST = "hook-against"
"""The launcher, beside ``hook``, that runs the code of ``--against``."""


def payloads(repo: Path, session: str) -> dict[str, bytes]:
    """The JSON each figure's process reads on stdin."""
    base: dict[str, object] = {"session_id": session, "transcript_path": "/dev/null"}
    base["cwd"] = str(repo)
    out: dict[str, dict[str, object]] = {
        name: {**base, "hook_event_name": "UserPromptSubmit", "prompt": prompt}
        for name, prompt in PROMPTS.items()
    }
    out["session start"] = {**base, "hook_event_name": "SessionStart", "source": "startup"}
    out["pre-tool"] = {
        **base,
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "git push --force origin main"},
    }
    out["floor"] = out["do-nothing"] = out["prompt typical"]
    return {name: json.dumps(value).encode() for name, value in out.items()}


def commands(repo: Path, against: str | None = None) -> dict[str, list[str]]:
    """The process each figure runs (with ``against``, also each hook figure by that code)."""
    hook = str(repo / ".lorebook/bin/hook")
    events = {"session start": "SessionStart", "pre-tool": "PreToolUse"}
    out = {name: [hook, "claude", events.get(name, "UserPromptSubmit")] for name in FIGURES}
    for name in HOOKS:
        out[name + COLD] = out[name]
    if against is not None:
        other = str(repo / ".lorebook/bin" / AGAINST)
        for name in HOOKS:
            out[f"{name} ({against})"] = [other, *out[name][1:]]
    out["floor"] = [sys.executable, "-I", "-S", "-c", "pass"]
    out["do-nothing"] = [sys.executable, "-I", "-S", "-c", "import json,sys; json.load(sys.stdin)"]
    return out


def index_version(src: Path) -> str | None:
    """The index version the code under ``src`` (a ``core/src``) writes."""
    for name in ("index.py", "writer.py"):
        path = src / "lorebook/recall" / name
        found = (
            re.search(r'^INDEX_VERSION = "([^"]+)"', path.read_text(), re.M)
            if path.exists()
            else None
        )
        if found:
            return found.group(1)
    return None


def export_revision(rev: str, into: Path) -> Path:
    """``core/src`` and ``plugins/claude/src`` of git revision ``rev``, under ``into``, compiled.

    Exits with a message when the revision is unknown or writes another index version.
    """
    target = into / f"against-{rev.replace('/', '_')}"
    if not (target / "core/src").exists():
        target.mkdir(parents=True, exist_ok=True)
        archive = subprocess.run(
            ["git", "-C", str(ROOT), "archive", rev, "core/src", "plugins/claude/src"],
            capture_output=True, check=False,
        )  # fmt: skip
        if archive.returncode != 0:
            sys.exit(f"--against {rev}: {archive.stderr.decode().strip()}")
        subprocess.run(["tar", "-x", "-C", str(target)], input=archive.stdout, check=True)
        compileall.compile_dir(str(target), quiet=1)
    mine, theirs = index_version(ROOT / "core/src"), index_version(target / "core/src")
    if mine != theirs:
        sys.exit(f"--against {rev}: it writes index version {theirs}, this checkout {mine}")
    return target


def write_against_launcher(repo: Path, code: Path) -> None:
    """A launcher beside the repository's that imports lorebook from ``code`` first.

    It is this checkout's launcher (its interpreter flags and import finder), with ``code``'s
    folders ahead of the installed ones: the comparison is of the code, not of launchers.
    """
    from lorebook.fastpath.launcher import launcher_entry, launcher_paths

    modules = {"claude": "lorebook_claude.events"}
    first = [str(code / "core/src"), str(code / "plugins/claude/src")]
    entry = launcher_entry(modules, [*first, *launcher_paths(modules)])
    target = repo / ".lorebook/bin" / AGAINST
    target.write_text(f"#!{sys.executable} -IS\n{entry}")
    target.chmod(0o755)


def timed(argv: list[str], payload: bytes, env: dict[str, str], cwd: Path) -> tuple[float, bytes]:
    """Run one process; return (seconds, stdout)."""
    started = time.perf_counter()
    proc = subprocess.run(argv, input=payload, capture_output=True, env=env, cwd=cwd, check=True)
    return time.perf_counter() - started, proc.stdout


def start_server(repo: Path, env: dict[str, str]) -> int:
    """Start the repository's warm hook process (one session start); return its pid."""
    from lorebook.fastpath.client import socket_path
    from lorebook.fastpath.status import LOCK_NAME

    data = payloads(repo, f"bench-warmup-{time.monotonic_ns()}")
    timed(commands(repo)["session start"], data["session start"], env, repo)
    sock = Path(socket_path(str(repo / ".lorebook")))
    give_up = time.monotonic() + 30
    while not sock.exists():
        if time.monotonic() > give_up:
            sys.exit(f"the warm hook process did not start in {repo}: see its hook-errors.log")
        time.sleep(0.05)
    return int((sock.parent / LOCK_NAME).read_text())


CHILD_RSS = """
import gc, json, os, resource, sys
paths, repo, launcher, events = json.loads(sys.argv[1])
sys.path += paths
from lorebook.fastpath.server import Server
server = Server(repo, {"claude": "lorebook_claude.events"}, launcher)
server.warm()
gc.collect()
gc.freeze()
from lorebook.hook import run
peaks = {}
for name, (event, payload) in events.items():
    read, write = os.pipe()
    os.write(write, payload.encode())
    os.close(write)
    report, told = os.pipe()
    if os.fork() == 0:
        gc.disable()
        from lorebook.fastpath.rehearse import rehearse
        rehearse(server.kb_root)  # as a spare child does before its event
        os.dup2(read, 0)
        os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
        run(["claude", event], repo=repo, event_modules=server.event_modules)
        os.write(told, str(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss).encode())
        os._exit(0)
    os.close(told)
    peaks[name] = int(os.read(report, 64) or 0) / 1024
    os.close(read)
    os.wait()
print(json.dumps(peaks))
"""
"""Forks children from a process warmed as the server warms itself, and runs each event in
one after the rehearsal a spare child makes, as the server does (a pipe for the socket):
each child's peak resident memory, which counts the pages it shares with the warm process."""


def warm_child_rss(repo: Path, env: dict[str, str]) -> dict[str, float]:
    """Peak resident memory (MB) of the warm process's child answering each hook figure."""
    from lorebook.fastpath.launcher import launcher_paths

    data = payloads(repo, f"bench-child-rss-{time.monotonic_ns()}")
    argv = commands(repo)
    events = {name: (argv[name][2], data[name].decode()) for name in HOOKS}
    paths = launcher_paths({"claude": "lorebook_claude.events"})
    spec = json.dumps([paths, str(repo), argv[HOOKS[0]][0], events])
    proc = subprocess.run(
        [sys.executable, "-I", "-S", "-c", CHILD_RSS, spec],
        capture_output=True, cwd=repo, env=env, check=True,
    )  # fmt: skip
    peaks: dict[str, float] = json.loads(proc.stdout)
    return peaks


def server_rss(pid: int) -> str:
    """The warm process's resident and peak resident memory, from /proc."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return "unknown"
    fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
    mb = {key: int(fields[key].split()[0]) / 1024 for key in ("VmRSS", "VmHWM") if key in fields}
    return f"{mb.get('VmRSS', 0):.1f} MB resident, peak {mb.get('VmHWM', 0):.1f} MB"


def measure(repo: Path, rounds: int, against: str | None = None, gap: float = 0.1) -> None:
    """Run the interleaved rounds on one repository and print the table."""
    from lorebook.constants import ENV_HOOK_SERVER
    from lorebook.fastpath.client import stop_server

    env = {k: v for k, v in os.environ.items() if k not in ("LOREBOOK_INTERNAL", ENV_HOOK_SERVER)}
    env["CLAUDE_PROJECT_DIR"] = str(repo)
    cold = {**env, ENV_HOOK_SERVER: "0"}
    pid = start_server(repo, env)
    try:
        _rounds(repo, rounds, against, env, cold, gap)
        print(f"warm hook process: {server_rss(pid)}")
    finally:
        stop_server(str(repo / ".lorebook"))


def _rounds(
    repo: Path,
    rounds: int,
    against: str | None,
    env: dict[str, str],
    cold: dict[str, str],
    gap: float,
) -> None:
    argv = commands(repo, against)
    names = list(argv)
    samples: dict[str, list[float]] = {name: [] for name in names}
    injected: dict[str, int] = {}
    for r in range(rounds):
        stamp = time.monotonic_ns()
        sessions = {
            variant: payloads(repo, f"bench-{r}-{stamp}-{i}")  # each its own session
            for i, variant in enumerate(("", "cold)", f"{against})"))
        }
        for name in names:
            hook, _, variant = name.partition(" (")
            time.sleep(gap)
            seconds, out = timed(
                argv[name], sessions[variant][hook], cold if variant else env, repo
            )
            samples[name].append(seconds * 1000)
            injected[name] = len(out)
    data = payloads(repo, "bench-rss")
    children = warm_child_rss(repo, env)
    for name in ("floor", "do-nothing"):
        children[name] = peak_rss_mb(argv[name], repo, data[name], env)
    base = statistics.median(samples["do-nothing"])
    width = max(18, *(len(name) + 2 for name in names))
    print(
        f"{'figure':<{width}}{'median':>9}{'min':>9}{'max':>9}{'ratio':>8}{'RSS MB':>9}{'out B':>8}"
    )
    for name in sorted(names, key=lambda n: (FIGURES.index(n.partition(" (")[0]), n)):
        values = samples[name]
        median = statistics.median(values)
        own = " (" in name
        rss = (
            peak_rss_mb(argv[name], repo, data[name.partition(" (")[0]], cold)
            if own
            else children[name]
        )
        print(
            f"{name:<{width}}{median:>9.1f}{min(values):>9.1f}{max(values):>9.1f}"
            f"{median / base:>8.2f}{rss:>9.1f}{injected[name]:>8}"
        )
    log = repo / ".lorebook/_logs/hook-errors.log"
    if log.exists():
        print("hook errors:", log.read_text()[-2000:])


def main() -> None:
    """Build each knowledge base, run the rounds, print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notes", default="1000,10000", help="sizes, comma-separated")
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--keep", type=Path, help="build (or reuse) the repositories here")
    parser.add_argument("--against", metavar="REV", help="also run the hooks of git revision REV")
    parser.add_argument(
        "--gap", type=float, default=0.1, help="seconds between events (0: back to back)"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="lorebook-against-") as tmp:
        code = export_revision(args.against, args.keep or Path(tmp)) if args.against else None
        for size, repo, built in knowledge_bases(args.notes, args.keep):
            if built is not None:
                print(f"\n{size} notes: index built from nothing in {built:.1f} s")
            if code is not None:
                write_against_launcher(repo, code)
            print(f"\n== {size} notes, {args.rounds} rounds, events {args.gap:g} s apart (ms)")
            measure(repo, args.rounds, args.against, args.gap)


if __name__ == "__main__":
    main()
