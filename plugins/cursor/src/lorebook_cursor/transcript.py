"""Cursor agent transcripts (the ``transcript_path`` of a stop or sessionEnd payload) as turns.

Cursor does not document its transcript format; third parties report JSON Lines under
``~/.cursor/projects/<project>/agent-transcripts/`` (shared/HARNESSES.md section 5). This
reader is deliberately lenient and unverified: a record with a ``role`` of ``user`` or
``assistant`` (at the top level or in a ``message`` object) and text content (a string,
or a list of ``{"type": "text", "text"}`` parts) becomes a turn of that role; anything
else is skipped. ``<user_query>`` tags around a prompt are removed. A session without a
``transcript_path`` is not captured by the hooks; ``lorebook import`` reads SpecStory's
exports of Cursor chats instead.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from lorebook.events import Turn
from lorebook.hostkit import jsonl
from lorebook.hostkit.jsonl import transcript_end as transcript_end

if TYPE_CHECKING:
    from lorebook.hostkit.jsonl import PendingCalls

_QUERY = re.compile(r"</?user_query>")


def read_transcript(
    ref: str, since: int | None = None, until: int | None = None, lines_before: int | None = None
) -> Iterator[Turn]:
    """Yield the turns of a Cursor transcript between two offsets (index: line number).

    See :func:`lorebook.hostkit.jsonl.read_turns` for ``since``, ``until``,
    ``lines_before`` (capture passes it when it resumes) and errors.
    """
    return jsonl.read_turns(ref, since, until, _turn_of_record, lines_before)


def _content_text(content: Any) -> str:
    if isinstance(content, str):
        return content.strip()
    if not isinstance(content, list):
        return ""
    parts = [p.get("text") for p in content if isinstance(p, Mapping) and p.get("type") == "text"]
    return "\n".join(p.strip() for p in parts if isinstance(p, str) and p.strip())


def _turn_of_record(record: dict[str, Any], index: int, _calls: PendingCalls) -> Turn | None:
    inner = record.get("message")
    message: Mapping[str, Any] = inner if isinstance(inner, Mapping) else record
    role = message.get("role")
    if role not in ("user", "assistant"):
        return None
    text = _content_text(message.get("content", message.get("text")))
    if role == "user":
        text = _QUERY.sub("", text).strip()
    return Turn(index, role, text, timestamp=jsonl.record_time(record)) if text else None
