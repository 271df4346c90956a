"""What the prompt hook serves, whole or as a pointer, for both installs, against plain BM25.

``lorebook eval retrieval`` prints this table under its own; ``--corpus`` (each project
held out, :mod:`lorebook.evaluation.projects`) calls :func:`served_metrics` per project.

Two installs are measured in one process on the same index:

- *semantic*: ``lorebook[semantic]`` (the piece vectors of the ``wordllama`` wheel), as the
  given settings run it;
- *default*: what ``pip install lorebook-claude`` installs, without that extra: the same
  settings with the semantic signal switched off (``recall.semantic: false`` ranks exactly
  as an index without vectors does).

Plain BM25 serves its first three notes (it has no serve-or-refuse decision).

Measures, over a query set:

- ``served_any@3``: answerable prompts with an expected note among the first three served,
  whole or as a pointer;
- ``whole``: whole notes served; ``whole_precision``: the share of them expected (a whole
  note served to a refusal prompt is never expected);
- ``refusals_no_whole``: refusal prompts (nothing answers them) that got no whole note;
  ``refusals_nothing``: those that got nothing at all;
- ``answerable_nothing``: answerable prompts that got nothing.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from lorebook.evaluation.metrics import MAIN_K, recall_any

if TYPE_CHECKING:
    from lorebook.evaluation.queries import Query
    from lorebook.evaluation.retrieval import EvalSet
    from lorebook.hookconfig import HookConfig
    from lorebook.recall.index import IndexedNote

Metrics = dict[str, float | int | None]
INSTALLS: tuple[tuple[str, str], ...] = (
    ("semantic", "ours, lorebook[semantic]"),
    ("default", "ours, default install (no extra)"),
    ("bm25", "plain BM25 (first 3)"),
)
"""Each row's key and its name in the table."""


@dataclass(frozen=True, slots=True)
class Served:
    """What one install served one prompt: every note shown, and those shown whole."""

    query: Query
    shown: list[str]
    whole: list[str]


def without_semantic(config: HookConfig) -> HookConfig:
    """``config`` with the semantic signal off: what the default install runs."""
    from lorebook.hookconfig import HookConfig

    names = getattr(type(config), "__slots__", ())
    return HookConfig(**{**{n: getattr(config, n) for n in names}, "semantic": False})


def serve_part(
    notes: list[IndexedNote], queries: Sequence[Query], config: HookConfig
) -> dict[str, list[Served]]:
    """Every query served by each install and by plain BM25, on one index of ``notes``."""
    from lorebook.evaluation.baselines import PlainBm25
    from lorebook.inject.choose import choose
    from lorebook.recall.index import NoteIndex
    from lorebook.recall.serve import build_index

    lexical = without_semantic(config)
    bm25 = PlainBm25(notes)
    out: dict[str, list[Served]] = {key: [] for key, _ in INSTALLS}
    with tempfile.TemporaryDirectory(prefix="lorebook-eval-") as scratch:
        path = os.path.join(scratch, "index.sqlite")
        build_index(path, notes)
        with NoteIndex(path) as index:
            for query in queries:
                for key, settings in (("semantic", config), ("default", lexical)):
                    got = choose(index, query.text, settings)
                    out[key].append(Served(query, list(got.shown), list(got.whole)))
                top = bm25.rank(query.text)[:MAIN_K]
                out["bm25"].append(Served(query, top, []))
    return out


def measure(rows: Sequence[Served]) -> Metrics:
    """The measures of this module's docstring over ``rows``."""
    answerable = [r for r in rows if r.query.group == "answerable"]
    refusals = [r for r in rows if r.query.group == "refusal"]
    hits = [recall_any(r.shown, r.query.expected, MAIN_K) for r in answerable]
    whole = [w in r.query.expected for r in rows if r.query.group != "multi-hop" for w in r.whole]
    return {
        f"served_any@{MAIN_K}": sum(hits) / len(hits) if hits else None,
        "whole": len(whole),
        "whole_precision": sum(whole) / len(whole) if whole else None,
        "refusals": len(refusals),
        "refusals_no_whole": sum(1 for r in refusals if not r.whole),
        "refusals_nothing": sum(1 for r in refusals if not r.shown),
        "answerable": len(answerable),
        "answerable_nothing": sum(1 for r in answerable if not r.shown),
    }


def serving_measures(evalset: EvalSet, config: HookConfig) -> dict[str, Metrics]:
    """Each install's measures (and plain BM25's) over every part of ``evalset``."""
    rows: dict[str, list[Served]] = {key: [] for key, _ in INSTALLS}
    for part in evalset.parts:
        for key, served in serve_part(part.notes, part.queries, config).items():
            rows[key] += served
    return {key: measure(served) for key, served in rows.items()}


def _cell(value: float | int | None) -> str:
    if value is None:
        return "-"
    return f"{value:.3f}" if isinstance(value, float) else str(value)


def serving_table(measures: dict[str, Metrics]) -> str:
    """Both installs and plain BM25 as served, one row each, aligned."""
    any_key = f"served_any@{MAIN_K}"
    head = ["served", any_key, "whole", "whole precision", "refusals: no whole",
            "refusals: nothing", "answerable: nothing"]  # fmt: skip
    rows = [head]
    for key, name in INSTALLS:
        m = measures[key]
        rows.append([
            name, _cell(m[any_key]), _cell(m["whole"]), _cell(m["whole_precision"]),
            f"{m['refusals_no_whole']}/{m['refusals']}", f"{m['refusals_nothing']}/{m['refusals']}",
            f"{m['answerable_nothing']}/{m['answerable']}",
        ])  # fmt: skip
    widths = [max(len(row[i]) for row in rows) for i in range(len(head))]
    return "\n".join(
        "  ".join(
            c.ljust(w) if i == 0 else c.rjust(w)
            for i, (c, w) in enumerate(zip(row, widths, strict=True))
        ).rstrip()
        for row in rows
    )


def distractor_label(folder: Path) -> str:
    """What prefixes a distractor's id that is already taken.

    The folder's name, or its project's name for a project's ``notes/`` folder (two
    projects' ``AGENTS.md`` then stay two notes).
    """
    if folder.name == "notes" and folder.parent.name:
        return folder.parent.name
    return folder.name or "distractors"


def served_metrics(
    notes: Path,
    queries: Sequence[Query],
    fitted: object = None,
    distractors: Sequence[Path] = (),
) -> Metrics:
    """The default install's measures on one project (``--corpus`` calls it per project).

    The semantic install's are the corpus report's own columns (it serves with the given
    settings); these are the same prompts with the semantic signal off, and plain BM25's
    first three, on the project's notes plus every ``distractors`` folder. Nothing is
    fitted: the thresholds are constants (:func:`lorebook.recall.serve.confidence`), so
    ``fitted`` is unused.
    """
    from lorebook.evaluation.corpus import add_distractors, load_collection
    from lorebook.hookconfig import HookConfig

    del fitted
    merged = load_collection(notes).notes
    for folder in distractors:
        merged = add_distractors(merged, load_collection(folder), distractor_label(folder))
    served = serve_part(merged, queries, HookConfig())
    default, bm25 = measure(served["default"]), measure(served["bm25"])
    any_key = f"served_any@{MAIN_K}"
    return {
        f"default {any_key}": default[any_key],
        "default whole precision": default["whole_precision"],
        "refusals_no_whole, default": default["refusals_no_whole"],
        f"BM25 {any_key}": bm25[any_key],
    }
