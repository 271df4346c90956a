"""A minimal event translator for testing the hook fast path without a real harness."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from lorebook.events import HookAnswer, HookEvent, HostOutput

EVENTS = {
    "Start": "session_start",
    "Prompt": "prompt",
    "Pre": "pre_tool",
    "Post": "post_tool",
    "Stop": "stop",
}


def parse_event(name: str, payload: Mapping[str, Any]) -> HookEvent:
    if name not in EVENTS:
        raise ValueError(f"unknown event {name!r}")
    for key in ("session_id", "cwd"):
        if not isinstance(payload.get(key), str):
            raise ValueError(f"{name}: payload has no {key!r}")
    return HookEvent(
        name=EVENTS[name],  # type: ignore[arg-type]
        harness="fake",
        session_id=payload["session_id"],
        cwd=payload["cwd"],
        prompt=payload.get("prompt"),
        tool_name=payload.get("tool_name"),
        tool_input=payload.get("tool_input") or {},
        error_text=payload.get("error"),
        source=payload.get("source"),
        host_event=name,
        raw=payload,
    )


def render(event: HookEvent, answer: HookAnswer) -> HostOutput:
    if answer.context is None and answer.decision is None:
        return HostOutput()
    doc = {"context": answer.context, "decision": answer.decision, "reason": answer.reason}
    return HostOutput(stdout=json.dumps(doc).encode())
