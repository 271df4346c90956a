"""Print a session's human inputs as ``lorebook import`` reads them, numbered, with context.

For labelling by reading: each human input (a ``user`` or ``summary`` turn) is printed with its
1-based number among the session's human inputs (the ``turn`` a label gives), the line of the
file it starts on where it can be found, the tail of the agent's text before it and the head
of the agent's text after it.

    .venv/bin/python benchmarks/corpus/turns.py SESSION [--format FMT] [--context N]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from lorebook.evaluation.extraction_labels import HUMAN_ROLES
from lorebook.importers.sources import plan_files


def _line_of(raw: list[str], text: str, start: int) -> tuple[int | None, int]:
    """The 1-based line at or after ``start`` holding the first line of ``text``."""
    first = next((line.strip() for line in text.splitlines() if line.strip()), "")
    if not first:
        return None, start
    probe = first[:60]
    for number in range(start, len(raw)):
        if probe in raw[number]:
            return number + 1, number + 1
    return None, start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("session", type=Path)
    parser.add_argument("--format", default=None)
    parser.add_argument("--context", type=int, default=400, help="characters of agent text")
    args = parser.parse_args(argv)
    source = plan_files([args.session], args.format)[0]
    if source.log is not None:
        turns = [(t.role, t.text) for t in source.log.turns]
    else:
        assert source.native is not None
        read = source.native.harness.read_transcript(str(args.session))
        turns = [(t.role, t.text) for t in read if not t.injected]
    raw = args.session.read_text(encoding="utf-8", errors="replace").splitlines()
    number = 0
    cursor = 0
    for position, (role, text) in enumerate(turns):
        if role not in HUMAN_ROLES:
            continue
        number += 1
        before = next(
            (t for r, t in reversed(turns[:position]) if r == "assistant" and t),
            "",
        )
        after = next((t for r, t in turns[position + 1 :] if r == "assistant" and t), "")
        line, cursor = _line_of(raw, text, cursor)
        print(f"=== turn {number} (line {line}, role {role})")
        if before:
            print(f"--- agent before: ...{before[-args.context :]}")
        print(f"+++ HUMAN:\n{text}")
        if after:
            print(f"--- agent after: {after[: args.context]}...")
        print()
    print(f"# {number} human inputs", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
