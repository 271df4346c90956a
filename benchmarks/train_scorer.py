"""Retrain the rules extractor's learned gate on the corpus and print its leave-one-out table.

    .venv/bin/python benchmarks/train_scorer.py [--corpus benchmarks/corpus] [--check]

Each project is scored by the rules with a gate fitted on the other projects (weights and
threshold: :mod:`lorebook.extractors.scorer`), beside the rules alone. Then the gate is
fitted on every project and written to ``core/src/lorebook/extractors/scorer.json``, the file
lorebook ships; ``--check`` writes nothing and fails when the shipped file differs from the
fit (the fit is deterministic: fixed iterations, no random state).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from lorebook.cli.eval_extraction import leave_one_out_lines
from lorebook.evaluation.extraction_corpus import load_corpus
from lorebook.evaluation.extraction_loo import leave_one_out
from lorebook.extractors.scorer import shipped_path, write_shipped


def main() -> int:
    """Print the table, then write (or with --check compare) the shipped file."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=Path(__file__).parent / "corpus")
    parser.add_argument("--check", action="store_true", help="compare, write nothing")
    args = parser.parse_args()
    projects = load_corpus([args.corpus])
    report = leave_one_out(projects)
    for line in leave_one_out_lines(report):
        print(line)
    scorer = report.fitted
    path = shipped_path()
    if args.check:
        same = json.loads(path.read_text(encoding="utf-8")) == json.loads(
            json.dumps(scorer.as_json())
        )
        print(f"{path.name}: {'matches the fit' if same else 'differs from the fit: retrain'}")
        return 0 if same else 1
    write_shipped(scorer, path)
    print(f"wrote {path.name}: threshold {scorer.threshold:.3f}, {len(scorer.weights)} weights")
    return 0


if __name__ == "__main__":
    sys.exit(main())
