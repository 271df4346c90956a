"""A retrieval run as people read it (one table) and as programs read it (one JSON document)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from lorebook.evaluation.metrics import MAIN_K, NDCG_K, Measures
from lorebook.evaluation.queries import GROUPS
from lorebook.evaluation.retrieval import RetrievalReport


def _counts(report: RetrievalReport) -> dict[str, int]:
    counts: dict[str, int] = dict.fromkeys(GROUPS, 0)
    for result in report.results:
        counts[result.query.group] += 1
    return counts


def summary_line(report: RetrievalReport) -> str:
    """What was ranked: notes, distractors, queries by group, k."""
    ev = report.evalset
    notes = sum(len(p.notes) for p in ev.parts) - ev.distractors * len(ev.parts)
    counts = _counts(report)
    groups = f"{counts['answerable']} answerable, {counts['refusal']} refusal"
    if counts["multi-hop"]:
        groups += f", {counts['multi-hop']} multi-hop (reported, not gated)"
    where = f" in {len(ev.parts)} conversations" if len(ev.parts) > 1 else ""
    return (
        f"{notes} notes ({ev.format}){where}, {ev.distractors} distractors; "
        f"{sum(counts.values())} queries: {groups}; k = {report.k}"
    )


def _fraction(value: float | int | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def _columns(report: RetrievalReport) -> list[tuple[str, str]]:
    """(measure key, column heading), leaving out columns no query feeds."""
    k = report.k
    keys = [f"recall_any@{MAIN_K}", f"recall_any@{k}"] if k != MAIN_K else [f"recall_any@{k}"]
    columns = [(key, key.replace("recall_any", "R_any")) for key in keys]
    columns += [(f"recall_all@{k}", f"R_all@{k}"), ("mrr", "MRR"), (f"ndcg@{NDCG_K}", "nDCG@10")]
    columns.append(("false_refusals", "false refusals"))
    counts = _counts(report)
    if counts["refusal"]:
        columns.append(("refusals_kept", "refusals kept"))
    if counts["multi-hop"]:
        columns.append((f"multi_hop_recall_all@{k}", f"multi-hop R_all@{k}"))
    return columns


def _cell(key: str, measures: Measures) -> str:
    if key == "false_refusals":
        return f"{measures[key]}/{measures['answerable']}"
    if key == "refusals_kept":
        return f"{measures[key]}/{measures['refusals']}"
    return _fraction(measures[key])


def table(report: RetrievalReport) -> str:
    """One row per system (and level), one column per measure, aligned."""
    columns = _columns(report)
    levels = list(report.measures)
    head = (["level"] if len(levels) > 1 else []) + ["system"] + [h for _, h in columns]
    rows = [head]
    for level in levels:
        for key, name in report.systems:
            cells = [_cell(c, report.measures[level][key]) for c, _ in columns]
            rows.append(([level] if len(levels) > 1 else []) + [name, *cells])
    widths = [max(len(row[i]) for row in rows) for i in range(len(head))]
    text_columns = 2 if len(levels) > 1 else 1
    lines = []
    for row in rows:
        cells = [
            cell.ljust(w) if i < text_columns else cell.rjust(w)
            for i, (cell, w) in enumerate(zip(row, widths, strict=True))
        ]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines)


def _listed(ids: Sequence[str], expected: Sequence[str], whole: Sequence[str] = ()) -> str:
    wanted, wholes = set(expected), set(whole)
    return (
        ", ".join(
            (f"{i}*" if i in wanted else i) + (" (whole)" if i in wholes else "") for i in ids
        )
        or "(nothing)"
    )


def verbose_lines(report: RetrievalReport) -> list[str]:
    """Per query: what it expected, and each system's first k (``*`` marks an expected id).

    On the hook's row (``injected``), ``(whole)`` marks a note served whole; the others
    went as one-line pointers.
    """
    width = max(len(name) for _, name in report.systems) + 1
    lines = []
    for result in report.results:
        q = result.query
        lines.append(f"[{q.group}] {q.label}: {q.text}")
        lines.append(f"  {'expected:'.ljust(width + 1)} {', '.join(q.expected) or '(nothing)'}")
        for key, name in report.systems:
            served = result.served[key][: report.k]
            whole = result.whole if key == "injected" else ()
            listed = _listed(served, q.expected, whole)
            lines.append(f"  {(name + ':').ljust(width + 1)} {listed}")
    return lines


def _rounded(measures: Measures) -> dict[str, Any]:
    return {k: round(v, 4) if isinstance(v, float) else v for k, v in measures.items()}


def json_document(report: RetrievalReport, settings: dict[str, Any], verbose: bool) -> Any:
    """The run as one JSON document; per-query rows with ``verbose``."""
    ev = report.evalset
    doc: dict[str, Any] = {
        "ok": True,
        "format": ev.format,
        "notes": sum(len(p.notes) for p in ev.parts) - ev.distractors * len(ev.parts),
        "distractors": ev.distractors,
        "queries": _counts(report),
        "k": report.k,
        "settings": settings,
        "systems": dict(report.systems),
        "measures": {
            level: {key: _rounded(m) for key, m in by_system.items()}
            for level, by_system in report.measures.items()
        },
    }
    if ev.skipped:
        doc["skipped"] = list(ev.skipped)
    if verbose:
        doc["rows"] = [
            {
                "label": r.query.label,
                "query": r.query.text,
                "group": r.query.group,
                "expected": list(r.query.expected),
                "served": {key: ids[: report.k] for key, ids in r.served.items()},
            }
            for r in report.results
        ]
    return doc
