"""How long each hook takes at a given knowledge-base size, next to hooks that do nothing.

For each size, builds (or reuses) a repository wired for Claude Code with a realistic
knowledge base (benchmarks/kbgen.py), then runs, interleaved, for R rounds:

- floor: `python -I -S -c pass`, the interpreter alone;
- do-nothing: `python -I -S -c "import json,sys; json.load(sys.stdin)"`, the least a Python
  hook can do (start, read the payload);
- prompt (typical / long pasted / no match): `.lorebook/bin/hook claude UserPromptSubmit`,
  exactly what Claude Code runs, with three prompt shapes users type;
- session start and pre-tool (a Bash command), through the same launcher.

Each round uses a new session id, so notes are injected every time. Prints median, min and
max (wall clock, ms), the ratio of each median to the do-nothing hook's, and the peak RSS
of one run of each (from /usr/bin/time). The machine is shared and noisy: quote medians and
ratios from one run.

    .venv/bin/python benchmarks/hook_latency.py --notes 1000,10000 [--rounds 20] [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
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


def commands(repo: Path) -> dict[str, list[str]]:
    """The process each figure runs."""
    hook = str(repo / ".lorebook/bin/hook")
    events = {"session start": "SessionStart", "pre-tool": "PreToolUse"}
    out = {name: [hook, "claude", events.get(name, "UserPromptSubmit")] for name in FIGURES}
    out["floor"] = [sys.executable, "-I", "-S", "-c", "pass"]
    out["do-nothing"] = [sys.executable, "-I", "-S", "-c", "import json,sys; json.load(sys.stdin)"]
    return out


def timed(argv: list[str], payload: bytes, env: dict[str, str], cwd: Path) -> tuple[float, bytes]:
    """Run one process; return (seconds, stdout)."""
    started = time.perf_counter()
    proc = subprocess.run(argv, input=payload, capture_output=True, env=env, cwd=cwd, check=True)
    return time.perf_counter() - started, proc.stdout


def measure(repo: Path, rounds: int) -> None:
    """Run the interleaved rounds on one repository and print the table."""
    env = {k: v for k, v in os.environ.items() if k != "LOREBOOK_INTERNAL"}
    env["CLAUDE_PROJECT_DIR"] = str(repo)
    argv = commands(repo)
    samples: dict[str, list[float]] = {name: [] for name in FIGURES}
    injected: dict[str, int] = {}
    for r in range(rounds):
        data = payloads(repo, f"bench-{r}-{time.monotonic_ns()}")
        for name in FIGURES:
            seconds, out = timed(argv[name], data[name], env, repo)
            samples[name].append(seconds * 1000)
            injected[name] = len(out)
    data = payloads(repo, "bench-rss")
    base = statistics.median(samples["do-nothing"])
    print(f"{'figure':<18}{'median':>9}{'min':>9}{'max':>9}{'ratio':>8}{'RSS MB':>9}{'out B':>8}")
    for name in FIGURES:
        values = samples[name]
        median = statistics.median(values)
        rss = peak_rss_mb(argv[name], repo, data[name], env)
        print(
            f"{name:<18}{median:>9.1f}{min(values):>9.1f}{max(values):>9.1f}"
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
    args = parser.parse_args()
    for size, repo, built in knowledge_bases(args.notes, args.keep):
        if built is not None:
            print(f"\n{size} notes: index built from nothing in {built:.1f} s")
        print(f"\n== {size} notes, {args.rounds} rounds (ms)")
        measure(repo, args.rounds)


if __name__ == "__main__":
    main()
