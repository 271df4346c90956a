"""What a curator reads and answers when it proposes a rebalance plan.

``rebalance.planner`` in config.yaml may name a curator that implements
:class:`lorebook.curate.base.RebalancePlanner`. When the deterministic trigger finds work,
the curator receives a :class:`RebalanceRequest` (the limits, each folder's metrics, each
note's, and the deterministic plan as a draft in the answer's own format) and returns a
:class:`PlanProposal`. :mod:`lorebook.rebalance.proposal` turns the proposal into a plan and
validates it against the simulated tree exactly like the deterministic plan; an invalid
proposal is set aside with one warning and the deterministic plan is used.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

MAX_SUMMARY_CHARS = 200
"""A folder summary is one line of at most this many characters."""


class FolderMetrics(BaseModel):
    """One folder of ``nodes/`` as the trigger sees it ("" is the top level)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    folder: str
    notes: int = Field(description="Notes directly in the folder.")
    subfolders: list[str] = Field(default_factory=list)
    index_chars: int = Field(description="Length of the folder's index.md.")
    summary: str | None = None
    over: str | None = Field(default=None, description="Why the trigger acts on it, if it does.")


class NoteMetrics(BaseModel):
    """One note as the trigger sees it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    folder: str
    kind: str
    title: str
    tags: list[str] = Field(default_factory=list)
    body_chars: int
    sections: list[str] = Field(
        default_factory=list,
        description="Its ## headings, given only when the body passes split_note_chars.",
    )
    pinned: bool = Field(
        default=False, description="The target of an open conflict: it never moves nor splits."
    )


class ProposedMove(BaseModel):
    """Move note ``id`` into ``to`` (a folder under ``nodes/``; the file keeps its name)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    to: str


class ProposedPart(BaseModel):
    """One new note of a split: the ``## `` sections it takes, and where it goes."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    sections: list[str] = Field(min_length=1)
    folder: str | None = Field(default=None, description="Default: the split note's folder.")


class ProposedSplit(BaseModel):
    """Split note ``id`` into parts; every section goes to exactly one part."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    parts: list[ProposedPart] = Field(min_length=2)


class PlanProposal(BaseModel):
    """A rebalance plan a curator proposes (the draft it receives has the same shape)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    moves: list[ProposedMove] = Field(default_factory=list)
    splits: list[ProposedSplit] = Field(default_factory=list)
    folders: dict[str, str] = Field(
        default_factory=dict,
        description="A one-line summary of each folder the plan creates (others are ignored).",
    )
    reasons: list[str] = Field(default_factory=list)


class RebalanceRequest(BaseModel):
    """What the curator reads: the limits, the folders, the notes and the draft."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    limits: dict[str, int]
    folders: list[FolderMetrics]
    notes: list[NoteMetrics]
    draft: PlanProposal


__all__ = [
    "MAX_SUMMARY_CHARS",
    "FolderMetrics",
    "NoteMetrics",
    "PlanProposal",
    "ProposedMove",
    "ProposedPart",
    "ProposedSplit",
    "RebalanceRequest",
]
