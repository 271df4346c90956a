"""Measure ``lorebook bootstrap`` on a project's documentation: counts, index sizes, a sample.

Usage::

    python benchmarks/bootstrap_measure.py REPO [--seed 6] [--sample 30]

REPO is a git work tree with ``lorebook init`` and ``lorebook bootstrap`` already run
(benchmarks/bootstrap_judgements.md says how the two measured projects were prepared). It
prints the number of notes and open conflict files, the size of every generated index file
(``nodes/**/index.md``, ``ENTRY.md``, ``GRAPH.md``), and a random sample of notes, drawn
with ``random.Random(seed).sample`` from the notes sorted by id, each with its kind, title
and the places it cites, for a person to judge by reading.
"""

from __future__ import annotations

import argparse
import random
from pathlib import Path

from lorebook.kb.notes import parse_note


def _notes(repo: Path) -> list[tuple[str, str, str, list[str]]]:
    found = []
    for path in sorted((repo / ".lorebook" / "nodes").rglob("*.md")):
        if path.name == "index.md":
            continue
        note, _ = parse_note(path.read_text(encoding="utf-8"), source=path.name)
        found.append((note.id, note.kind, note.title, list(note.derived_from)))
    return sorted(found)


def _indexes(repo: Path) -> list[tuple[int, str]]:
    kb = repo / ".lorebook"
    files = [*kb.joinpath("nodes").rglob("index.md"), kb / "ENTRY.md", kb / "GRAPH.md"]
    return sorted((p.stat().st_size, p.relative_to(repo).as_posix()) for p in files if p.exists())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("repo", type=Path)
    parser.add_argument("--seed", type=int, default=6)
    parser.add_argument("--sample", type=int, default=30)
    args = parser.parse_args()
    repo: Path = args.repo
    notes = _notes(repo)
    conflicts = list((repo / ".lorebook" / "conflicts").glob("*.md"))
    print(f"notes: {len(notes)}  conflict files: {len(conflicts)}")
    for size, rel in _indexes(repo)[-3:]:
        print(f"index {size:>8} bytes  {rel}")
    picked = random.Random(args.seed).sample(notes, min(args.sample, len(notes)))
    for n, (_, kind, title, origins) in enumerate(picked, 1):
        print(f"{n:2}. [{kind}] {title}\n      {', '.join(origins)}")


if __name__ == "__main__":
    main()
