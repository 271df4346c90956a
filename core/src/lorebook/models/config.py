"""``.lorebook/config.yaml``: strict, so a typo is an error naming the file and key."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from lorebook.constants import SCHEMA_VERSION


class Budgets(BaseModel):
    """Character budgets for what lorebook generates or injects, and time budgets for hooks.

    A hook that would overrun its time budget injects nothing and logs one line; it never
    holds up the session.
    """

    model_config = ConfigDict(extra="forbid")

    entry_chars: int = Field(
        default=2000,
        ge=200,
        le=100_000,
        description="ENTRY.md (the catalog injected at session start) stays within this.",
    )
    prompt_chars: int = Field(
        default=3000,
        ge=200,
        le=9000,
        description="Notes injected for one prompt (at most 9,000: Claude Code cuts one hook "
        "output at 10,000 characters).",
    )
    tool_chars: int = Field(
        default=1500, ge=200, le=100_000, description="Notes injected for one tool event."
    )
    session_start_ms: int = Field(
        default=3000, ge=50, le=60_000, description="Time budget of the session-start hook."
    )
    prompt_ms: int = Field(
        default=1000, ge=20, le=60_000, description="Time budget of the prompt hook."
    )
    tool_ms: int = Field(
        default=1000, ge=20, le=60_000, description="Time budget of the tool hooks."
    )
    capture_ms: int = Field(
        default=5000,
        ge=100,
        le=120_000,
        description="Time budget of capture at stop, session end and pre-compact; larger "
        "transcripts are captured by a detached process.",
    )
    hook_server_minutes: int = Field(
        default=30,
        ge=0,
        le=24 * 60,
        description="Minutes the warm hook process of this repository waits for the next "
        "event before it exits (it keeps lorebook's code loaded, so a hook need not start "
        "from nothing); 0: no warm process, every hook runs in its own.",
    )


class Recall(BaseModel):
    """How prompt-time recall picks notes."""

    model_config = ConfigDict(extra="forbid")

    max_notes: int = Field(
        default=5,
        ge=1,
        le=50,
        description="At most this many notes a prompt: the first whole, the rest as pointers "
        "once the character budget is reached.",
    )
    semantic: bool = Field(
        default=True,
        description="Rank with the semantic signal when it is installed "
        "(`pip install 'lorebook[semantic]'`); false: lexical BM25 only.",
    )
    usage: bool = Field(
        default=True,
        description="Weigh notes by what sessions did after they were injected (used: up to "
        "+10 %; injected five times and never used: x0.9); counts from `lorebook stats`.",
    )
    min_relevance: float = Field(
        default=0.2,
        ge=0.0,
        le=1.5,
        description="Semantic ranking: a note whose relevance (cosine + 0.5 x coverage) "
        "is below this is not injected, not even as a pointer, unless it passes the lexical "
        "floors (min_score, relative_floor, min_coverage) as without the semantic signal "
        "(a note is whole only when the ranker is confident: `lorebook recall` says why).",
    )
    relevance_ratio: float = Field(
        default=0.0,
        ge=0.0,
        le=1.0,
        description="Semantic ranking: a note below this fraction of the best note's "
        "relevance is dropped, unless it passes the lexical floors.",
    )
    min_score: float = Field(
        default=2.0,
        ge=0.0,
        description="Lexical ranking: a note whose BM25 score is below it is not injected "
        "(with the semantic signal, one at or above it is kept whatever its relevance).",
    )
    relative_floor: float = Field(
        default=0.0,
        ge=0.0,
        le=1.0,
        description="Lexical ranking: a note scoring below this fraction of the best note's "
        "score is dropped.",
    )
    unreviewed: Literal["pointer", "none"] = Field(
        default="pointer",
        description="How a note no person has reviewed (not committed, not accepted with "
        "`lorebook review --accept`, not written by `lorebook note add`) is served: "
        "`pointer`: as a one-line pointer labelled unreviewed, after the reviewed notes and "
        "never under their heading; `none`: not at all. It is never served whole and never "
        "asks or denies.",
    )
    min_coverage: float = Field(
        default=0.0,
        ge=0.0,
        le=1.0,
        description=(
            "A note must match at least this share of the prompt's idf mass (every distinct "
            "prompt word weighs its rarity), so one shared common word is not enough."
        ),
    )


class Extraction(BaseModel):
    """Which extractor turns staged sessions into proposals, and how."""

    model_config = ConfigDict(extra="forbid")

    extractor: str = Field(
        default="rules",
        description="Extractor provider: `rules` (built-in, offline), `headless` (the wired "
        "harness's own CLI) or `http` (an OpenAI-compatible endpoint).",
    )
    model: str | None = Field(default=None, description="Model name for LLM extractors.")
    endpoint: str | None = Field(
        default=None, description="Base URL of the OpenAI-compatible API (`http` extractor)."
    )
    api_key_env: str = Field(
        default="OPENAI_API_KEY", description="Environment variable holding the API key."
    )
    concurrency: int = Field(default=2, ge=1, le=16, description="Sessions extracted at once.")
    timeout_s: float = Field(default=120.0, gt=0, description="Per LLM call.")


class Retention(BaseModel):
    """How long per-machine session data is kept (days); older files are pruned."""

    model_config = ConfigDict(extra="forbid")

    sessions_days: int = Field(default=30, ge=1, description="Staged session logs.")
    logs_days: int = Field(default=14, ge=1, description="Hook errors and LLM traces.")


class Rebalance(BaseModel):
    """When ``lorebook rebalance`` (and curation, at its end) reshapes the folders of ``nodes/``.

    Hysteresis: a folder is split only above ``max_notes`` notes (or ``max_index_chars``) and
    every subfolder a split creates holds at least ``min_notes``; a branch is merged into its
    parent only below ``min_notes`` and only when the parent stays within both limits. So a
    split is never undone by a merge, nor a merge by a split.
    """

    model_config = ConfigDict(extra="forbid")

    max_notes: int = Field(
        default=40,
        ge=4,
        le=5000,
        description="A folder holding more notes directly than this is split into topical "
        "subfolders.",
    )
    min_notes: int = Field(
        default=3,
        ge=1,
        le=2500,
        description="A subfolder a split creates holds at least this many notes; a branch "
        "below the top level holding fewer is merged into its parent. At most half of "
        "max_notes.",
    )
    max_index_chars: int = Field(
        default=12_000,
        ge=2000,
        le=60_000,
        description="A folder whose index.md would be longer than this is split too (every "
        "index.md also stops listing at 60,000 characters, whatever this says).",
    )
    split_note_chars: int = Field(
        default=6000,
        ge=0,
        le=500_000,
        description="An active note whose body is longer than this and whose `## ` sections "
        "fall into two or more concepts (sections sharing few terms) is split into one note "
        "per concept; its id is retired to the new ones in nodes/.redirects.json. 0: never.",
    )
    after_curate: bool = Field(
        default=True, description="`lorebook curate` runs the rebalance trigger at its end."
    )
    planner: str = Field(
        default="deterministic",
        min_length=1,
        max_length=100,
        pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]*$",
        description="Who proposes the plan when the trigger finds work: deterministic (the "
        "notes' tags, documents and title words), or a curator that can propose one (http, "
        "headless), whose plan is validated like the deterministic one and set aside with "
        "one warning if it fails.",
    )

    @model_validator(mode="after")
    def _hysteresis(self) -> Rebalance:
        if self.min_notes * 2 > self.max_notes:
            raise ValueError(
                f"min_notes ({self.min_notes}) must be at most half of max_notes "
                f"({self.max_notes}), or a split and a merge could undo each other"
            )
        return self


class Nudges(BaseModel):
    """What session start asks the model to tell the person, at most once an hour each."""

    model_config = ConfigDict(extra="forbid")

    waiting_sessions: int = Field(
        default=20,
        ge=0,
        le=100_000,
        description="When at least this many captured sessions wait for `lorebook extract` "
        "or `lorebook curate`, session start asks the model to tell the person in one line "
        "(at most once an hour); below it nothing is said. 0: never.",
    )
    lint_every_sessions: int = Field(
        default=50,
        ge=0,
        le=100_000,
        description="Every this many sessions, the session-boundary hook (stop, session end) "
        "runs `lorebook lint` in a detached process; a failing lint is told to the person the "
        "same way at the next session start. 0: never.",
    )


class Config(BaseModel):
    """The committed configuration of one repository's knowledge base."""

    model_config = ConfigDict(extra="forbid")

    lb_schema: Literal[2] = Field(
        default=SCHEMA_VERSION,
        description="Format version; an older one is brought up to date by `lorebook migrate run`.",
    )
    harnesses: list[str] = Field(
        default_factory=list,
        description="Harnesses wired by `lorebook init --harnesses` (names, sorted).",
    )
    stores: list[str] = Field(
        default_factory=lambda: ["markdown"],
        min_length=1,
        description="Note stores every surface (the hooks, `lorebook recall`, the MCP "
        "server) reads and ranks together, by provider name. Curation and `lorebook note` "
        "write to the repository store (`markdown`) whatever this lists; `lorebook note add "
        "--store NAME` writes to another.",
    )
    organisation: str | None = Field(
        default=None,
        pattern=r"^[a-z0-9][a-z0-9._-]{0,62}$",
        description="The organisation this repository belongs to: a shared store (the "
        "`postgres` store plugin) serves this organisation's notes. A name, never a connection "
        "string: connections come from the environment or the user's own config.",
    )
    hook_plugins: list[str] = Field(
        default_factory=list,
        description="Modules (dotted import paths) whose `recall`, `inject` and `capture` "
        "hook implementations the hooks call; `lorebook doctor` reports what each costs to "
        "import.",
    )
    budgets: Budgets = Field(default_factory=Budgets)
    recall: Recall = Field(default_factory=Recall)
    extraction: Extraction = Field(default_factory=Extraction)
    retention: Retention = Field(default_factory=Retention)
    nudges: Nudges = Field(default_factory=Nudges)
    rebalance: Rebalance = Field(default_factory=Rebalance)
