"""``lorebook eval retrieval --corpus``: every project of a retrieval corpus, each held out.

A retrieval corpus is a folder of projects, one folder each, holding ``notes/`` (the
project's rule files, any folder format ``--notes`` reads) and ``queries.jsonl`` (prompts a
developer of that project would type, each with the rule files it needs; ``[]``: none).

Each project is ranked on its own notes, as ``--notes``/``--queries`` would rank it: the raw
ranking, plain BM25, grep, and what the prompt hook serves (:func:`lorebook.inject.choose.choose`
through :mod:`lorebook.evaluation.retrieval`). The figures are leave-one-project-out: a
project's figures may use only what was fitted on the other projects. The hook's thresholds
are constants, so today nothing is fitted and every project's figures use no other project's
data; the report says so.

Serving metrics from another module slot in: when :mod:`lorebook.evaluation.serving` exists,
its ``served_metrics(notes, queries)`` is called for every project and its figures become
columns. When it also has ``fit(training)`` (``training``: the other projects, as (notes
folder, queries) pairs), each held-out project is measured with
``served_metrics(notes, queries, fitted=fit(others))``. With ``--distractors``, the plug-in
is called with ``distractors=[folders]`` when its ``served_metrics`` takes that keyword;
when it does not, its columns are left out (they would describe a store without the
distractors) and the report says so. With ``others`` (``--other-projects``), every project's
store also holds the other projects' notes, and the plug-in gets their folders among
``distractors``.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lorebook.evaluation.corpus import EvalInputError, add_distractors, load_collection
from lorebook.evaluation.metrics import MAIN_K, Measures, recall_any, summarise
from lorebook.evaluation.queries import Query, load_queries, resolve_expected
from lorebook.evaluation.retrieval import (
    SYSTEMS,
    EvalSet,
    Part,
    QueryResult,
    RetrievalReport,
    run_retrieval,
)

if TYPE_CHECKING:
    from lorebook.hookconfig import HookConfig

NOTES_FOLDER = "notes"
QUERIES_FILE = "queries.jsonl"
SERVING_MODULE = "lorebook.evaluation.serving"

Metrics = dict[str, float | int | None]
MeasureProject = Callable[..., Metrics]
"""``(notes folder, queries[, fitted=...]) -> metrics``: a served-metrics plug-in."""
FitProjects = Callable[[Sequence[tuple[Path, Sequence[Query]]]], Any]
"""``(the other projects) -> what the plug-in fitted on them``."""


@dataclass(frozen=True, slots=True)
class RetrievalProject:
    """One project of a retrieval corpus: its notes folder and its prompts."""

    name: str
    notes: Path
    queries: list[Query]


@dataclass(frozen=True, slots=True)
class ServingPlugin:
    """Served metrics another module computes, and what it fits (``None``: nothing)."""

    measure: MeasureProject
    fit: FitProjects | None = None


@dataclass(frozen=True, slots=True)
class ProjectRow:
    """One project's figures (or the pooled figures of every project)."""

    name: str
    notes: int
    answerable: int
    refusals: int
    systems: dict[str, Measures]
    """By system key (``injected``, ``raw``, ``grep``, ``bm25``)."""
    served: Metrics
    """As the hook serves today: :func:`served_measures`."""
    plugin: Metrics = field(default_factory=dict)
    """What the served-metrics plug-in returned."""


@dataclass(frozen=True, slots=True)
class CorpusReport:
    """Every project's row, the pooled row, and what was fitted."""

    rows: list[ProjectRow]
    pooled: ProjectRow
    fitted: str
    k: int
    reports: list[RetrievalReport]
    """Each project's full run (for ``--verbose``)."""
    remarks: list[str] = field(default_factory=list)
    """Lines printed under the table (e.g. why the plug-in's columns are missing)."""


def load_retrieval_corpus(root: Path) -> list[RetrievalProject]:
    """Every project folder under ``root`` (one holding ``notes/`` or ``queries.jsonl``).

    Raises:
        EvalInputError: ``root`` holds no project, a project lacks one of the two, a query
            line is malformed (file and line named), or an expected id names no note.
    """
    if not root.is_dir():
        raise EvalInputError(f"{root}: not a folder of projects")
    projects = []
    for folder in sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith(".")):
        notes, queries = folder / NOTES_FOLDER, folder / QUERIES_FILE
        if not notes.exists() and not queries.exists():
            continue
        if not notes.is_dir():
            raise EvalInputError(f"{folder}: no {NOTES_FOLDER}/ folder beside {QUERIES_FILE}")
        if not queries.is_file():
            raise EvalInputError(f"{folder}: no {QUERIES_FILE} beside {NOTES_FOLDER}/")
        collection = load_collection(notes)
        ids = {n.id for n in collection.notes}
        asked = resolve_expected(load_queries(queries), ids, collection.redirects)
        projects.append(RetrievalProject(folder.name, notes, asked))
    if not projects:
        raise EvalInputError(
            f"{root}: no projects (folders holding {NOTES_FOLDER}/ and {QUERIES_FILE})"
        )
    return projects


def serving_plugin() -> ServingPlugin | None:
    """:mod:`lorebook.evaluation.serving`'s ``served_metrics`` (and ``fit``), if it exists."""
    try:
        module = importlib.import_module(SERVING_MODULE)
    except ModuleNotFoundError as exc:
        if exc.name == SERVING_MODULE:
            return None
        raise
    measure = getattr(module, "served_metrics", None)
    if not callable(measure):
        return None
    fit = getattr(module, "fit", None)
    return ServingPlugin(measure, fit if callable(fit) else None)


def served_measures(results: Sequence[QueryResult]) -> Metrics:
    """What the hook served, whole or as a pointer, judged against the labels.

    - ``served_any@3``: answerable prompts with an expected note among the first three served;
    - ``whole_precision``: of the whole notes served (to any prompt), the share expected;
    - ``refusals_no_whole``: refusal prompts that got no whole note;
    - ``refusals_nothing``: refusal prompts that got nothing at all.
    """
    answerable = [r for r in results if r.query.group == "answerable"]
    refusals = [r for r in results if r.query.group == "refusal"]
    shown = [recall_any(r.served["injected"], r.query.expected, MAIN_K) for r in answerable]
    whole = [(w, w in r.query.expected) for r in results for w in r.whole]
    return {
        f"served_any@{MAIN_K}": sum(shown) / len(shown) if shown else None,
        "whole_served": len(whole),
        "whole_precision": sum(ok for _, ok in whole) / len(whole) if whole else None,
        "refusals": len(refusals),
        "refusals_no_whole": sum(1 for r in refusals if not r.whole),
        "refusals_nothing": sum(1 for r in refusals if not r.served["injected"]),
    }


def _row(name: str, notes: int, results: Sequence[QueryResult], k: int) -> ProjectRow:
    systems = {key: summarise([(r.query, r.served[key]) for r in results], k) for key, _ in SYSTEMS}
    answerable = sum(1 for r in results if r.query.group == "answerable")
    refusals = sum(1 for r in results if r.query.group == "refusal")
    return ProjectRow(name, notes, answerable, refusals, systems, served_measures(results))


def pool_plugin(rows: Sequence[ProjectRow]) -> Metrics:
    """The plug-in's figures over every project: counts summed, fractions averaged.

    A fraction is weighted by the project's answerable prompts (by its refusal prompts when
    its name starts with ``refusal``); a project that returned ``None`` for it is left out.
    """
    pooled: Metrics = {}
    for key in dict.fromkeys(k for row in rows for k in row.plugin):
        values = [(row, row.plugin.get(key)) for row in rows]
        if all(isinstance(v, int) and not isinstance(v, bool) for _, v in values):
            pooled[key] = sum(int(v or 0) for _, v in values)
            continue
        weighed = [
            (float(v), row.refusals if key.startswith("refusal") else row.answerable)
            for row, v in values
            if isinstance(v, int | float)
        ]
        total = sum(w for _, w in weighed)
        pooled[key] = sum(v * w for v, w in weighed) / total if total else None
    return pooled


def takes_distractors(plugin: ServingPlugin) -> bool:
    """Whether the plug-in's ``served_metrics`` accepts ``distractors=``."""
    try:
        parameters = inspect.signature(plugin.measure).parameters
    except (TypeError, ValueError):
        return False
    return "distractors" in parameters or any(
        p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values()
    )


def _plugin_metrics(
    plugin: ServingPlugin,
    held_out: RetrievalProject,
    projects: Sequence[RetrievalProject],
    distractors: Sequence[Path],
) -> Metrics:
    kwargs: dict[str, Any] = {"distractors": list(distractors)} if distractors else {}
    if plugin.fit is not None:
        others = [(p.notes, p.queries) for p in projects if p is not held_out]
        kwargs["fitted"] = plugin.fit(others)
    return plugin.measure(held_out.notes, held_out.queries, **kwargs)


def fitted_line(plugin: ServingPlugin | None) -> str:
    """What was fitted, and on what: the line the report prints under its table."""
    if plugin is not None and plugin.fit is not None:
        return (
            "fitted: the served-metrics thresholds, for each project on the other projects "
            "only (leave-one-project-out)"
        )
    return (
        "fitted: nothing (the hook's thresholds are constants), so each project's figures "
        "use no other project's data: they are leave-one-project-out as they stand"
    )


def run_corpus(
    projects: Sequence[RetrievalProject],
    config: HookConfig,
    k: int,
    *,
    plugin: ServingPlugin | None = None,
    distractors: Sequence[tuple[Path, str]] = (),
    others: bool = False,
) -> CorpusReport:
    """Rank every project on its own notes (plus ``distractors``), then pool the results.

    With ``others``, each project's store also holds every other project's notes (an id
    its own notes already use becomes ``<project>/<id>``): a store of several teams' rules,
    where what a prompt needs must be found among rules written for other code. The
    expected notes stay the project's own.
    """
    extra = [(load_collection(path), label) for path, label in distractors]
    collections = {p.name: load_collection(p.notes) for p in projects} if others else {}
    remarks = []
    if others:
        total = sum(len(c.notes) for c in collections.values())
        remarks.append(
            f"other projects: each project's store also holds the other {len(projects) - 1} "
            f"projects' notes ({total} notes in all), as distractors"
        )
    if plugin is not None and (distractors or others) and not takes_distractors(plugin):
        remarks.append("the served-metrics plug-in takes no distractors: its columns are left out")
        plugin = None
    rows, reports = [], []
    for project in projects:
        base = load_collection(project.notes).notes
        notes = base
        for other in projects if others else ():
            if other is not project:
                notes = add_distractors(notes, collections[other.name], other.name)
        for collection, label in extra:
            notes = add_distractors(notes, collection, label)
        evalset = EvalSet([Part(notes, project.queries)], "corpus", len(notes) - len(base))
        report = run_retrieval(evalset, config, k)
        row = _row(project.name, len(base), report.results, k)
        if plugin is not None:
            folders = [p.notes for p in projects if others and p is not project]
            folders += [path for path, _ in distractors]
            row.plugin.update(_plugin_metrics(plugin, project, projects, folders))
        rows.append(row)
        reports.append(report)
    everything = [r for report in reports for r in report.results]
    pooled = _row("pooled", sum(r.notes for r in rows), everything, k)
    pooled.plugin.update(pool_plugin(rows))
    return CorpusReport(rows, pooled, fitted_line(plugin), k, reports, remarks)


def _fraction(value: float | int | None) -> str:
    if value is None:
        return "-"
    return f"{value:.3f}" if isinstance(value, float) else str(value)


def _cells(row: ProjectRow, plugin_keys: Sequence[str]) -> list[str]:
    main = f"recall_any@{MAIN_K}"
    served = row.served
    cells = [row.name, str(row.notes), str(row.answerable), str(row.refusals)]
    cells += [_fraction(row.systems[key][main]) for key in ("raw", "bm25", "grep")]
    cells += [
        _fraction(served[f"served_any@{MAIN_K}"]),
        _fraction(served["whole_served"]),
        _fraction(served["whole_precision"]),
        f"{served['refusals_no_whole']}/{row.refusals}",
        f"{served['refusals_nothing']}/{row.refusals}",
    ]
    return cells + [_fraction(row.plugin.get(key)) for key in plugin_keys]


def corpus_table(report: CorpusReport) -> str:
    """One row per project and the pooled row; a note on what each column is."""
    plugin_keys = list(dict.fromkeys(k for row in report.rows for k in row.plugin))
    head = ["project", "notes", "answerable", "refusal", f"raw R_any@{MAIN_K}",
            f"BM25 R_any@{MAIN_K}", f"grep R_any@{MAIN_K}", f"served_any@{MAIN_K}",
            "whole", "whole precision", "refusal: no whole", "refusal: nothing",
            *plugin_keys]  # fmt: skip
    rows = [head] + [_cells(row, plugin_keys) for row in [*report.rows, report.pooled]]
    widths = [max(len(row[i]) for row in rows) for i in range(len(head))]
    lines = [
        "  ".join(
            c.ljust(w) if i == 0 else c.rjust(w)
            for i, (c, w) in enumerate(zip(row, widths, strict=True))
        ).rstrip()
        for row in rows
    ]
    return "\n".join(lines)


def corpus_notes(report: CorpusReport) -> list[str]:
    """What the columns mean and what was fitted, printed under the table."""
    return [
        f"served_any@{MAIN_K}: an expected note among the first {MAIN_K} the prompt hook "
        "served (whole or as a pointer); whole: whole notes served; whole precision: the "
        "share of them expected; refusal: refusal prompts that got no whole note / nothing at all.",
        "pooled: every prompt of every project together"
        + (
            "; a served-metrics plug-in's fractions: weighted by prompts"
            if report.pooled.plugin
            else ""
        ),
        report.fitted,
        *report.remarks,
    ]


def _row_document(row: ProjectRow) -> dict[str, Any]:
    def rounded(measures: Metrics) -> dict[str, Any]:
        return {k: round(v, 4) if isinstance(v, float) else v for k, v in measures.items()}

    return {
        "project": row.name,
        "notes": row.notes,
        "answerable": row.answerable,
        "refusals": row.refusals,
        "systems": {key: rounded(m) for key, m in row.systems.items()},
        "served": rounded(row.served),
        "plugin": rounded(row.plugin),
    }


def corpus_document(report: CorpusReport, settings: dict[str, Any]) -> dict[str, Any]:
    """The corpus run as one JSON document."""
    return {
        "ok": True,
        "k": report.k,
        "settings": settings,
        "systems": dict(SYSTEMS),
        "fitted": report.fitted,
        "remarks": list(report.remarks),
        "projects": [_row_document(row) for row in report.rows],
        "pooled": _row_document(report.pooled),
    }
