"""What an LLM extractor sends and how its answer is read back.

The model gets a system prompt (the instructions and the JSON answer format) and one user
message holding only the pre-selected turns. Its answer is parsed leniently where that is
safe (a JSON object wrapped in prose or a code fence, a missing ``type`` that the ``kind``
implies) and strictly where it matters: an item without a kind, title, description, body
or quote is dropped, and the caller traces why.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from lorebook.errors import LorebookError
from lorebook.extract.answers import _FENCE, _decoded_values
from lorebook.extract.base import normalise
from lorebook.models.note import KIND_TYPES, NOTE_KINDS, TAG_RE
from lorebook.models.session import LoggedTurn, Proposal, SessionLog

TOOL_INPUT_CHARS = 300
"""A tool call's arguments are cut to this many characters in the prompt."""

SYSTEM_PROMPT = f"""\
You extract project knowledge from a coding-assistant session: what a human taught the \
agent that a later session in the same repository should know. Look for teaching moments: \
the human corrects the agent, states a rule or a prohibition, explains a trap, records a \
decision and its reason, names the tool or command to use, introduces a project term, or \
says where something lives.

Rules:
- Keep only knowledge that stays true for this project after this session. Skip one-off \
task requests, thanks, chit-chat, and anything the agent merely did or said.
- Every proposal needs a "quote": a short span (a sentence or a clause) copied character \
for character from a turn marked (user). Never paraphrase it, never quote the assistant or \
a tool. A proposal whose quote does not occur in the session is discarded.
- State only what the turns say; do not add facts.
- Turns are numbered; "[... N turns omitted ...]" marks turns you are not shown.
- When there is nothing worth keeping, answer {{"proposals": []}}.

Answer with one JSON object and nothing else:
{{"proposals": [{{"type": "practice", "kind": "convention", "title": "...", \
"description": "...", "body": "...", "tags": ["..."], "quote": "..."}}]}}

Fields:
- type: "practice" (how to work: convention, prohibition, gotcha, decision, tooling) or \
"map" (what exists and where: feature, vocabulary, location).
- kind: one of {", ".join(NOTE_KINDS)}. convention: how we do something here; \
prohibition: something never to do; gotcha: a trap and how to avoid it; decision: a \
choice made, and why; tooling: which tool or command to use, and how; feature: what a part \
of the system does; vocabulary: what a project term means; location: where something lives.
- title: one line, under 80 characters, naming the knowledge ("Run tests with uv").
- description: one line saying when the note applies.
- body: the knowledge in a few self-contained sentences of markdown; commands and paths \
in backticks.
- tags: up to 5 lowercase words (letters, digits, "-").
- quote: the verbatim span of a (user) turn the proposal rests on.
"""


def render_turn(turn: LoggedTurn) -> str:
    """Render one turn as the model sees it: a numbered header, its text, its tool calls."""
    lines = [f"### turn {turn.index} ({turn.role})", turn.text.rstrip()]
    for call in turn.tool_calls:
        args = json.dumps(call.input, ensure_ascii=False, sort_keys=True)
        if len(args) > TOOL_INPUT_CHARS:
            args = args[:TOOL_INPUT_CHARS] + "…"
        line = f"tool call: {call.name} {args}"
        if call.result_excerpt:
            label = "error" if call.is_error else "result"
            line += f"\n{label}: {call.result_excerpt.strip()}"
        lines.append(line)
    return "\n".join(line for line in lines if line)


def render_turns(turns: Sequence[LoggedTurn]) -> str:
    """Render the selected turns in order, marking the gaps between them."""
    parts: list[str] = []
    previous: int | None = None
    for turn in turns:
        if previous is not None and turn.index > previous + 1:
            parts.append(f"[... {turn.index - previous - 1} turns omitted ...]")
        parts.append(render_turn(turn))
        previous = turn.index
    return "\n\n".join(parts)


def user_message(turns: Sequence[LoggedTurn]) -> str:
    """The user message: the session excerpt and nothing else."""
    return "Session excerpt:\n\n" + render_turns(turns)


def headless_prompt(turns: Sequence[LoggedTurn]) -> str:
    """One prompt for a headless host, which takes no separate system message."""
    return f"{SYSTEM_PROMPT}\n---\n\n{user_message(turns)}\n"


def count_words(turns: Sequence[LoggedTurn]) -> int:
    """Approximate tokens: whitespace-separated words of the turns as rendered."""
    return sum(len(render_turn(turn).split()) for turn in turns)


# --- reading the answer ---------------------------------------------------------------


def _items_of(value: Any) -> list[Any] | None:
    if isinstance(value, dict):
        if isinstance(value.get("proposals"), list):
            return list(value["proposals"])
        if "quote" in value and "title" in value:
            return [value]
        return None
    if isinstance(value, list) and all(isinstance(item, dict) for item in value):
        return list(value)
    return None


def parse_answer(text: str, *, source: str) -> list[Any]:
    """Find the proposals in a model's answer.

    The first JSON object holding a ``proposals`` list wins (a bare array of objects, or a
    single proposal object, is accepted too); the answer may wrap it in prose or a
    ```` ```json ```` fence.

    Args:
        text: The model's final answer.
        source: What answered, for the error message.

    Raises:
        LorebookError: the answer holds no such JSON.
    """
    candidates = [m.group(1) for m in _FENCE.finditer(text)] + [text]
    for candidate in candidates:
        for value in _decoded_values(candidate):
            items = _items_of(value)
            if items is not None:
                return items
    excerpt = normalise(text)[:200]
    raise LorebookError(
        f"{source} answered without a JSON object holding 'proposals': {excerpt!r}",
        hint="a model that ignores the answer format may be too small for extraction",
    )


@dataclass(slots=True)
class ParsedItems:
    """The proposals built from a model's items, and the items dropped with the reason."""

    proposals: list[Proposal] = field(default_factory=list)
    dropped: list[dict[str, Any]] = field(default_factory=list)


_REQUIRED = ("kind", "title", "description", "body", "quote")


def _one_line(value: Any) -> Any:
    return normalise(value) if isinstance(value, str) else value


def _tags(value: Any) -> list[str]:
    if not isinstance(value, list):
        return []
    tags = []
    for raw in value:
        if not isinstance(raw, str):
            continue
        tag = "-".join(raw.strip().lower().split())
        if TAG_RE.match(tag) and len(tag) <= 64 and tag not in tags:
            tags.append(tag)
    return tags


def origin_turn(quote: str, turns: Sequence[LoggedTurn]) -> int:
    """The index of the turn a quote comes from: a user turn first, else any turn."""
    wanted = normalise(quote)
    for roles in (("user",), ("user", "assistant", "tool", "summary")):
        for turn in turns:
            if turn.role in roles and wanted and wanted in normalise(turn.text):
                return turn.index
    return turns[0].index if turns else 0


def _why_invalid(item: Any) -> str | None:
    if not isinstance(item, dict):
        return f"not an object: {type(item).__name__}"
    missing = [key for key in _REQUIRED if not isinstance(item.get(key), str) or not item[key]]
    if missing:
        return f"missing or empty: {', '.join(missing)}"
    if item["kind"] not in KIND_TYPES:
        return f"unknown kind {item['kind']!r}"
    return None


def build_proposals(
    items: Sequence[Any], log: SessionLog, turns: Sequence[LoggedTurn], *, extractor: str
) -> ParsedItems:
    """Validate the model's items into proposals; invalid ones are dropped with the reason.

    Ids are provisional (``<session>:<n>`` in answer order); the run renumbers them when it
    appends them to the log.
    """
    parsed = ParsedItems()
    for n, item in enumerate(items, start=1):
        why = _why_invalid(item)
        if why is None:
            kind = item["kind"]
            kind_type = item.get("type") if item.get("type") in ("practice", "map") else None
            data = {
                "id": f"{log.session_id}:{n}",
                "origin": f"{log.origin}:{origin_turn(item['quote'], turns)}",
                "type": kind_type or KIND_TYPES[kind],
                "kind": kind,
                "title": _one_line(item["title"]),
                "description": _one_line(item["description"]),
                "body": item["body"].strip(),
                "tags": _tags(item.get("tags")),
                "quote": item["quote"].strip(),
                "extractor": extractor,
            }
            try:
                parsed.proposals.append(Proposal.model_validate(data))
                continue
            except ValidationError as exc:
                why = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
        parsed.dropped.append({"item": item, "reason": why})
    return parsed
