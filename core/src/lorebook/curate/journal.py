"""The curate journal: the validated batch, written before the first note.

A run killed at any point resumes exactly where it stopped.

``.lorebook/.state/curate-journal.json`` (per machine, gitignored) holds the run id, every
step (the action with the digests its target must have before and will have after), the
session logs the batch consumes (file name, transcript hash, proposal ids) and the warnings
planning gave (a proposal refused or held back): the run that finishes the batch gives
them, so a run killed before its end loses none. It is written once, atomically, before
the first step. ``curate-journal.progress.jsonl`` beside it gets
one line per step applied (the run id and the step's result), appended without fsync: a
line lost or torn by a crash only means that step is checked again, and every step is
idempotent. Both are deleted once the logs are stamped and the indexes rebuilt.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from lorebook.curate.base import CurationError
from lorebook.curate.validate import HELD_BACK, PlannedAction
from lorebook.kb.fsutil import atomic_write_text, kb_lock
from lorebook.kb.paths import KBPaths
from lorebook.models.curation import CuratorAction, DropAction
from lorebook.statefile import read_state

JOURNAL_NAME = "curate-journal.json"
PROGRESS_NAME = "curate-journal.progress.jsonl"
RUN_ID_LENGTH = 10
"""Hex digits of the batch digest that name a run (and its conflict files)."""

CURATE_LOCK_TIMEOUT = 600.0
"""Seconds a curate run or a decision waits for another one to finish (LLM runs are slow)."""

StepStatus = Literal["applied", "already-applied", "failed"]


class Step(BaseModel):
    """One action of the batch, with the digests that make applying it idempotent."""

    model_config = ConfigDict(extra="forbid")

    action: CuratorAction
    before: str | None = None
    after: str | None = None


class ConsumedLog(BaseModel):
    """A session log the batch consumes, as it was read."""

    model_config = ConfigDict(extra="forbid")

    log: str = Field(description="File name under _sessions/.")
    transcript_hash: str
    proposals: list[str]


class StepResult(BaseModel):
    """What applying one step did."""

    model_config = ConfigDict(extra="forbid")

    index: int
    proposal_id: str
    action: str
    status: StepStatus
    note_id: str | None = None
    path: str | None = None
    detail: str = ""


class Journal(BaseModel):
    """The batch of one run and its progress."""

    model_config = ConfigDict(extra="forbid")

    lb_schema: Literal[1] = 1
    run: str
    curator: str
    steps: list[Step]
    consumed: list[ConsumedLog]
    warnings: list[str] = Field(
        default_factory=list,
        description="What planning warned about (proposals refused or held back), one line "
        "each, for the run that finishes the batch to say.",
    )

    def held_back(self) -> list[str]:
        """The proposals the batch holds back (their drop's reason starts ``held back:``)."""
        return [
            s.action.proposal_id
            for s in self.steps
            if isinstance(s.action, DropAction) and s.action.reason.startswith(HELD_BACK)
        ]


def curate_lock(paths: KBPaths) -> AbstractContextManager[None]:
    """The lock a curate run and a conflict decision hold, so they never interleave."""
    return kb_lock(paths.state / "curate.lock", timeout=CURATE_LOCK_TIMEOUT)


def journal_path(paths: KBPaths) -> Path:
    """Where the journal lives: ``.lorebook/.state/curate-journal.json``."""
    return paths.state / JOURNAL_NAME


def run_id(steps: Sequence[Step], consumed: Sequence[ConsumedLog]) -> str:
    """A short id that is a function of the batch alone (same batch, same id)."""
    data = {
        "steps": [s.model_dump(mode="json") for s in steps],
        "consumed": [c.model_dump(mode="json") for c in consumed],
    }
    text = json.dumps(data, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:RUN_ID_LENGTH]


def new_journal(
    curator: str,
    planned: Sequence[PlannedAction],
    consumed: Sequence[ConsumedLog],
    warnings: Sequence[str] = (),
) -> Journal:
    """The journal of a validated batch, before any step is applied."""
    steps = [Step(action=p.action, before=p.before, after=p.after) for p in planned]
    return Journal(
        run=run_id(steps, consumed),
        curator=curator,
        steps=steps,
        consumed=list(consumed),
        warnings=list(warnings),
    )


def read_journal(paths: KBPaths) -> Journal | None:
    """The journal of an unfinished run, or None.

    Raises:
        CurationError: the file is not a valid journal.
    """
    return read_state(
        paths, journal_path(paths), Journal, what="a valid curate journal",
        hint="delete it and run `lorebook curate` again: notes already written stay, "
        "and the rerun skips what landed",
        error=CurationError,
    )  # fmt: skip


def progress_path(paths: KBPaths) -> Path:
    """Where step results are appended: ``.lorebook/.state/curate-journal.progress.jsonl``."""
    return paths.state / PROGRESS_NAME


def write_journal(paths: KBPaths, journal: Journal) -> None:
    """Write the journal atomically (and drop the progress of any earlier run)."""
    progress_path(paths).unlink(missing_ok=True)
    atomic_write_text(journal_path(paths), journal.model_dump_json(indent=1) + "\n")


def record_result(paths: KBPaths, run: str, result: StepResult) -> None:
    """Append one step's result to the progress file."""
    path = progress_path(paths)
    line = json.dumps({"run": run, **result.model_dump(mode="json")}, ensure_ascii=False)
    with open(path, "ab") as handle:
        if handle.tell() > 0:  # a line torn by a crash must not swallow this one
            with open(path, "rb") as reader:
                reader.seek(-1, 2)
                if reader.read(1) != b"\n":
                    handle.write(b"\n")
        handle.write(line.encode("utf-8") + b"\n")


def read_results(paths: KBPaths, run: str) -> dict[int, StepResult]:
    """The results recorded for ``run`` (a torn or foreign line is ignored)."""
    results: dict[int, StepResult] = {}
    try:
        lines = progress_path(paths).read_bytes().splitlines()
    except FileNotFoundError:
        return results
    for line in lines:
        try:
            data = json.loads(line)
            if isinstance(data, dict) and data.pop("run", None) == run:
                result = StepResult.model_validate(data)
                results[result.index] = result
        except (ValueError, ValidationError):
            continue
    return results


def delete_journal(paths: KBPaths) -> None:
    """Remove the journal of a finished run, then its progress."""
    journal_path(paths).unlink(missing_ok=True)
    progress_path(paths).unlink(missing_ok=True)


__all__ = [
    "JOURNAL_NAME",
    "PROGRESS_NAME",
    "ConsumedLog",
    "Journal",
    "Step",
    "StepResult",
    "curate_lock",
    "delete_journal",
    "journal_path",
    "new_journal",
    "progress_path",
    "read_journal",
    "read_results",
    "record_result",
    "run_id",
    "write_journal",
]
