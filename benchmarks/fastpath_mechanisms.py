"""What each mechanism of the hook fast path saves a prompt that runs in its own process.

Runs Claude Code's UserPromptSubmit hook (the typical prompt of ``hook_latency.py``) on a
repository ``hook_latency.py --keep DIR`` built, in its own process (no warm hook process:
``LOREBOOK_HOOK_SERVER=0``), through launcher variants written beside the real one, each
with one mechanism taken away, interleaved for R rounds:

- launcher: the code of ``.lorebook/bin/hook`` as ``lorebook init`` writes it, run as its
  shebang runs it (``python -I -S``; the garbage collector off, the import finder);
- without -I -S: the same file run by ``python`` alone (site's scan of site-packages);
- with the collector: the launcher without its ``gc.disable()``;
- without the finder: the launcher without ``install(...)`` (importlib's own search).

Prints each variant's median (ms), its difference from the launcher's, and the do-nothing
hook's median (``python -I -S -c "import json,sys; json.load(sys.stdin)"``) of the same
rounds. The warm hook process is measured by ``hook_latency.py`` (its figures without
"(cold)"). The machine is shared and noisy: quote medians from one run.

    .venv/bin/python benchmarks/fastpath_mechanisms.py DIR/notes-1000 [--rounds 30]
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

PROMPT = "why does the session start command fail when the repo path has spaces?"


def variants(repo: Path) -> dict[str, list[str]]:
    """The command of each variant (its launcher file written under .lorebook/bin)."""
    from lorebook.fastpath.launcher import launcher_entry, launcher_paths

    modules = {"claude": "lorebook_claude.events"}
    entry = launcher_entry(modules, launcher_paths(modules))
    bin_dir = repo / ".lorebook/bin"
    texts = {
        "with the collector": entry.replace("gc.disable()", "pass"),
        "without the finder": entry.replace("    install(", "    (lambda packages: None)("),
    }
    texts = {"launcher": entry, **texts}
    commands = {
        "do-nothing": [sys.executable, "-I", "-S", "-c", "import json,sys; json.load(sys.stdin)"],
    }
    for name, text in texts.items():
        assert text != entry or name == "launcher", name
        target = bin_dir / f"hook-{name.replace(' ', '-')}.py"
        target.write_text(text, encoding="utf-8")
        commands[name] = [sys.executable, "-I", "-S", str(target), "claude", "UserPromptSubmit"]
    plain = bin_dir / "hook-plain.py"
    plain.write_text(entry, encoding="utf-8")
    commands["without -I -S"] = [sys.executable, str(plain), "claude", "UserPromptSubmit"]
    return commands


def main() -> None:
    """Run the rounds and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("repo", type=Path, help="a repository hook_latency.py --keep built")
    parser.add_argument("--rounds", type=int, default=30)
    args = parser.parse_args()
    repo = args.repo.resolve()
    commands = variants(repo)
    env = {k: v for k, v in os.environ.items() if k != "LOREBOOK_INTERNAL"}
    env.update(LOREBOOK_HOOK_SERVER="0", CLAUDE_PROJECT_DIR=str(repo))
    samples: dict[str, list[float]] = {name: [] for name in commands}
    for r in range(args.rounds):
        for i, (name, argv) in enumerate(commands.items()):
            payload = {"session_id": f"mech-{r}-{i}-{time.monotonic_ns()}", "cwd": str(repo),
                       "hook_event_name": "UserPromptSubmit", "prompt": PROMPT}  # fmt: skip
            time.sleep(0.05)
            started = time.perf_counter()
            subprocess.run(argv, input=json.dumps(payload).encode(), capture_output=True,
                           env=env, cwd=repo, check=True)  # fmt: skip
            samples[name].append((time.perf_counter() - started) * 1000)
    base = statistics.median(samples["launcher"])
    print(f"{args.rounds} rounds, typical prompt in its own process (ms)")
    print(f"{'variant':<22}{'median':>9}{'vs launcher':>13}")
    for name, values in samples.items():
        median = statistics.median(values)
        print(f"{name:<22}{median:>9.1f}{median - base:>+13.1f}")


if __name__ == "__main__":
    main()
