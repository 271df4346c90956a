"""Pydantic models for what is validated at rest or at the CLI.

The hook fast path's own types (event, turn, answer) are light dataclasses in
:mod:`lorebook.events`; they are re-exported here so plugin authors find every public type
in one place (importing this module imports pydantic).
"""

from __future__ import annotations

from lorebook.events import Hit, HookAnswer, HookEvent, HostOutput, RecallQuery, ToolCall, Turn
from lorebook.models.config import Budgets, Config
from lorebook.models.curation import (
    AddAction,
    Conflict,
    ContradictAction,
    CuratorAction,
    CuratorBatch,
    DropAction,
    ModifyAction,
)
from lorebook.models.note import (
    KIND_TYPES,
    NOTE_FIELD_ORDER,
    NOTE_KINDS,
    NOTE_TYPES,
    Anchors,
    Dependency,
    FileDependency,
    Note,
    TreeDependency,
)
from lorebook.models.session import LoggedToolCall, LoggedTurn, Proposal, SessionLog

__all__ = [
    "KIND_TYPES",
    "NOTE_FIELD_ORDER",
    "NOTE_KINDS",
    "NOTE_TYPES",
    "AddAction",
    "Anchors",
    "Budgets",
    "Config",
    "Conflict",
    "ContradictAction",
    "CuratorAction",
    "CuratorBatch",
    "Dependency",
    "DropAction",
    "FileDependency",
    "Hit",
    "HookAnswer",
    "HookEvent",
    "HostOutput",
    "LoggedToolCall",
    "LoggedTurn",
    "ModifyAction",
    "Note",
    "Proposal",
    "RecallQuery",
    "SessionLog",
    "ToolCall",
    "TreeDependency",
    "Turn",
]
