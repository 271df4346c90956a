"""A tool named for the work: the ``tooling`` signal of a sentence.

"Use `uv` for installs", "tests run with `pytest -n auto`", "Always run `make lint` before
committing" name the tool a kind of work is done with. "check with `uv` documentation" names
a source read, and "run `bun verify`" asks for one step of this task: neither is a rule.
"""

from __future__ import annotations

import re

_I = re.IGNORECASE
_COMMAND_LIKE = re.compile(
    r"^(?:\S+ \S|\.{0,2}/|[\w.-]+/(?:bin|scripts?)/|@[\w.-]+/"
    r"|(?:npm|npx|pnpm|yarn|bun|uv|uvx|pip|make|docker|ddev|drush|composer|pytest|cargo|go"
    r"|git|just|tox|nox|poetry|gradle|mvn|dotnet|php|node|deno)\b)"
)

_TOOL_USE = re.compile(
    r"\b(?:use|uses|using|invoke|call|switch(?:ed)? to|(?:is |are )?run(?:s)?"
    r"(?: (?:with|through|via|using|in|inside|under))?"
    r"|(?:lint|test|build|format|check|deploy|install)(?:s|ed)? (?:with|through|via|using))"
    r"\s+(?:the )?`(?P<command>[^`]+)`",
    _I,
)
_CONSULTED = re.compile(
    r"\s+(?:documentation|docs|manual|man ?page|website|site|readme|guide|changelog|wiki)\b", _I
)
"""After a command in backticks: the command names a source read, not a tool run ("check
with `uv` documentation")."""
_RUN_NOW = re.compile(
    r"^\W*(?:(?:please|pls|now|then|just|and|ok(?:ay)?),?\s+)*(?:run|execute)\b", _I
)
"""A sentence that opens by asking to run a command: "run `bun verify`", a step of this task."""
_STANDING = re.compile(
    r"\b(?:always|never|every|each|whenever|before|after|instead of|rather than|not|only"
    r"|from now on|by default)\b",
    _I,
)
"""What makes running a command a standing rule: a habit, an occasion, what it replaces."""


def names_a_tool(text: str) -> bool:
    """Whether ``text`` names, in backticks, the command some kind of work is done with."""
    run_now = _RUN_NOW.match(text)
    asked = run_now is not None and not _STANDING.search(text)
    return any(
        _COMMAND_LIKE.match(m.group("command"))
        and not _CONSULTED.match(text, m.end())
        and not (asked and run_now is not None and m.start() < run_now.end())
        for m in _TOOL_USE.finditer(text)
    )
