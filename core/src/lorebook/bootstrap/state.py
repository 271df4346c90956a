"""Per-document bootstrap state: ``.lorebook/.state/bootstrap-state.json`` (per machine).

For each document bootstrap has read: the sha256 of its bytes, where it stands
(``in_progress`` while its drafts are computed, ``staged`` once its session log is written,
``done`` once curation consumed that log, or when it yielded nothing), and for each of its
sections the hash, the origin its notes cite and the hashes of the rules drafted from it.
``sections`` describes what curation consumed; ``pending`` what the staged log holds, which
becomes ``sections`` when the log is curated. A rerun skips documents that are ``done`` with
the same hash, resumes a ``staged`` one from its log and redoes an ``in_progress`` one, so a
killed run resumes the document it was in. The file is written atomically after every
change.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict, Field

from lorebook.kb.fsutil import atomic_write_text
from lorebook.statefile import read_state

if TYPE_CHECKING:
    from lorebook.kb.paths import KBPaths

STATE_NAME = "bootstrap-state.json"
DocStatus = Literal["in_progress", "staged", "done"]


class SectionState(BaseModel):
    """One section as last drafted: its text's hash, its origin, and its rules' hashes."""

    model_config = ConfigDict(extra="forbid")

    hash: str
    origin: str
    rules: list[str] = Field(
        default_factory=list,
        description="Hashes of the rules drafted from it: a changed section drafts only the "
        "rules it did not state before.",
    )


class DocState(BaseModel):
    """Where one document stands."""

    model_config = ConfigDict(extra="forbid")

    sha256: str
    status: DocStatus
    log: str | None = Field(default=None, description="Its staged log's file name.")
    sections: dict[str, SectionState] = Field(default_factory=dict)
    pending: dict[str, SectionState] = Field(default_factory=dict)


class BootstrapState(BaseModel):
    """Every document bootstrap has read, by repo-relative path."""

    model_config = ConfigDict(extra="forbid")

    lb_schema: Literal[1] = 1
    documents: dict[str, DocState] = Field(default_factory=dict)


def state_path(paths: KBPaths) -> Path:
    """``.lorebook/.state/bootstrap-state.json``."""
    return paths.state / STATE_NAME


def load_state(paths: KBPaths) -> BootstrapState:
    """The state (empty when bootstrap never ran here).

    Raises:
        LorebookError: the file is not valid bootstrap state.
    """
    state = read_state(
        paths, state_path(paths), BootstrapState, what="valid bootstrap state",
        hint="delete it: the next bootstrap reads every document again, and curation "
        "drops what it already turned into notes",
    )  # fmt: skip
    return state or BootstrapState()


def save_state(paths: KBPaths, state: BootstrapState) -> None:
    """Write the state atomically, documents sorted."""
    data = state.model_dump(mode="json")
    data["documents"] = dict(sorted(data["documents"].items()))
    atomic_write_text(state_path(paths), json.dumps(data, indent=1, ensure_ascii=False) + "\n")
