"""The plugin's own translations (add your host's cases here)."""

from __future__ import annotations

import json

from lorebook___HOST__.events import parse_event, render

from conftest import recorded
from lorebook.events import HookAnswer


def test_the_prompt_and_the_tool_are_read() -> None:
    events = {name: parse_event(name, payload) for name, payload in recorded()}
    assert events["UserPromptSubmit"].prompt == "how do I run the tests?"
    assert events["PreToolUse"].tool_input["command"] == "cat hello.txt"


def test_a_deny_reaches_the_hosts_channel() -> None:
    name, payload = recorded()[2]
    output = render(parse_event(name, payload), HookAnswer(decision="deny", reason="no"))
    assert json.loads(output.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"
