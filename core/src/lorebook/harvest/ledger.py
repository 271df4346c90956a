"""What harvest has done with each memory: ``.lorebook/.state/harvest-<host>.json``.

Per user and machine (the memories are), gitignored. One record per memory entry: the hash
of the text last proposed, its slot, the origin its proposal cited and what became of it
(``note``: a note was written or merged, ``conflict``: a conflict file records it,
``rejected``: a person rejected its claim, ``dropped``: curation found a note already
saying it, ``personal``: a memory about the person, kept in their personal store as
``note``; see :mod:`lorebook.harvest.personal`). An entry is recorded only once that outcome
is on disk, so an interrupted harvest proposes it again and curation drops what already
landed.
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

Outcome = Literal["note", "conflict", "rejected", "dropped", "personal"]


class Harvested(BaseModel):
    """One memory entry, as harvest last handled it."""

    model_config = ConfigDict(extra="forbid")

    sha256: str
    slot: str
    origin: str
    outcome: Outcome
    note: str | None = Field(default=None, description="The note it became or merged into.")


class HarvestLedger(BaseModel):
    """Every memory entry of one host harvest has handled, by key."""

    model_config = ConfigDict(extra="forbid")

    lb_schema: Literal[1] = 1
    entries: dict[str, Harvested] = Field(default_factory=dict)


def ledger_path(paths: KBPaths, host: str) -> Path:
    """``.lorebook/.state/harvest-<host>.json``."""
    return paths.state / f"harvest-{host}.json"


def load_harvest_ledger(paths: KBPaths, host: str) -> HarvestLedger:
    """The ledger (empty when harvest never ran for ``host`` here).

    Raises:
        LorebookError: the file is not a valid ledger.
    """
    ledger = read_state(
        paths, ledger_path(paths, host), HarvestLedger, what="a valid harvest ledger",
        hint="delete it: harvest then proposes every memory again, and curation drops "
        "the claims that are notes already or were rejected",
    )  # fmt: skip
    return ledger or HarvestLedger()


def save_harvest_ledger(paths: KBPaths, host: str, ledger: HarvestLedger) -> None:
    """Write the ledger atomically, entries sorted."""
    data = ledger.model_dump(mode="json")
    data["entries"] = dict(sorted(data["entries"].items()))
    text = json.dumps(data, indent=1, ensure_ascii=False) + "\n"
    atomic_write_text(ledger_path(paths, host), text)
