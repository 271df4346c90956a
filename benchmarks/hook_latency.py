"""How long the prompt hook takes at 10,000 notes, next to a hook that does nothing.

Builds a throwaway git repository wired for Claude Code (`lorebook init --harnesses
claude`), writes N notes (paragraphs of the community rule files in
shared/eval/corpora/awesome-cursorrules when present, else generated text), indexes them,
then runs, interleaved, for R rounds:

- do-nothing: `python -I -S -c "import json,sys; json.load(sys.stdin)"`, the least a Python
  hook can do (start, read the payload), fed the same payload;
- prompt: `.lorebook/bin/hook claude UserPromptSubmit`, exactly what Claude Code runs,
  ranking the prompt against every note and printing the injection;
- internal: the same launcher with LOREBOOK_INTERNAL=1 (start-up and imports only).

Prints medians and 90th percentiles (wall clock) and the ratio prompt / do-nothing. The
machine is shared and noisy: quote medians and ratios from one run, not single samples.

    .venv/bin/python benchmarks/hook_latency.py [--notes 10000] [--rounds 40]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from lorebook.initialize import init_repo
from lorebook.kb.notes import render_note
from lorebook.kb.paths import KBPaths
from lorebook.models.note import Note
from lorebook.recall.sync import reconcile

CORPUS = Path(__file__).resolve().parents[2] / "shared/eval/corpora/awesome-cursorrules/rules"
PROMPT = (
    "the pytest run fails with a 504 gateway timeout from the cache layer, how should I fix it?"
)
KINDS = ("convention", "prohibition", "gotcha", "decision", "tooling")


def paragraphs() -> list[str]:
    """Realistic text: paragraphs of community rule files, or generated words."""
    found: list[str] = []
    if CORPUS.is_dir():
        for path in sorted(CORPUS.glob("*.mdc")):
            text = path.read_text(encoding="utf-8", errors="replace")
            found += [p.strip() for p in text.split("\n\n") if len(p.strip()) > 80]
    if not found:
        rng = random.Random(1)
        vocab = [f"w{i}" for i in range(5000)]
        found = [" ".join(rng.choices(vocab, k=60)) for _ in range(2000)]
    return found


def write_notes(paths: KBPaths, count: int) -> None:
    """Write ``count`` valid notes straight to disk (the bulk path a git pull would take)."""
    texts = paragraphs()
    for i in range(count):
        body = texts[i % len(texts)]
        first = " ".join(body.split()[:8]).strip("#*-: ") or f"note {i}"
        note = Note.model_validate(
            {
                "type": "practice",
                "title": first[:120] or f"Note {i}",
                "description": f"Benchmark note {i}",
                "lb_id": f"practice-bench-{i:05d}",
                "lb_kind": KINDS[i % len(KINDS)],
                "body": body,
            }
        )
        folder = paths.nodes / f"area-{i % 40:02d}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{note.id}.md").write_text(render_note(note, None), encoding="utf-8")


def timed(argv: list[str], payload: bytes, env: dict[str, str], cwd: Path) -> tuple[float, bytes]:
    """Run one hook; return (seconds, stdout)."""
    started = time.perf_counter()
    proc = subprocess.run(argv, input=payload, capture_output=True, env=env, cwd=cwd, check=True)
    return time.perf_counter() - started, proc.stdout


def summary(samples: list[float]) -> str:
    """Median and 90th percentile in milliseconds."""
    ordered = sorted(samples)
    p90 = ordered[int(0.9 * (len(ordered) - 1))]
    return f"median {statistics.median(ordered) * 1000:6.1f} ms   p90 {p90 * 1000:6.1f} ms"


def main() -> None:
    """Build the repository, run the rounds, print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=40)
    parser.add_argument("--repo", type=Path, help="reuse (or create and keep) this repository")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="lorebook-bench-") as tmp:
        repo = args.repo or Path(tmp)
        paths = KBPaths(repo)
        if not (paths.root / ".cache/index.sqlite").exists():
            repo.mkdir(parents=True, exist_ok=True)
            subprocess.run(["git", "init", "-q", str(repo)], check=True)
            init_repo(repo, ["claude"])
            started = time.perf_counter()
            write_notes(paths, args.notes)
            reconcile(paths)
            elapsed = time.perf_counter() - started
            print(f"{args.notes} notes written and indexed in {elapsed:.1f} s")
        reconcile(paths)  # a reused repository may hold an index of an older format
        payload = json.dumps(
            {"session_id": "bench", "transcript_path": "/dev/null", "cwd": str(repo),
             "hook_event_name": "UserPromptSubmit", "prompt": PROMPT}
        ).encode()  # fmt: skip
        env = {k: v for k, v in os.environ.items() if k != "LOREBOOK_INTERNAL"}
        env["CLAUDE_PROJECT_DIR"] = str(repo)
        hook = [str(repo / ".lorebook/bin/hook"), "claude", "UserPromptSubmit"]
        nothing = [sys.executable, "-I", "-S", "-c", "import json,sys; json.load(sys.stdin)"]
        runs: dict[str, list[float]] = {"do-nothing": [], "prompt": [], "internal": []}
        injected = b""
        for _ in range(args.rounds):
            runs["do-nothing"].append(timed(nothing, payload, env, repo)[0])
            # A new session each round, so the notes are injected every time.
            fresh = payload.replace(b'"bench"', f'"bench-{time.monotonic_ns()}"'.encode())
            seconds, injected = timed(hook, fresh, env, repo)
            runs["prompt"].append(seconds)
            internal = {**env, "LOREBOOK_INTERNAL": "1"}
            runs["internal"].append(timed(hook, payload, internal, repo)[0])
        log = repo / ".lorebook/_logs/hook-errors.log"
        if log.exists():
            print("hook errors:", log.read_text())
        answer = json.loads(injected) if injected else {}
        context = answer.get("hookSpecificOutput", {}).get("additionalContext", "")
        print(f"prompt: {PROMPT!r}")
        print(f"injected {len(context)} characters, notes: {context.count('### ')}")
        for name, samples in runs.items():
            print(f"{name:>10}: {summary(samples)}   ({len(samples)} runs)")
        ratio = statistics.median(runs["prompt"]) / statistics.median(runs["do-nothing"])
        print(f"ratio prompt / do-nothing (medians): {ratio:.2f}")


if __name__ == "__main__":
    main()
