"""The configuration as the hook fast path sees it: a JSON file, read with the stdlib.

Every command that reads ``config.yaml`` refreshes ``.cache/config.json``; hooks read that
copy (no YAML, no pydantic). When it is missing or unreadable, the defaults below apply,
which a test keeps equal to the pydantic model's defaults.
"""

from __future__ import annotations

import json
import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

DEFAULTS: dict[str, Any] = {
    "harnesses": (),
    "hook_plugins": (),
    "entry_chars": 2000,
    "prompt_chars": 3000,
    "tool_chars": 1500,
    "session_start_ms": 3000,
    "prompt_ms": 1000,
    "tool_ms": 1000,
    "capture_ms": 5000,
    "hook_server_minutes": 30,
    "max_notes": 5,
    "min_score": 2.0,
    "relative_floor": 0.0,
    "min_coverage": 0.0,
    "semantic": True,
    "min_relevance": 0.2,
    "relevance_ratio": 0.0,
    "usage": True,
    "unreviewed": "pointer",
    "waiting_sessions": 20,
    "lint_every_sessions": 50,
}
CHOICES: dict[str, tuple[str, ...]] = {"unreviewed": ("pointer", "none")}
"""The values a text setting may take (the model validates them; this copy is checked too)."""


class HookConfig:
    """The settings hooks use, flattened (``budgets``, ``recall`` and ``nudges`` merged)."""

    __slots__ = tuple(DEFAULTS)
    harnesses: tuple[str, ...]
    hook_plugins: tuple[str, ...]
    """Module paths of the ``recall``/``inject``/``capture`` plugins ``config.yaml`` names."""
    entry_chars: int
    prompt_chars: int
    tool_chars: int
    session_start_ms: int
    prompt_ms: int
    tool_ms: int
    capture_ms: int
    hook_server_minutes: int
    max_notes: int
    min_score: float
    relative_floor: float
    min_coverage: float
    semantic: bool
    min_relevance: float
    relevance_ratio: float
    usage: bool
    unreviewed: str
    """How an unreviewed note is served: ``pointer`` or ``none`` (:mod:`lorebook.reviewstate`)."""
    waiting_sessions: int
    """``nudges.waiting_sessions``: the waiting sessions session start tells the person of."""
    lint_every_sessions: int
    """``nudges.lint_every_sessions``: the session-boundary hook lints every this many."""

    def __init__(self, **values: Any) -> None:
        for name, default in DEFAULTS.items():
            setattr(self, name, values.get(name, default))


def _coerce(name: str, value: object) -> object | None:
    default = DEFAULTS[name]
    if isinstance(default, bool):
        return value if isinstance(value, bool) else None
    if isinstance(default, tuple):
        ok = isinstance(value, list) and all(isinstance(v, str) for v in value)
        return tuple(value) if ok else None  # type: ignore[arg-type]
    if isinstance(default, str):
        return value if value in CHOICES[name] else None
    if isinstance(default, float):
        ok = isinstance(value, int | float) and not isinstance(value, bool)
        return float(value) if ok else None  # type: ignore[arg-type]
    return value if type(value) is int else None


def load_hook_config(kb_root: str) -> HookConfig:
    """Read ``<kb_root>/.cache/config.json``; defaults for anything missing or malformed."""
    try:
        with open(os.path.join(kb_root, ".cache", "config.json"), encoding="utf-8") as handle:
            data = json.load(handle)
    except (OSError, ValueError):
        return HookConfig()
    if not isinstance(data, dict):
        return HookConfig()
    flat: dict[str, object] = {
        "harnesses": data.get("harnesses"),
        "hook_plugins": data.get("hook_plugins"),
    }
    for section in ("budgets", "recall", "nudges"):
        if isinstance(data.get(section), dict):
            flat.update(data[section])
    values = {}
    for name, value in flat.items():
        if name in DEFAULTS:
            coerced = _coerce(name, value)
            if coerced is not None:
                values[name] = coerced
    return HookConfig(**values)
