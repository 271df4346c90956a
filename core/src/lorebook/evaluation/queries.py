"""Query sets: JSON Lines of ``{"query", "expected"}``, or kenkeep's ``golden-queries.yaml``.

Each query falls in one group, and the groups are measured apart:

- ``answerable``: it lists the ids of the notes it needs;
- ``refusal``: it expects nothing (``"expected": []``, or ``expect_empty: true``): the right
  answer is to inject nothing;
- ``multi-hop``: kenkeep's graph-boost cases (``category: multi-hop``, or
  ``expect_id_present_only_via_boost``), reported but not gated on until graph links exist.

An expected id that names a retired note is mapped to its live successors through the
collection's redirects; one that names no note at all is an error, as a typo would
otherwise read as a miss.
"""

from __future__ import annotations

import json
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import yaml

from lorebook.datafile import DataFileError, parse_yaml
from lorebook.evaluation.corpus import EvalInputError, read_text
from lorebook.kb.redirects import resolve

Group = Literal["answerable", "refusal", "multi-hop"]
GROUPS: tuple[Group, ...] = ("answerable", "refusal", "multi-hop")
MAX_GOLDEN_BYTES = 16 * 1024 * 1024
"""A golden-queries YAML file larger than this is refused unparsed."""


@dataclass(frozen=True, slots=True)
class Query:
    """One prompt and the note ids it should get (empty: it should get nothing)."""

    text: str
    expected: tuple[str, ...]
    group: Group
    label: str
    """Where it comes from: ``file:line``, with the case id when the file names one."""


def load_queries(path: Path) -> list[Query]:
    """Read the query set at ``path``: ``.yaml``/``.yml`` golden cases, else JSON Lines."""
    text = read_text(path)
    if path.suffix in (".yaml", ".yml"):
        return _golden(text, path)
    return _jsonl(text, path)


def _jsonl(text: str, path: Path) -> list[Query]:
    queries = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{path}:{number}"
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise EvalInputError(f"{where}: not valid JSON ({exc.msg})") from None
        if not isinstance(row, dict):
            raise EvalInputError(f"{where}: expected an object with 'query' and 'expected'")
        prompt = row.get("query")
        if not isinstance(prompt, str) or not prompt.strip():
            raise EvalInputError(f"{where}: field 'query': must be a non-empty string")
        expected = row.get("expected")
        if not isinstance(expected, list) or not all(isinstance(e, str) for e in expected):
            raise EvalInputError(f"{where}: field 'expected': must be a list of note ids")
        label = f"{where} {row['id']}" if isinstance(row.get("id"), str) else where
        group: Group = "answerable" if expected else "refusal"
        queries.append(Query(prompt, tuple(expected), group, label))
    if not queries:
        raise EvalInputError(f"{path}: no queries (one JSON object a line)")
    return queries


def _case_lines(text: str) -> list[int]:
    """The line (1-based) each golden case starts on, for error messages."""
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError:
        return []
    if not isinstance(root, yaml.MappingNode):
        return []
    for key, value in root.value:
        if key.value == "cases" and isinstance(value, yaml.SequenceNode):
            return [item.start_mark.line + 1 for item in value.value]
    return []


def _golden(text: str, path: Path) -> list[Query]:
    try:
        data = parse_yaml(text, source=str(path), max_bytes=MAX_GOLDEN_BYTES)
    except DataFileError as exc:
        raise EvalInputError(exc.message) from None
    cases = data.get("cases") if isinstance(data, dict) else None
    if not isinstance(cases, list) or not cases:
        raise EvalInputError(f"{path}: field 'cases': must be a non-empty list of cases")
    lines = _case_lines(text)
    queries = []
    for at, case in enumerate(cases):
        line = lines[at] if at < len(lines) else 0
        queries.append(_case(case, f"{path}:{line}" if line else f"{path}: cases[{at}]"))
    return queries


def _case(case: Any, where: str) -> Query:
    if not isinstance(case, dict):
        raise EvalInputError(f"{where}: a case must be a mapping")
    if isinstance(case.get("id"), str):
        where = f"{where} {case['id']}"
    prompt = case.get("prompt")
    if not isinstance(prompt, str) or not prompt.strip():
        raise EvalInputError(f"{where}: field 'prompt': must be a non-empty string")
    if case.get("expect_empty") is True:
        return Query(prompt, (), "refusal", where)
    boost = case.get("expect_id_present_only_via_boost")
    if boost is not None:
        if not isinstance(boost, str):
            raise EvalInputError(f"{where}: field 'expect_id_present_only_via_boost': an id")
        return Query(prompt, (boost,), "multi-hop", where)
    ids = case.get("expect_ids_in_top_k")
    if not isinstance(ids, list) or not ids or not all(isinstance(i, str) for i in ids):
        raise EvalInputError(
            f"{where}: field 'expect_ids_in_top_k': must be a non-empty list of note ids "
            "(or set expect_empty: true)"
        )
    group: Group = "multi-hop" if case.get("category") == "multi-hop" else "answerable"
    return Query(prompt, tuple(ids), group, where)


def resolve_expected(
    queries: list[Query], ids: Collection[str], redirects: dict[str, list[str]]
) -> list[Query]:
    """Map retired expected ids to live ones; an id naming no note is an error."""
    live = set(ids)
    resolved = []
    for query in queries:
        expected: list[str] = []
        for note_id in query.expected:
            found = resolve(redirects, note_id, live)
            if not found:
                raise EvalInputError(f"{query.label}: field 'expected': {note_id!r} names no note")
            expected.extend(i for i in found if i not in expected)
        resolved.append(Query(query.text, tuple(expected), query.group, query.label))
    return resolved
