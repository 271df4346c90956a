"""Turns as they are staged: what extraction needs, redacted once. Standard library only.

A host's turns (:class:`lorebook.events.Turn`) become plain records, shaped exactly like
:class:`~lorebook.models.session.LoggedTurn` and
:class:`~lorebook.models.session.LoggedInjection` dump (same keys, same order), so the
capture path never needs pydantic. Each turn's text and tool-call strings are redacted once,
in batches that share one set-up of the detector library.
"""

from __future__ import annotations

from collections.abc import Mapping

from lorebook.secrets.redact import redact_many
from lorebook.secrets.toolinput import call_strings, redact_strings, redacted_calls

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator
    from typing import Any

    from lorebook.events import Turn

    Record = dict[str, Any]

INJECTED_CHARS = 20_000
"""Injected text is kept up to this many characters (hosts cap hook output at 10,000)."""
BATCH_CHARS = 1 << 20
"""Characters of turn text gathered before a batch is redacted and written (bounds memory)."""
BATCH_TURNS = 2000


def _calls(turn: Turn) -> list[Record]:
    return [
        {
            "name": call.name,
            "input": dict(call.input),
            "result_excerpt": (call.result_excerpt or "") if call.is_error else None,
            "is_error": call.is_error,
        }
        for call in turn.tool_calls
    ]


def kept(turn: Turn) -> bool:
    """Is this turn staged as a turn? No injected text, no successful tool output."""
    if turn.injected:
        return False
    # successful tool output is not kept: less to leak, less to scan
    return turn.role != "tool" or any(call.is_error for call in turn.tool_calls)


def injection(turn: Turn) -> bool:
    """Is this turn lorebook's own injected text (staged apart, as an injection)?"""
    from lorebook.stats.injections import is_lorebook_text

    return turn.injected and is_lorebook_text(turn.text)


def batches(turns: Iterable[Turn]) -> Iterator[list[Turn]]:
    """The staged turns and injections in bounded batches, in transcript order."""
    batch: list[Turn] = []
    size = 0
    for turn in turns:
        if not (kept(turn) or injection(turn)):
            continue
        batch.append(turn)
        size += len(turn.text) + sum(_size(call.input) for call in turn.tool_calls)
        if size >= BATCH_CHARS or len(batch) >= BATCH_TURNS:
            yield batch
            batch, size = [], 0
    if batch:
        yield batch


def _size(value: object) -> int:
    """About how many characters a tool input holds (its strings, without copying them)."""
    if isinstance(value, str):
        return len(value)
    if isinstance(value, (list, tuple)):
        return sum(_size(v) for v in value) + len(value)
    if isinstance(value, Mapping):
        return sum(len(str(k)) + _size(v) for k, v in value.items())
    return 8


def redact_turns(pairs: list[tuple[Record, list[Record]]]) -> list[Record]:
    """Turn records with their text and call strings redacted (``(turn, calls)`` pairs)."""
    texts = redact_many([turn["text"] for turn, _ in pairs]) if pairs else []
    strings = [text for _, calls in pairs for text in call_strings(calls)]
    clean_strings = iter(redact_strings(strings) if strings else [])
    return [
        {
            "index": turn["index"],
            "role": turn["role"],
            "text": text,
            "tool_calls": redacted_calls(calls, clean_strings),
            "timestamp": turn["timestamp"],
        }
        for (turn, calls), text in zip(pairs, texts, strict=True)
    ]


def redact_injections(found: list[Record]) -> list[Record]:
    """Injection records with their text cut and redacted."""
    texts = redact_many([i["text"][:INJECTED_CHARS] for i in found]) if found else []
    return [{**i, "text": text} for i, text in zip(found, texts, strict=True)]


def staged_batch(batch: list[Turn]) -> tuple[list[Record], list[Record]]:
    """(turn records, injection records) of one batch, redacted."""
    pairs = [
        ({"index": t.index, "role": t.role, "text": t.text, "timestamp": t.timestamp}, _calls(t))
        for t in batch
        if kept(t)
    ]
    found = [
        {"index": t.index, "text": t.text, "host_event": t.hook_event,
         "duration_ms": t.duration_ms, "timestamp": t.timestamp}
        for t in batch
        if not kept(t)
    ]  # fmt: skip
    return redact_turns(pairs), redact_injections(found)


def redact_records(
    turns: list[Record], injected: list[Record]
) -> tuple[list[Record], list[Record]]:
    """Redact records built outside capture (a plugin's output, an imported log)."""
    pairs = [({k: v for k, v in t.items() if k != "tool_calls"}, list(t["tool_calls"]))
             for t in turns]  # fmt: skip
    return redact_turns(pairs), redact_injections(injected)
