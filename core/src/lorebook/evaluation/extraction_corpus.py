"""``lorebook eval extraction --corpus``: the extractors measured project by project.

A corpus is a folder of projects, one folder each, holding ``sessions/`` (the session files,
in any format ``lorebook import`` reads), ``labels.jsonl`` (every human input of every
session, labelled by reading: :mod:`lorebook.evaluation.extraction_labels`) and
``SOURCE.json`` (where the sessions come from; ``"tuned_on": true`` marks a project the
phrase rules were written against, a ``"shaped_on"`` note one whose errors were read to shape
them later: the figures of either prove nothing about other projects).

The deterministic extractor and the LLM pre-selection run on each project's sessions as
``lorebook extract`` runs them. Nothing in them is fitted to a corpus: their phrase rules
were written against the projects marked ``tuned_on``, so every other project's figures
are leave-one-project-out figures, what a user of a project nobody labelled can expect:
precision and recall of the proposals, the pre-selection's recall and the share of words
it would send. A later extractor that fits anything to labels must be measured with each
project left out of its fit.

An input is *flagged* when a proposal is made from it: its quote comes from it, or the same
rule said again was merged into it (the proposal keeps it as evidence).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from lorebook.evaluation.extraction import Counts, InputResult, SessionFigures
from lorebook.evaluation.extraction_labels import Label, LabelError, align, load_labels
from lorebook.models.session import LoggedTurn, SessionLog


@dataclass(frozen=True, slots=True)
class LabelledSession:
    """One session read as ``lorebook import`` reads it, with its labels by turn position."""

    file: str
    log: SessionLog
    labels: dict[int, Label]


@dataclass(frozen=True, slots=True)
class Project:
    """One project of the corpus: its labelled sessions."""

    name: str
    sessions: tuple[LabelledSession, ...]
    tuned_on: bool = False
    """The phrase rules were written against this project (its figures prove nothing)."""
    shaped_on: bool = False
    """Its errors were read to shape the rules after it was first measured (same caveat)."""


@dataclass(frozen=True, slots=True)
class ProjectFigures:
    """A project's figures."""

    name: str
    sessions: tuple[SessionFigures, ...]
    tuned_on: bool
    shaped_on: bool = False

    @property
    def held_out(self) -> bool:
        """Neither tuned nor shaped on: its figures are what a new project can expect."""
        return not (self.tuned_on or self.shaped_on)

    @property
    def label(self) -> str:
        """The name as the tables print it, saying whether the rules were fitted to it."""
        if self.tuned_on:
            return f"{self.name} (tuned on)"
        return f"{self.name} (shaped on)" if self.shaped_on else self.name

    @property
    def counts(self) -> Counts:
        """Counts over every input of the project."""
        return Counts.of([r for s in self.sessions for r in s.inputs])

    @property
    def word_share(self) -> float | None:
        """Words the pre-selection sends over every word of the project's sessions."""
        total = sum(s.total_words for s in self.sessions)
        return sum(s.sent_words for s in self.sessions) / total if total else None


def read_any_session(path: Path) -> SessionLog:
    """A session file read and redacted as ``lorebook import`` would: any format it reads.

    Raises:
        LorebookError: The file cannot be read, or is in no format lorebook reads.
    """
    from lorebook.capture.stage import redact_log
    from lorebook.importers.sources import plan_files

    source = plan_files([path], None)[0]
    if source.log is not None:
        return redact_log(source.log)
    assert source.native is not None
    return redact_log(_native_log(path, source.native.harness_name, source.native.harness))


def _native_log(path: Path, harness_name: str, harness: object) -> SessionLog:
    """A host's own transcript as a session log, read by its harness as capture reads it."""
    from lorebook.models.session import LoggedToolCall

    read: Callable[[str], object] = harness.read_transcript  # type: ignore[attr-defined]
    turns = []
    for turn in read(str(path)):  # type: ignore[attr-defined]
        if turn.injected:
            continue
        calls = [
            LoggedToolCall(
                name=c.name, input=dict(c.input), result_excerpt=c.result_excerpt,
                is_error=c.is_error,
            )
            for c in turn.tool_calls
        ]  # fmt: skip
        turns.append(
            LoggedTurn(
                index=turn.index, role=turn.role, text=turn.text, tool_calls=calls,
                timestamp=turn.timestamp,
            )
        )  # fmt: skip
    from lorebook.importers.common import imported_log, session_id_from_name

    return imported_log(harness_name, session_id_from_name(path.name), path.read_bytes(), turns)


def load_project(folder: Path) -> Project:
    """Read one project folder (``sessions/``, ``labels.jsonl``).

    Raises:
        LabelError: No labels file, a session with no labels, labels that do not fit.
    """
    labels_file = folder / "labels.jsonl"
    if not labels_file.is_file():
        raise LabelError(f"{folder}: no labels.jsonl (not a corpus project)")
    labels = load_labels(labels_file)
    sessions: list[LabelledSession] = []
    for name, labelled in sorted(labels.items()):
        path = folder / "sessions" / name
        if not path.is_file():
            raise LabelError(f"{labels_file}: labels for {name}, but no sessions/{name}")
        log = read_any_session(path)
        aligned = align(labelled, log.turns, f"{folder.name}/{name}")
        sessions.append(LabelledSession(name, log, aligned))
    tuned, shaped = _fitted(folder)
    return Project(folder.name, tuple(sessions), tuned, shaped)


def _fitted(folder: Path) -> tuple[bool, bool]:
    """Whether ``SOURCE.json`` says the rules were tuned on, or later shaped on, this project."""
    try:
        source = json.loads((folder / "SOURCE.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False, False
    if not isinstance(source, dict):
        return False, False
    shaped = source.get("shaped_on")
    return source.get("tuned_on") is True, isinstance(shaped, str) and bool(shaped.strip())


def load_corpus(roots: Sequence[Path]) -> list[Project]:
    """Every project folder (one holding ``labels.jsonl``) under the given folders."""
    found: list[Project] = []
    for root in roots:
        if (root / "labels.jsonl").is_file():
            found.append(load_project(root))
            continue
        folders = sorted(p for p in root.iterdir() if (p / "labels.jsonl").is_file())
        if not folders:
            raise LabelError(f"{root}: no project folder with a labels.jsonl here")
        found += [load_project(folder) for folder in folders]
    names = [project.name for project in found]
    if len(set(names)) != len(names):
        raise LabelError("two corpus projects have the same folder name")
    return found


def pooled(figures: Sequence[ProjectFigures]) -> tuple[Counts, float | None]:
    """Counts over every project, and the pooled word share."""
    results: list[InputResult] = [r for f in figures for s in f.sessions for r in s.inputs]
    total = sum(s.total_words for f in figures for s in f.sessions)
    sent = sum(s.sent_words for f in figures for s in f.sessions)
    return Counts.of(results), (sent / total if total else None)
