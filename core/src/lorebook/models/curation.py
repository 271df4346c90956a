"""Curator actions (a discriminated union) and conflict records."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from lorebook.models.note import Note, NoteId
from lorebook.models.session import Proposal


class AddAction(BaseModel):
    """Add a new note, in a folder (created, with a summary, when it does not exist)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    action: Literal["add"] = "add"
    proposal_id: str
    note: Note
    folder: str
    folder_summary: str | None = None


class ModifyAction(BaseModel):
    """Rewrite an existing note in place (same id), merging a near-duplicate proposal."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    action: Literal["modify"] = "modify"
    proposal_id: str
    target_id: NoteId
    note: Note
    rationale: str


class ContradictAction(BaseModel):
    """Record a contradiction for a human: never overwrites the target note."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    action: Literal["contradict"] = "contradict"
    proposal_id: str
    target_id: NoteId
    proposal: Proposal
    rationale: str


class DropAction(BaseModel):
    """Drop a proposal (noise, duplicate of what the note already says)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    action: Literal["drop"] = "drop"
    proposal_id: str
    reason: str


CuratorAction = Annotated[
    AddAction | ModifyAction | ContradictAction | DropAction, Field(discriminator="action")
]


class CuratorBatch(BaseModel):
    """The whole batch a curator returns; validated before the first write."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    actions: list[CuratorAction]


ConflictStatus = Literal["open", "accepted", "rejected", "kept", "skipped"]


class Conflict(BaseModel):
    """A contradiction awaiting a human decision (``.lorebook/conflicts/<run>-<n>.md``)."""

    model_config = ConfigDict(extra="forbid")

    lb_schema: Literal[1] = 1
    id: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
    target_id: NoteId
    status: ConflictStatus = "open"
    rationale: str
    proposal: Proposal
    decided_because: str | None = None
