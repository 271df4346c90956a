"""The extractor contract, and the checks every proposal passes whatever made it.

An extractor receives the new turns of one staged (already redacted) session log and
returns proposals. Each proposal carries a verbatim quote; :func:`quote_in_session` checks
it against the log after whitespace normalisation, and a proposal whose quote is not there
is rejected and logged, never kept.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from lorebook.models.session import LoggedTurn, Proposal, SessionLog

Trace = Callable[[dict[str, Any]], None]
"""Records one LLM exchange (request and response) under ``_logs/llm/``."""


@dataclass(frozen=True, slots=True)
class ExtractionRequest:
    """What an extractor gets: the log, the turns to look at, where to trace LLM calls."""

    log: SessionLog
    turns: Sequence[LoggedTurn]
    trace: Trace = field(default=lambda exchange: None)
    options: dict[str, Any] = field(default_factory=dict)


@runtime_checkable
class Extractor(Protocol):
    """Turns session turns into proposals. LLM extractors do I/O, hence ``async``."""

    name: str

    async def extract(self, request: ExtractionRequest) -> list[Proposal]:
        """Return proposals for ``request.turns`` (their quotes must occur in the log)."""
        ...


_SPACE = re.compile(r"\s+")


def normalise(text: str) -> str:
    """Collapse every run of whitespace to one space, and trim."""
    return _SPACE.sub(" ", text).strip()


def quote_in_session(quote: str, log: SessionLog) -> bool:
    """True when ``quote`` occurs in one of the log's turns, whitespace normalised."""
    wanted = normalise(quote)
    if not wanted:
        return False
    return any(wanted in normalise(turn.text) for turn in log.turns)
