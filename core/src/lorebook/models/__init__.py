"""Pydantic models for what is validated at rest or at the CLI.

The hook fast path's own types (event, turn, answer) are light dataclasses in
:mod:`lorebook.events`; they are re-exported here so plugin authors find every public type
in one place. Names resolve lazily: importing one submodule (say, the config model) does not
build every model, which keeps commands quick to start.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from lorebook.events import (
        Hit as Hit,
        HookAnswer as HookAnswer,
        HookEvent as HookEvent,
        HostOutput as HostOutput,
        RecallQuery as RecallQuery,
        ToolCall as ToolCall,
        Turn as Turn,
    )
    from lorebook.models.config import Budgets as Budgets, Config as Config
    from lorebook.models.curation import (
        AddAction as AddAction,
        Conflict as Conflict,
        ContradictAction as ContradictAction,
        CuratorAction as CuratorAction,
        CuratorBatch as CuratorBatch,
        DropAction as DropAction,
        ModifyAction as ModifyAction,
    )
    from lorebook.models.note import (
        KIND_TYPES as KIND_TYPES,
        NOTE_FIELD_ORDER as NOTE_FIELD_ORDER,
        NOTE_KINDS as NOTE_KINDS,
        NOTE_TYPES as NOTE_TYPES,
        Anchors as Anchors,
        Dependency as Dependency,
        FileDependency as FileDependency,
        Note as Note,
        TreeDependency as TreeDependency,
    )
    from lorebook.models.session import (
        LoggedToolCall as LoggedToolCall,
        LoggedTurn as LoggedTurn,
        Proposal as Proposal,
        SessionLog as SessionLog,
    )

_HOMES = {
    "lorebook.events": (
        "Hit",
        "HookAnswer",
        "HookEvent",
        "HostOutput",
        "RecallQuery",
        "ToolCall",
        "Turn",
    ),
    "lorebook.models.config": ("Budgets", "Config"),
    "lorebook.models.curation": (
        "AddAction",
        "Conflict",
        "ContradictAction",
        "CuratorAction",
        "CuratorBatch",
        "DropAction",
        "ModifyAction",
    ),
    "lorebook.models.note": (
        "KIND_TYPES",
        "NOTE_FIELD_ORDER",
        "NOTE_KINDS",
        "NOTE_TYPES",
        "Anchors",
        "Dependency",
        "FileDependency",
        "Note",
        "TreeDependency",
    ),
    "lorebook.models.session": ("LoggedToolCall", "LoggedTurn", "Proposal", "SessionLog"),
}
_WHERE = {name: module for module, names in _HOMES.items() for name in names}

__all__ = sorted(_WHERE)


def __getattr__(name: str) -> Any:
    """Import the submodule that defines ``name`` on first access."""
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'lorebook.models' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
