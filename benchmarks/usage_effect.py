"""Does weighing notes by usage help on new prompts? A simulation on the minsky query set.

Half a of benchmarks/retrieval/ plays the past sessions: each of its prompts goes through
the prompt hook's own code (choose on an index written as the hook's is); every note
served counts as injected, and as used when it is one the prompt needed (as if the agent
had then quoted or obeyed it). Those counts are written as a usage file, and half b, the
new prompts, is evaluated with and without them (`lorebook eval retrieval --usage`).

    .venv/bin/python benchmarks/usage_effect.py [--no-distractors]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

from lorebook.evaluation.corpus import add_distractors, load_collection
from lorebook.evaluation.queries import load_queries
from lorebook.hookconfig import HookConfig
from lorebook.inject.choose import choose
from lorebook.recall.index import NoteIndex
from lorebook.recall.serve import build_index

HERE = Path(__file__).resolve().parent
EVAL = HERE.parents[1] / "shared" / "eval"
RULES = EVAL / "transcripts" / "cursor-specstory" / "cursor-rules-at-commit"
DISTRACTORS = EVAL / "corpora" / "awesome-cursorrules" / "rules"


def past_usage(with_distractors: bool, scratch: Path) -> dict[str, list[int]]:
    """[injected, used] per note over half a's prompts."""
    notes = load_collection(RULES).notes
    if with_distractors:
        notes = add_distractors(notes, load_collection(DISTRACTORS), DISTRACTORS.name)
    build_index(str(scratch / "index.sqlite"), notes)
    counts: dict[str, list[int]] = {}
    with NoteIndex(str(scratch / "index.sqlite")) as index:
        for query in load_queries(HERE / "retrieval" / "minsky-queries-a.jsonl"):
            for note_id in choose(index, query.text, HookConfig()).shown:
                pair = counts.setdefault(note_id, [0, 0])
                pair[0] += 1
                pair[1] += note_id in query.expected
    return counts


def main() -> None:
    """Write the simulated usage, then evaluate half b with and without it."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-distractors", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="lorebook-usage-") as tmp:
        scratch = Path(tmp)
        counts = past_usage(not args.no_distractors, scratch)
        usage = scratch / "usage.json"
        usage.write_text(json.dumps({"version": 1, "sessions": {"half-a": counts}}))
        used = sum(1 for _, u in counts.values() if u)
        print(f"half a: {len(counts)} notes injected, {used} of them used at least once")
        argv = [str(Path(sys.executable).with_name("lorebook")), "eval", "retrieval",
                "--notes", str(RULES), "--usage", str(usage),
                "--queries", str(HERE / "retrieval" / "minsky-queries-b.jsonl")]  # fmt: skip
        if not args.no_distractors:
            argv += ["--distractors", str(DISTRACTORS)]
        subprocess.run(argv, check=True)


if __name__ == "__main__":
    main()
