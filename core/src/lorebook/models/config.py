"""``.lorebook/config.yaml``: strict, so a typo is an error naming the file and key."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from lorebook.constants import SCHEMA_VERSION


class Budgets(BaseModel):
    """Character budgets for what lorebook generates or injects."""

    model_config = ConfigDict(extra="forbid")

    entry_chars: int = Field(
        default=2000,
        ge=200,
        le=100_000,
        description="ENTRY.md (the catalog injected at session start) stays within this.",
    )


class Config(BaseModel):
    """The committed configuration of one repository's knowledge base."""

    model_config = ConfigDict(extra="forbid")

    lb_schema: Literal[1] = Field(default=SCHEMA_VERSION, description="Format version.")
    harnesses: list[str] = Field(
        default_factory=list,
        description="Harnesses wired by `lorebook init --harnesses` (names, sorted).",
    )
    stores: list[str] = Field(
        default_factory=lambda: ["markdown"],
        min_length=1,
        description="Note stores recall reads, by provider name; the first one is written.",
    )
    budgets: Budgets = Field(default_factory=Budgets)


ConfigKey = Literal["harnesses", "stores", "budgets"]
