"""How the deterministic extractor fares on the shared evaluation data. No model, no network.

Three parts, all read from ``shared/eval`` beside the repository:

1. ``extraction/kenkeep-prompt-eval``: per-session figures (proposals, matched points,
   unexpected proposals, forbidden-substring hits) and the overall matched ratio. Matching is
   a deterministic proxy for the facet judgment that needs a person or an LLM judge: a point
   is matched by a proposal whose quote occurs in a human turn of the session and whose text
   contains every code identifier of the point's claim (:mod:`lorebook.evaluation.labelled`).
   ``tests/core/test_extraction_eval.py`` gates on the same figures.
2. ``transcripts/cursor-specstory/history``: each SpecStory file's parsed user and assistant
   turn counts next to the README's.
3. A report, not a gate: the minsky user turns the extractor flags, listed beside the rule
   files that project kept in ``.cursor/rules`` at the same commit (name and description), so
   a reader can see which taught rules the phrase rules catch.

    .venv/bin/python benchmarks/extraction_eval.py [--shared PATH] [--quote-chars N]
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from lorebook.evaluation.labelled import SessionResult, evaluate_folder
from lorebook.extract.base import normalise
from lorebook.extractors.rules import RulesExtractor, find_teaching_moments
from lorebook.extractors.titles import make_title
from lorebook.importers.specstory import parse_specstory

SHARED = Path(__file__).resolve().parents[2] / "shared"
PROMPT_EVAL = "eval/extraction/kenkeep-prompt-eval"
SPECSTORY = "eval/transcripts/cursor-specstory"
README_COUNTS: dict[str, tuple[int, int]] = {
    "2025-04-26_20-30-setting-up-minsky-cli-with-bun.md": (26, 26),
    "2025-04-26_22-29-task-management-command-design.md": (24, 24),
    "2025-04-26_23-34-fixing-changelog-duplicates-and-references.md": (2, 2),
    "2025-04-27_19-26-enhancing-minsky-cli-task-id-for-session-start.md": (7, 7),
    "2025-04-27_19-33-update-tasks-list-commands-for-json-output.md": (4, 4),
    "2025-04-27_20-11-enhancing-session-commands-for-directory-management.md": (2, 2),
    "2025-04-27_20-17-minsky-task-workflow-rule-creation.md": (5, 5),
    "2025-04-27_21-26-add-task-statuses-in-progress-and-in-review.md": (1, 1),
    "2025-04-27_21-51-project-initialization-task-for-minsky.md": (6, 6),
}
"""User and assistant turn counts per file, from the folder's README."""
_DESCRIPTION = re.compile(r"^description:[ \t]*(.*?)[ \t]*$", re.MULTILINE)


def print_prompt_eval(results: list[SessionResult]) -> None:
    """Per-session figures and the totals of the kenkeep prompt-eval sessions."""
    print("== extraction/kenkeep-prompt-eval (deterministic proxy, see the module docstring)")
    header = f"{'session':26} {'proposals':>9} {'points':>6} {'matched':>7} {'unexpected':>10}"
    print(f"{header}  forbidden")
    for result in results:
        score = result.score
        hits = ", ".join(score.forbidden_hits) or "-"
        print(
            f"{score.fixture_id:26} {score.proposals:9} {score.points:6} {len(score.matched):7}"
            f" {score.unexpected:10}  {hits}"
        )
    points = sum(r.score.points for r in results)
    matched = sum(len(r.score.matched) for r in results)
    unexpected = sum(r.score.unexpected for r in results)
    forbidden = sum(len(r.score.forbidden_hits) for r in results)
    empty = sum(r.score.proposals for r in results if r.expectation.expect_empty)
    ratio = matched / points if points else 0.0
    print(
        f"matched points {matched}/{points} ({ratio:.1%}); unexpected proposals {unexpected};"
        f" forbidden hits {forbidden}; proposals from reject-/trap- sessions {empty}"
    )


def print_specstory_counts(history: Path) -> None:
    """Parsed turn counts next to the README's, with each file's title and time."""
    print(f"\n== {SPECSTORY}/history: turns parsed (user/assistant) vs README")
    for path in sorted(history.glob("*.md")):
        chat = parse_specstory(path.read_bytes(), path.name)
        users = sum(turn.role == "user" for turn in chat.log.turns)
        agents = sum(turn.role == "assistant" for turn in chat.log.turns)
        expected = README_COUNTS.get(path.name)
        verdict = "ok" if expected == (users, agents) else f"MISMATCH (README {expected})"
        print(f"{users:3} / {agents:3}  {verdict:4}  {chat.started}  {chat.title}")


def print_minsky_report(folder: Path, quote_chars: int) -> None:
    """Which minsky user turns the extractor flags, then the rules the project kept."""
    print(f"\n== minsky: user turns the rules extractor flags ({SPECSTORY}/history)")
    flagged = 0
    for path in sorted((folder / "history").glob("*.md")):
        log = parse_specstory(path.read_bytes(), path.name).log
        candidates = find_teaching_moments(log.turns)
        users = sum(turn.role == "user" for turn in log.turns)
        print(f"{path.name}: {len(candidates)} flagged of {users} user turns")
        for candidate in candidates:
            flagged += 1
            quote = normalise(candidate.quote)
            quote = quote if len(quote) <= quote_chars else quote[: quote_chars - 1] + "…"
            turn = log.turns[candidate.turn].index
            print(
                f"  turn {turn:3} {candidate.type}/{candidate.kind}: {make_title(candidate.main)}"
            )
            print(f'           "{quote}"')
    print(f"flagged candidates in all: {flagged}")
    print(f"\n== minsky: rule files kept in .cursor/rules ({SPECSTORY}/cursor-rules-at-commit)")
    for path in sorted((folder / "cursor-rules-at-commit").iterdir()):
        match = _DESCRIPTION.search(path.read_text(encoding="utf-8"))
        description = match.group(1).strip("'\"") if match and match.group(1) else "(none)"
        print(f"  {path.name}: {description}")


def main(argv: list[str] | None = None) -> int:
    """Print the figures; exit 1 when the evaluation data is not there."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--shared", type=Path, default=SHARED, help="the shared/ folder")
    parser.add_argument("--quote-chars", type=int, default=160, help="quote excerpt length")
    args = parser.parse_args(argv)
    shared: Path = args.shared
    if not (shared / PROMPT_EVAL).is_dir() or not (shared / SPECSTORY).is_dir():
        print(f"evaluation data not found under {shared}", file=sys.stderr)
        return 1
    print_prompt_eval(evaluate_folder(shared / PROMPT_EVAL, RulesExtractor()))
    print_specstory_counts(shared / SPECSTORY / "history")
    print_minsky_report(shared / SPECSTORY, args.quote_chars)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
