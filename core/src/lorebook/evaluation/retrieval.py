"""One retrieval run: every query against our ranker, as injected and raw, grep and plain BM25.

Our ranker is measured through the prompt hook's own code: the notes are written to an index
by :func:`lorebook.recall.serve.build_index`, opened as the hook opens it, and each query goes
through :func:`lorebook.inject.choose.choose` (what the hook injects, for a fresh session) and
:func:`lorebook.recall.serve.rank_prompt` (the raw ranking). Nothing here re-implements them.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lorebook.evaluation.baselines import Grep, PlainBm25
from lorebook.evaluation.corpus import (
    Collection,
    EvalInputError,
    add_distractors,
    load_collection,
    read_text,
)
from lorebook.evaluation.locomo import load_locomo, looks_like_locomo, session_of
from lorebook.evaluation.metrics import Measures, collapse, summarise
from lorebook.evaluation.queries import Query, load_queries, resolve_expected
from lorebook.inject.choose import choose
from lorebook.recall.index import NoteIndex
from lorebook.recall.serve import build_index, rank_prompt

if TYPE_CHECKING:
    from lorebook.hookconfig import HookConfig
    from lorebook.recall.index import IndexedNote

SYSTEMS: tuple[tuple[str, str], ...] = (
    ("injected", "ours (injected)"),
    ("raw", "ours (raw)"),
    ("grep", "grep"),
    ("bm25", "plain BM25"),
)
"""Each system's key (in JSON) and its name (in the table)."""
USAGE_SYSTEM = ("usage", "ours (injected, usage)")
"""Added with ``--usage``: as injected, with notes weighed by recorded usage."""


@dataclass(frozen=True, slots=True)
class Part:
    """Notes ranked together, and the queries asked of them (a LoCoMo file has several)."""

    notes: list[IndexedNote]
    queries: list[Query]


@dataclass(frozen=True, slots=True)
class EvalSet:
    """Everything one run ranks."""

    parts: list[Part]
    format: str
    distractors: int = 0
    sessions: bool = False
    """Also measure at session level (LoCoMo: turns collapsed to their ``Dn`` session)."""
    skipped: list[str] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class QueryResult:
    """What every system returned for one query, best first."""

    query: Query
    served: dict[str, list[str]]
    whole: list[str] = field(default_factory=list)
    """Those of ``served["injected"]`` the hook served whole (the rest went as pointers)."""


@dataclass(frozen=True, slots=True)
class RetrievalReport:
    """A run's measures, by level (``note``/``turn``, ``session``) and system, and its rows."""

    evalset: EvalSet
    k: int
    measures: dict[str, dict[str, Measures]]
    results: list[QueryResult]
    systems: tuple[tuple[str, str], ...] = SYSTEMS


def hook_config(config_file: Path | None) -> HookConfig:
    """The settings the prompt hook would use: defaults, or those of a ``config.yaml``.

    The file is validated by the config model and compiled to the JSON copy hooks read, in a
    scratch knowledge base, and read back by :func:`lorebook.hookconfig.load_hook_config`.
    """
    from lorebook.config import parse_config, refresh_compiled
    from lorebook.hookconfig import load_hook_config
    from lorebook.kb.paths import KBPaths

    with tempfile.TemporaryDirectory(prefix="lorebook-eval-") as scratch:
        paths = KBPaths(Path(scratch))
        if config_file is not None:
            config = parse_config(read_text(config_file), source=str(config_file))
            paths.cache.mkdir(parents=True)
            refresh_compiled(paths, config)
        return load_hook_config(str(paths.root))


def settings_values(config: HookConfig) -> dict[str, Any]:
    """The hook settings a run used, as JSON values."""
    names = getattr(type(config), "__slots__", None) or list(vars(config))
    values = {name: getattr(config, name) for name in names}
    return {n: list(v) if isinstance(v, tuple) else v for n, v in values.items()}


def load_evalset(notes: Path, queries: Path | None, distractors: list[Path]) -> EvalSet:
    """Read ``--notes``, ``--queries`` and every ``--distractors`` folder."""
    extra = [(load_collection(d), d.name or "distractors") for d in distractors]
    if looks_like_locomo(notes):
        if queries is not None:
            raise EvalInputError(f"{queries}: a LoCoMo file brings its own questions")
        parts = [Part(_merged(c.notes, extra), qs) for c, qs in load_locomo(notes)]
        return EvalSet(parts, "locomo", _count(extra), sessions=True)
    if queries is None:
        raise EvalInputError(f"{notes}: --queries FILE is needed for a folder of notes")
    base = load_collection(notes)
    merged = _merged(base.notes, extra)
    asked = resolve_expected(load_queries(queries), {n.id for n in merged}, base.redirects)
    return EvalSet([Part(merged, asked)], base.format, _count(extra), skipped=base.skipped)


def _merged(base: list[IndexedNote], extra: list[tuple[Collection, str]]) -> list[IndexedNote]:
    notes = base
    for collection, label in extra:
        notes = add_distractors(notes, collection, label)
    return notes


def _count(extra: list[tuple[Collection, str]]) -> int:
    return sum(len(c.notes) for c, _ in extra)


def _run_part(
    part: Part, config: HookConfig, usage: dict[str, tuple[int, int]] | None = None
) -> list[QueryResult]:
    grep, bm25 = Grep(part.notes), PlainBm25(part.notes)
    results = []
    with tempfile.TemporaryDirectory(prefix="lorebook-eval-") as scratch:
        path = os.path.join(scratch, "index.sqlite")
        build_index(path, part.notes)
        with NoteIndex(path) as index:
            for query in part.queries:
                chosen = choose(index, query.text, config)
                served = {
                    "injected": list(chosen.shown),
                    "raw": [c.id for c in rank_prompt(index, query.text)],
                    "grep": grep.rank(query.text),
                    "bm25": bm25.rank(query.text),
                }
                if usage is not None:
                    served["usage"] = list(choose(index, query.text, config, usage=usage).shown)
                # a hook without pointers serves every note it shows whole
                whole = list(getattr(chosen, "whole", chosen.shown))
                results.append(QueryResult(query, served, whole))
    return results


def _at_session_level(result: QueryResult) -> QueryResult:
    q = result.query
    query = Query(q.text, tuple(collapse(q.expected, session_of)), q.group, q.label)
    served = {name: collapse(ids, session_of) for name, ids in result.served.items()}
    return QueryResult(query, served, collapse(result.whole, session_of))


def _measure(
    results: list[QueryResult], k: int, systems: tuple[tuple[str, str], ...]
) -> dict[str, Measures]:
    return {key: summarise([(r.query, r.served[key]) for r in results], k) for key, _ in systems}


def run_retrieval(
    evalset: EvalSet,
    config: HookConfig,
    k: int,
    usage: dict[str, tuple[int, int]] | None = None,
) -> RetrievalReport:
    """Rank every query of ``evalset`` with every system and measure them at ``k``.

    With ``usage`` (note id -> times injected, times used), one more system: as injected,
    with the notes weighed by it, so its effect shows beside the plain row.
    """
    systems = (*SYSTEMS, USAGE_SYSTEM) if usage is not None else SYSTEMS
    results = [r for part in evalset.parts for r in _run_part(part, config, usage)]
    level = "turn" if evalset.sessions else "note"
    measures = {level: _measure(results, k, systems)}
    if evalset.sessions:
        measures["session"] = _measure([_at_session_level(r) for r in results], k, systems)
    return RetrievalReport(evalset, k, measures, results, systems)
