"""Staged session logs and the proposals extracted from them (gitignored, per machine)."""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from lorebook.models.note import Anchors, Dependency, NoteId, NoteKind, NoteType, OneLine, Tag

SessionStatus = Literal["pending", "extracted", "failed", "curated"]


class LoggedToolCall(BaseModel):
    """A tool call as staged: its name, arguments and a short result or error excerpt."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    input: dict[str, object] = Field(default_factory=dict)
    result_excerpt: str | None = None
    is_error: bool = False


_SESSION_ORIGIN = re.compile(r"^([a-z][a-z0-9_-]*):([^:/#@\s.]+)(?::\d+)?$")


def session_of(origin: str) -> tuple[str, str] | None:
    """``(harness, session)`` when ``origin`` names a session or a turn of it, else None.

    A session is cited ``<harness>:<session>`` and a turn of it ``<harness>:<session>:<turn>``
    (what extraction records and notes keep in ``lb_derived_from``); ``bootstrap:<path>`` names
    a document.

    >>> session_of("claude:5f2c:14"), session_of("AGENTS.md#testing"), session_of("bootstrap:x")
    (('claude', '5f2c'), None, None)
    """
    found = _SESSION_ORIGIN.match(origin)
    if found is None or found.group(1) == "bootstrap":
        return None
    return found.group(1), found.group(2)


class LoggedTurn(BaseModel):
    """One normalised turn as staged (redacted before it was written)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    index: int = Field(ge=0)
    role: Literal["user", "assistant", "tool", "summary"]
    text: str
    tool_calls: list[LoggedToolCall] = Field(default_factory=list)
    timestamp: str | None = None


class LoggedInjection(BaseModel):
    """Text a hook put into the model's context, as the host's transcript recorded it.

    Kept apart from ``turns`` so that no extractor and no quote check ever reads it as
    something a person wrote; ``lorebook stats`` reads it to measure what injection costs
    and whether the agent used it.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    index: int = Field(ge=0, description="Position in the transcript, as turns count it.")
    text: str
    host_event: str | None = Field(
        default=None, description="The host's name for the hook event, when it records one."
    )
    duration_ms: int | None = Field(
        default=None, ge=0, description="How long the hook ran, when the host records it."
    )
    timestamp: str | None = None


class Proposal(BaseModel):
    """A candidate note, with the verbatim quote from its session that supports it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(description="Stable within its session log: `<session>:<n>`.")
    origin: str = Field(description="`<harness>:<session>:<turn>` the quote comes from.")
    type: NoteType
    kind: NoteKind
    title: OneLine
    description: OneLine
    body: str
    tags: list[Tag] = Field(default_factory=list)
    anchors: Anchors = Field(default_factory=Anchors)
    quote: str = Field(min_length=1, description="Verbatim text of the session it rests on.")
    extractor: str = Field(description="The extractor provider that proposed it.")
    target_id: NoteId | None = Field(
        default=None, description="An existing note this proposal is about, when known."
    )
    dependencies: list[Dependency] = Field(
        default_factory=list,
        description="Files and trees the claim rests on, hashed when the proposer read them; "
        "curation refuses to write the note if they changed since.",
    )


class SessionLog(BaseModel):
    """A captured session, staged under ``.lorebook/_sessions/`` until curation consumes it.

    On disk (:mod:`lorebook.capture.staged`): ``<stem>.json`` holds every field but
    ``turns`` and ``injected``, which are records of the append-only ``<stem>.jsonl``.
    Read it with :func:`lorebook.capture.stage.load_log`, write it with
    :func:`~lorebook.capture.stage.write_log`.
    """

    model_config = ConfigDict(extra="forbid")

    lb_schema: Literal[1, 2] = Field(
        default=2,
        description="2: a header and an append-only body; 1: one file with the turns inline "
        "(still read; capture migrates it on first touch).",
    )
    harness: str
    session_id: str
    origin: str = Field(description="Opaque id committed notes cite: `<harness>:<session>`.")
    transcript_hash: str = Field(description="sha256 of the transcript bytes read so far.")
    transcript_length: int = Field(ge=0, description="Bytes of transcript read so far.")
    status: SessionStatus = "pending"
    error: str | None = None
    extracted_turns: int = Field(
        default=0, ge=0, description="Turns already extracted; a grown log re-opens only the rest."
    )
    branch: str | None = Field(
        default=None, description="The git branch checked out when the session was captured."
    )
    turns: list[LoggedTurn] = Field(default_factory=list)
    injected: list[LoggedInjection] = Field(
        default_factory=list,
        description="Hook-injected text, marked as injected: never a turn, never human text.",
    )
    proposals: list[Proposal] = Field(default_factory=list)
