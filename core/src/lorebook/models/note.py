"""The note: one markdown file of the knowledge base, its frontmatter validated here.

Frontmatter keys follow OKF (``type``, ``title``, ``description``, ``tags``) plus our own,
all prefixed ``lb_``. Unknown ``lb_`` keys are errors; any other key is kept as it is, so
notes written by other OKF tools survive a rewrite.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Annotated, Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, model_validator

from lorebook.constants import SCHEMA_VERSION

NoteType = Literal["practice", "map"]
NoteKind = Literal[
    "convention",
    "prohibition",
    "gotcha",
    "decision",
    "tooling",
    "feature",
    "vocabulary",
    "location",
]
NoteStatus = Literal["active", "superseded", "refuted"]
Confidence = Literal["low", "medium", "high"]
Enforce = Literal["none", "warn", "ask", "deny"]

NOTE_TYPES: tuple[str, ...] = ("practice", "map")
NOTE_KINDS: tuple[str, ...] = (
    "convention",
    "prohibition",
    "gotcha",
    "decision",
    "tooling",
    "feature",
    "vocabulary",
    "location",
)
KIND_TYPES: dict[str, str] = {
    "convention": "practice",
    "prohibition": "practice",
    "gotcha": "practice",
    "decision": "practice",
    "tooling": "practice",
    "feature": "map",
    "vocabulary": "map",
    "location": "map",
}
"""The type a kind implies when only the kind is given."""

SLUG_PATTERN = r"[a-z0-9]+(?:-[a-z0-9]+)*"
ID_PREFIX_PATTERN = "(?:" + "|".join((*NOTE_TYPES, *NOTE_KINDS)) + ")"
"""What a note id starts with: its type (every id before kinds were allowed) or its kind
(``prohibition-never-push-to-main``), so an id says what the note is."""
ID_PATTERN = rf"^{ID_PREFIX_PATTERN}-{SLUG_PATTERN}$"
ID_RE = re.compile(ID_PATTERN)
TAG_RE = re.compile(r"^[a-z0-9][a-z0-9._/+-]*$")
MAX_ID_LENGTH = 120

NoteId = Annotated[
    str,
    StringConstraints(pattern=ID_PATTERN, max_length=MAX_ID_LENGTH),
]
Tag = Annotated[str, StringConstraints(pattern=r"^[a-z0-9][a-z0-9._/+-]*$", max_length=64)]
OneLine = Annotated[str, StringConstraints(pattern=r"^[^\r\n]*\S[^\r\n]*$", max_length=500)]
Sha256 = Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{64}$")]


class Anchors(BaseModel):
    """What a note is anchored to: pushed to the model when one of these is at hand.

    Attributes:
        files: Repository-relative globs (``src/db/**/*.py``).
        tools: Tool names as the host reports them (``Bash``, ``Edit``).
        errors: Regular expressions matched against a failed tool's error text.
        commands: Regular expressions matched against a shell command.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    files: list[str] = Field(default_factory=list)
    tools: list[str] = Field(default_factory=list)
    errors: list[str] = Field(default_factory=list)
    commands: list[str] = Field(default_factory=list)

    @model_validator(mode="after")
    def _patterns_compile(self) -> Anchors:
        for key in ("errors", "commands"):
            for pattern in getattr(self, key):
                try:
                    re.compile(pattern)
                except re.error as exc:
                    raise ValueError(f"{key}: {pattern!r} is not a valid regex: {exc}") from exc
        return self


class FileDependency(BaseModel):
    """A file the note's claim rests on, with the sha256 of its content when recorded."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    path: str
    sha256: Sha256


class TreeDependency(BaseModel):
    """A set of files (a glob) the claim rests on, with a digest over sorted (path, hash)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    tree: str
    digest: Sha256


Dependency = FileDependency | TreeDependency


class Erratum(BaseModel):
    """A short correction served with its note, which it amends without replacing."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    text: OneLine


NOTE_FIELD_ORDER: tuple[str, ...] = (
    "type",
    "title",
    "description",
    "tags",
    "lb_schema",
    "lb_id",
    "lb_kind",
    "lb_status",
    "lb_confidence",
    "lb_derived_from",
    "lb_relates_to",
    "lb_depends_on",
    "lb_supersedes",
    "lb_superseded_by",
    "lb_refuted_because",
    "lb_anchors",
    "lb_enforce",
    "lb_dependencies",
    "lb_errata",
)
"""Frontmatter keys in the order they are written; keys of other tools follow."""


class HasEdges(Protocol):
    """What :func:`edges_of` reads: a note's lists of the ids it points at."""

    @property
    def relates_to(self) -> Sequence[str]:
        """Ids of related notes."""

    @property
    def depends_on(self) -> Sequence[str]:
        """Ids of notes this one depends on."""

    @property
    def supersedes(self) -> Sequence[str]:
        """Ids of notes this one replaces."""

    @property
    def superseded_by(self) -> Sequence[str]:
        """Ids of notes that replace this one."""


def edges_of(note: HasEdges) -> dict[str, list[str]]:
    """A note's outgoing edges by frontmatter key (empty ones left out)."""
    pairs = (
        ("lb_relates_to", note.relates_to),
        ("lb_depends_on", note.depends_on),
        ("lb_supersedes", note.supersedes),
        ("lb_superseded_by", note.superseded_by),
    )
    return {key: list(ids) for key, ids in pairs if ids}


class Note(BaseModel):
    """One note: its frontmatter fields and its markdown body.

    Field names are short (``note.id``); on disk and in JSON Schema they carry their
    frontmatter names (``lb_id``). The folder a note lives in is presentation, not identity,
    and is not part of the note.
    """

    model_config = ConfigDict(extra="forbid", populate_by_name=True, frozen=True)

    type: NoteType
    title: OneLine = Field(max_length=200)
    description: OneLine
    tags: list[Tag] = Field(default_factory=list)
    schema_version: Literal[2] = Field(default=SCHEMA_VERSION, alias="lb_schema")
    id: NoteId = Field(alias="lb_id")
    kind: NoteKind = Field(alias="lb_kind")
    status: NoteStatus = Field(default="active", alias="lb_status")
    confidence: Confidence = Field(default="medium", alias="lb_confidence")
    derived_from: list[str] = Field(default_factory=list, alias="lb_derived_from")
    relates_to: list[NoteId] = Field(default_factory=list, alias="lb_relates_to")
    depends_on: list[NoteId] = Field(default_factory=list, alias="lb_depends_on")
    supersedes: list[NoteId] = Field(default_factory=list, alias="lb_supersedes")
    superseded_by: list[NoteId] = Field(default_factory=list, alias="lb_superseded_by")
    refuted_because: str | None = Field(default=None, alias="lb_refuted_because")
    anchors: Anchors = Field(default_factory=Anchors, alias="lb_anchors")
    enforce: Enforce = Field(default="none", alias="lb_enforce")
    dependencies: list[Dependency] = Field(default_factory=list, alias="lb_dependencies")
    errata: list[Erratum] = Field(default_factory=list, alias="lb_errata")
    body: str = ""
    extra: dict[str, Any] = Field(
        default_factory=dict,
        description="Frontmatter keys of other tools, kept as they are.",
    )

    @model_validator(mode="after")
    def _consistent(self) -> Note:
        if not self.id.startswith((f"{self.type}-", f"{self.kind}-")):
            raise ValueError(
                f"lb_id {self.id!r} must start with its kind or its type: "
                f"'{self.kind}-' or '{self.type}-'"
            )
        for key, ids in (
            ("lb_relates_to", self.relates_to),
            ("lb_depends_on", self.depends_on),
            ("lb_supersedes", self.supersedes),
            ("lb_superseded_by", self.superseded_by),
        ):
            if self.id in ids:
                raise ValueError(f"{key} names the note itself ({self.id!r})")
        if self.status == "superseded" and not self.superseded_by:
            raise ValueError("lb_status is 'superseded' but lb_superseded_by is empty")
        if self.status == "refuted" and not (self.refuted_because or "").strip():
            raise ValueError("lb_status is 'refuted' but lb_refuted_because is empty")
        for key in self.extra:
            if key.startswith("lb_") or key in NOTE_FIELD_ORDER:
                raise ValueError(f"extra must not hold the lorebook key {key!r}")
        return self

    def edges(self) -> dict[str, list[str]]:
        """Return the note's outgoing edges by frontmatter key (empty ones left out)."""
        return edges_of(self)
