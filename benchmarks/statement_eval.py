"""How close the stated rule comes to a person's one-sentence rule, per corpus project. A figure.

For every teaching input labelled in ``benchmarks/corpus/*/labels.jsonl`` it reads the input's
full text from the session (as ``benchmarks/corpus/turns.py`` does; a console copy the
importer refuses is read by its ``> `` prompt lines, as the project's REFUSED.md describes),
corrects certain typos against the words of the session's agent text
(:func:`lorebook.extractors.typos.fix_typos`), states the rule
(:func:`lorebook.extractors.statement.state_rule`) and compares it with the label's ``rule``:

- ``stated``: the share of teaching inputs for which a rule is stated (non-empty);
- ``typos``: words :func:`fix_typos` changed in these inputs (``--show`` lists them);
- ``rules``: the inputs whose label carries a ``rule`` (the F1 columns count only these);
- ``F1``: the mean F1 of content words against the person's rule (an empty statement scores
  0), and ``F1 stated`` the same over the stated ones only;
- ``today``: the same F1 for today's title, ``make_title`` of the turn's main sentence.

The person's rule often paraphrases a long input, so F1 is low even for a good title; compare
the columns, not the figure with 1.

    .venv/bin/python benchmarks/statement_eval.py [--show] [--corpus PATH]
"""

from __future__ import annotations

import argparse
import json
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from lorebook.errors import LorebookError
from lorebook.evaluation.extraction_labels import HUMAN_ROLES, load_labels
from lorebook.extractors.sentences import split_sentences
from lorebook.extractors.statement import state_rule
from lorebook.extractors.teaching import main_sentence
from lorebook.extractors.titles import make_title
from lorebook.extractors.typos import fix_typos
from lorebook.extractors.words import content_words
from lorebook.importers.sources import plan_files

CORPUS = Path(__file__).resolve().parent / "corpus"
_PROMPT_END = re.compile(
    r"^\s*(?:\u25cf|> |\u23bf|\u273b|\u2234|\u2550|\u256d|\u2590|\u259d|\u2598)"
)
_WORD = re.compile(r"[A-Za-z]+(?:['\u2019][A-Za-z]+)?")


@dataclass(frozen=True, slots=True)
class Session:
    """The human inputs of one session file, and the word counts of its agent text."""

    inputs: list[str]
    vocabulary: Counter[str]


def _by_prompt_lines(path: Path, lines: list[int]) -> Session:
    """Inputs of a console copy the importer refuses: from each ``> `` line to the next mark."""
    raw = path.read_text(encoding="utf-8", errors="replace").splitlines()
    inputs: list[str] = []
    used: set[int] = set()
    for line in lines:
        block = [raw[line - 1][2:]]
        used.add(line - 1)
        for number in range(line, len(raw)):
            if _PROMPT_END.match(raw[number]):
                break
            block.append(raw[number])
            used.add(number)
        inputs.append("\n".join(block).rstrip())
    agent = " ".join(text for number, text in enumerate(raw) if number not in used)
    return Session(inputs, Counter(word.lower() for word in _WORD.findall(agent)))


def read_session(path: Path, lines: list[int]) -> Session:
    """The session's human inputs (``user`` and ``summary`` turns) and its agent words."""
    try:
        source = plan_files([path], None)[0]
    except LorebookError:
        return _by_prompt_lines(path, lines)
    if source.log is not None:
        turns = [(turn.role, turn.text) for turn in source.log.turns]
    else:
        assert source.native is not None
        read = source.native.harness.read_transcript(str(path))
        turns = [(turn.role, turn.text) for turn in read if not turn.injected]
    agent = " ".join(text for role, text in turns if role == "assistant")
    return Session(
        [text for role, text in turns if role in HUMAN_ROLES],
        Counter(word.lower() for word in _WORD.findall(agent)),
    )


def _stems(text: str) -> set[str]:
    """Content words, a plural "s" folded, for a rough comparison."""
    return {w[:-1] if len(w) > 3 and w.endswith("s") else w for w in content_words(text)}


def f1(stated: str, rule: str) -> float:
    """F1 of the content words of ``stated`` against those of ``rule``."""
    got, want = _stems(stated), _stems(rule)
    common = len(got & want)
    if not common:
        return 0.0
    precision, recall = common / len(got), common / len(want)
    return 2 * precision * recall / (precision + recall)


def today_title(text: str) -> str:
    """The title the rules extractor makes today of a turn's main sentence."""
    sentences = split_sentences(text)
    index = main_sentence(sentences)
    if index is None:
        index = next((i for i, s in enumerate(sentences) if not s.text.endswith("?")), None)
    return make_title(sentences[index].text) if index is not None else ""


def _typos(text: str, fixed: str) -> list[tuple[str, str]]:
    before, after = text.split(), fixed.split()
    return [(a, b) for a, b in zip(before, after, strict=False) if a != b]


@dataclass(slots=True)
class Figures:
    """The sums behind one row of the table."""

    inputs: int = 0
    stated: int = 0
    ruled: int = 0
    ruled_stated: int = 0
    f1: float = 0.0
    f1_stated: float = 0.0
    today: float = 0.0
    typos: int = 0

    def add(self, other: Figures) -> None:
        for name in self.__slots__:
            setattr(self, name, getattr(self, name) + getattr(other, name))


def _rules(path: Path) -> dict[tuple[str, int], str]:
    """The person's one-sentence rule of each labelled input, by file and position."""
    rules: dict[tuple[str, int], str] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            data = json.loads(line)
            rules[(data["file"], data.get("line", data.get("turn")))] = data.get("rule") or ""
    return rules


def _show(text: str, title: str, rule: str, fixes: list[tuple[str, str]]) -> None:
    print(f"  {' '.join(text.split())[:150]}\n    stated: {title!r}\n    rule:   {rule}")
    if fixes:
        print(f"    fixed:  {fixes}")


def project_figures(folder: Path, *, show: bool) -> Figures:
    """The figures of one project's teaching inputs."""
    labels = load_labels(folder / "labels.jsonl")
    rules = _rules(folder / "labels.jsonl")
    figures = Figures()
    for name, session_labels in sorted(labels.items()):
        session = read_session(folder / "sessions" / name, [lab.position for lab in session_labels])
        for label, text in zip(session_labels, session.inputs, strict=True):
            if not label.teaching:
                continue
            fixed = fix_typos(text, session.vocabulary)
            title, rule = state_rule(fixed), rules[(label.file, label.position)]
            fixes = _typos(text, fixed)
            figures.inputs += 1
            figures.stated += bool(title)
            figures.typos += len(fixes)
            if rule:
                figures.ruled += 1
                figures.ruled_stated += bool(title)
                figures.f1 += f1(title, rule)
                figures.f1_stated += f1(title, rule) if title else 0.0
                figures.today += f1(today_title(text), rule)
            if show:
                _show(text, title, rule, fixes)
    return figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--show", action="store_true", help="print each input and its rule")
    args = parser.parse_args(argv)
    print(
        f"{'project':34} {'inputs':>6} {'stated':>7} {'typos':>5} {'rules':>5}"
        f" {'F1':>5} {'F1 stated':>9} {'today':>6}"
    )
    total = Figures()
    for folder in sorted(p for p in args.corpus.iterdir() if (p / "labels.jsonl").exists()):
        if args.show:
            print(f"== {folder.name}")
        figures = project_figures(folder, show=args.show)
        total.add(figures)
        print_row(folder.name, figures)
    print_row("all", total)
    return 0


def print_row(name: str, row: Figures) -> None:
    """One line of the table; F1 columns are blank for a project without rule labels."""
    if not row.inputs:
        print(f"{name:34} {0:6}")
        return
    head = f"{name:34} {row.inputs:6} {row.stated / row.inputs:7.0%} {row.typos:5} {row.ruled:5}"
    if not row.ruled:
        print(head)
        return
    stated = row.f1_stated / row.ruled_stated if row.ruled_stated else 0.0
    print(f"{head} {row.f1 / row.ruled:5.2f} {stated:9.2f} {row.today / row.ruled:6.2f}")


if __name__ == "__main__":
    raise SystemExit(main())
