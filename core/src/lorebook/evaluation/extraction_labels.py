"""Labelled human inputs for ``lorebook eval extraction``, and their alignment with a log.

A labels file is JSON Lines, one object per human input of a session::

    {"file": "day-004.md", "line": 334, "teaching": true, "kind": "tool-choice", "text": "..."}

``file`` is the session file's name; ``line`` (a console copy's prompt line) or ``turn`` (the
1-based index of the human turn) places the input; ``teaching`` says whether it is a
teaching moment; ``kind`` is one of :data:`LABEL_KINDS` for a teaching moment and ``null``
otherwise; ``text`` is optional. A bad line is an error naming the file, the line and the
field.

Inputs are aligned with a session log by order: the labels of a file, sorted by ``line`` or
``turn``, pair with its human turns (``user``, and ``summary`` turns an importer made of a
pasted compaction summary) in order, so an importer need not keep line numbers.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lorebook.errors import LorebookError
from lorebook.models.session import LoggedTurn

LABEL_KINDS = (
    "convention",
    "prohibition",
    "preference",
    "correction",
    "definition",
    "domain-fact",
    "tool-choice",
)
HUMAN_ROLES = frozenset({"user", "summary"})


class LabelError(LorebookError):
    """A labels file that cannot be read, or that does not fit its session."""


@dataclass(frozen=True, slots=True)
class Label:
    """One labelled human input: where it is, and whether (and how) it teaches."""

    file: str
    position: int
    teaching: bool
    kind: str | None
    source: str
    rule: str | None = None
    """The rule the input teaches, in one sentence, as the labeller stated it (when given)."""


def _field(data: dict[str, Any], name: str, where: str) -> Any:
    if name not in data:
        raise LabelError(f"{where}: missing field {name!r}")
    return data[name]


def _label(data: Any, where: str) -> Label:
    """One parsed line as a :class:`Label`, or a :class:`LabelError` naming the field."""
    if not isinstance(data, dict):
        raise LabelError(f"{where}: not a JSON object")
    file = _field(data, "file", where)
    if not isinstance(file, str) or not file:
        raise LabelError(f"{where}: field 'file' must be a file name")
    key = "line" if "line" in data else "turn"
    position = _field(data, key, where)
    if isinstance(position, bool) or not isinstance(position, int) or position < 1:
        raise LabelError(f"{where}: field {key!r} must be a positive integer")
    teaching = _field(data, "teaching", where)
    if not isinstance(teaching, bool):
        raise LabelError(f"{where}: field 'teaching' must be true or false")
    kind = data.get("kind")
    if teaching and kind not in LABEL_KINDS:
        raise LabelError(f"{where}: field 'kind' must be one of {', '.join(LABEL_KINDS)}")
    if not teaching and kind is not None:
        raise LabelError(f"{where}: field 'kind' must be null when 'teaching' is false")
    rule = data.get("rule")
    if rule is not None and not isinstance(rule, str):
        raise LabelError(f"{where}: field 'rule' must be a sentence or null")
    return Label(Path(file).name, position, teaching, kind, where, rule if teaching else None)


def load_labels(path: Path) -> dict[str, list[Label]]:
    """Read a labels file; return its labels by session file name, in input order.

    Raises:
        LabelError: The file cannot be read, a line is not valid, or two labels place the
            same input.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise LabelError(f"{path}: cannot read labels ({exc})") from exc
    labels: dict[str, list[Label]] = {}
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        where = f"{path}:{number}"
        try:
            data = json.loads(line)
        except json.JSONDecodeError as exc:
            raise LabelError(f"{where}: not JSON ({exc.msg})") from exc
        label = _label(data, where)
        same = labels.setdefault(label.file, [])
        if any(other.position == label.position for other in same):
            raise LabelError(f"{where}: a second label for {label.file} at {label.position}")
        same.append(label)
    for same in labels.values():
        same.sort(key=lambda label: label.position)
    return labels


def human_positions(turns: Sequence[LoggedTurn]) -> list[int]:
    """Positions (in ``turns``) of the turns a person typed or pasted, in order."""
    return [position for position, turn in enumerate(turns) if turn.role in HUMAN_ROLES]


def align(labels: Sequence[Label], turns: Sequence[LoggedTurn], session: str) -> dict[int, Label]:
    """Pair each label with a human turn of the session, by order: ``{position: label}``.

    Raises:
        LabelError: The session has no labels, or not as many human turns as labels.
    """
    positions = human_positions(turns)
    if not labels:
        raise LabelError(f"{session}: no labels for this session in the labels file")
    if len(positions) != len(labels):
        raise LabelError(
            f"{session}: {len(positions)} human inputs read, but {len(labels)} labels "
            f"(first label: {labels[0].source})"
        )
    return dict(zip(positions, labels, strict=True))
