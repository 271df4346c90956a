"""How long the writers take at a given knowledge-base size: note add and index rebuild.

For each size, builds a realistic knowledge base (benchmarks/kbgen.py), then measures, in
this order and R times each:

- `index rebuild` from nothing (the index deleted first), as on a fresh clone;
- `index rebuild` with nothing changed;
- `lorebook note add` of a new note (a subprocess, exactly as a user runs it), each
  round next to `lorebook note --help`, which starts the same interpreter and imports the
  same modules but does no work: the floor `note add` cannot go below;

and prints median, min and max (wall seconds, and CPU seconds of the subprocess), the
index's size next to the notes' bytes, and the peak RSS of one `note add`. The machine
is shared and noisy: quote medians from one run, with the floor of the same run.

lorebook's modules are compiled to bytecode first, as pip compiles an installed package:
an editable checkout run with PYTHONDONTWRITEBYTECODE=1 would otherwise compile some forty
modules (about 40 ms) at every command.

    .venv/bin/python benchmarks/writers.py --notes 1000,10000 [--rounds 3] [--keep DIR]
"""

from __future__ import annotations

import argparse
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

from kbgen import knowledge_bases, peak_rss_mb

LOREBOOK = str(Path(sys.executable).with_name("lorebook"))


def rebuild(repo: Path, *, fresh: bool) -> tuple[float, float]:
    """One `lorebook index rebuild` (after deleting the index when ``fresh``): wall, CPU."""
    if fresh:  # the index and everything beside it (journal, vectors file), as on a fresh clone
        for path in (repo / ".lorebook/.cache").glob("index.sqlite*"):
            path.unlink()
    return run([LOREBOOK, "index", "rebuild"], repo)


def run(argv: list[str], cwd: Path) -> tuple[float, float]:
    """Run a command to completion; (wall seconds, CPU seconds of the child)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(argv, cwd=cwd, check=True, capture_output=True)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def note_add(repo: Path, n: int) -> tuple[float, float]:
    """Add one new note through the CLI."""
    return run(
        [LOREBOOK, "note", "add", "--title", f"Benchmark addition number {n} {time.time_ns()}",
         "--kind", "gotcha", "--description", "Added by benchmarks/writers.py.",
         "--body", "A short body that says what to do."],
        repo,
    )  # fmt: skip


def compile_lorebook() -> None:
    """Compile the modules of lorebook and its harness plugins, wherever they are installed."""
    import compileall
    import importlib.util

    for name in ("lorebook", "lorebook_claude", "lorebook_codex", "lorebook_cursor",
                 "lorebook_opencode", "lorebook_copilot"):  # fmt: skip
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.submodule_search_locations:
            for folder in spec.submodule_search_locations:
                compileall.compile_dir(folder, quiet=1)


def sizes(repo: Path) -> tuple[int, int]:
    """(bytes of note files, bytes of the index: index.sqlite and its vectors file)."""
    notes = sum(p.stat().st_size for p in (repo / ".lorebook/nodes").rglob("*.md"))
    index = sum(p.stat().st_size for p in (repo / ".lorebook/.cache").glob("index.sqlite*"))
    return notes, index


def line(name: str, samples: list[tuple[float, float]]) -> str:
    walls = [w for w, _ in samples]
    cpus = [c for _, c in samples]
    return (
        f"{name:<28}{statistics.median(walls):>9.2f}{min(walls):>9.2f}{max(walls):>9.2f}"
        f"{statistics.median(cpus):>9.2f}"
    )


def measure(repo: Path, rounds: int) -> None:
    """Print the table for one repository."""
    print(f"{'figure (s)':<28}{'median':>9}{'min':>9}{'max':>9}{'CPU':>9}")
    print(line("index rebuild, from nothing", [rebuild(repo, fresh=True) for _ in range(rounds)]))
    print(line("index rebuild, no change", [rebuild(repo, fresh=False) for _ in range(rounds)]))
    adds, floors = [], []
    for i in range(rounds):
        floors.append(run([LOREBOOK, "note", "--help"], repo))
        adds.append(note_add(repo, i))
    print(line("note add", adds))
    print(line("floor: lorebook note --help", floors))
    rss = peak_rss_mb(
        [LOREBOOK, "note", "add", "--title", f"Benchmark addition for memory {time.time_ns()}",
         "--kind", "gotcha", "--description", "Peak memory.", "--body", "x"],
        repo,
    )  # fmt: skip
    notes, index = sizes(repo)
    print(f"note add peak RSS {rss:.0f} MB; notes {notes / 1e6:.1f} MB, index {index / 1e6:.1f} MB "
          f"({index / notes:.2f}x)")  # fmt: skip


def main() -> None:
    """Build each knowledge base and print its writer figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notes", default="1000,10000", help="sizes, comma-separated")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--keep", type=Path, help="build (or reuse) the repositories here")
    args = parser.parse_args()
    compile_lorebook()
    for size, repo, _ in knowledge_bases(args.notes, args.keep):
        print(f"\n== {size} notes, {args.rounds} rounds")
        measure(repo, args.rounds)


if __name__ == "__main__":
    main()
