"""Console copies: text copied from the terminal of a Claude Code or Gemini CLI session.

Line 1 names the tool that was started (``claude`` or ``gemini``); the tool is read from
it, never from the file or folder name. After it:

* A human prompt is a line beginning ``> `` at column 0 (slash commands such as
  ``> /cost`` and ``#`` memory lines too). A multi-line prompt goes on over the indented
  and blank lines that follow it, up to the next line at column 0 or a ``⎿`` output line.
  A prompt that opens with Claude Code's "This session is being continued from a previous
  conversation" is the compaction summary Claude pasted, not something a person typed:
  its role is ``summary``.
* Claude Code: an agent message or tool call begins with ``⏺`` at column 0 and goes on
  over its indented lines; ``  ⎿`` lines under it are tool output. A block with output,
  or whose one line reads ``Name(arguments)``, is a tool call (``Name`` up to the
  parenthesis). ``✻ Thinking…`` blocks are the model's thinking and are left out.
* Gemini CLI: an agent message begins with ``✦``; a tool call is a box (``╭`` … ``╰``)
  whose first line holds a status mark, the tool name and its arguments (``✔`` ran,
  ``✖`` failed, ``-`` was declined or cancelled).
* Everything else at column 0 (the welcome banner, the input box, ``Total cost:`` lines,
  spinners, tips) ends the block before it and is not read.

Terminals copy some spaces as no-break spaces; they are read as spaces. Each turn keeps
the 1-based line of the file it starts on, so a label or a quote can point back at it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from lorebook.importers.common import (
    ImportFormatError,
    decode,
    imported_log,
    session_id_from_name,
)
from lorebook.models.session import LoggedToolCall, LoggedTurn, SessionLog

ConsoleTool = Literal["claude", "gemini"]
ConsoleRole = Literal["user", "assistant", "summary"]

TOOLS: tuple[ConsoleTool, ...] = ("claude", "gemini")
"""The tools whose console copies are read (the first word of line 1)."""

SUMMARY_OPENING = "This session is being continued from a previous conversation"
"""How the compaction summary Claude Code pastes as a prompt begins."""

EXCERPT_CHARS = 300
"""Tool output kept in a staged log (failed calls only, as capture keeps it)."""

_AGENT_MARK: dict[ConsoleTool, str] = {"claude": "⏺", "gemini": "✦"}
_CALL = re.compile(r"^(?P<name>[A-Za-z][\w.:-]*(?: \(MCP\))?)\((?P<args>.*)\)…?$", re.DOTALL)
_GEMINI_CALL = re.compile(r"^(?P<status>\S)\s+(?P<name>\S+)\s*(?P<args>.*)$")
_FAILED_OUTPUT = re.compile(
    r"^(Error\b|User rejected|No \(tell Claude|Interrupted by user)", re.IGNORECASE
)
_GEMINI_FAILED = frozenset({"✖", "x", "-"})


@dataclass(frozen=True, slots=True)
class ConsoleTurn:
    """One turn of a console copy.

    Attributes:
        role: ``user`` (a ``> `` prompt), ``summary`` (a pasted compaction summary) or
            ``assistant`` (an agent message or a tool call).
        text: The prompt or message, indentation removed; empty for a tool call.
        line: The 1-based line of the file the turn starts on.
        tool: For a tool call, the tool's name as the console shows it; else None.
        arguments: For a tool call, its arguments as shown (may be cut by the terminal).
        output: For a tool call, the output shown under it; else None.
        failed: True when the output says the call failed or was refused.
    """

    role: ConsoleRole
    text: str
    line: int
    tool: str | None = None
    arguments: str = ""
    output: str | None = None
    failed: bool = False


@dataclass(frozen=True, slots=True)
class ConsoleSession:
    """A parsed console copy: which tool it came from, and its turns in file order."""

    tool: ConsoleTool
    turns: tuple[ConsoleTurn, ...]

    @property
    def prompts(self) -> tuple[ConsoleTurn, ...]:
        """Every ``> `` line's turn (role ``user`` or ``summary``), in file order."""
        return tuple(turn for turn in self.turns if turn.role != "assistant")


@dataclass(slots=True)
class _Block:
    kind: Literal["prompt", "agent", "box", "skip"]
    line: int
    lines: list[str]
    outputs: list[list[str]] = field(default_factory=list)


def console_tool(text: str) -> ConsoleTool | None:
    """The tool line 1 names (``claude`` or ``gemini``), or None: not a console copy."""
    first = text.split("\n", 1)[0].replace("\xa0", " ").strip().split(" ", 1)[0]
    for tool in TOOLS:
        if first == tool:
            return tool
    return None


def looks_like_console(text: str) -> bool:
    """True when line 1 names a known tool and some line is a ``> `` prompt."""
    return console_tool(text) is not None and any(
        line.startswith("> ") for line in text.replace("\xa0", " ").splitlines()
    )


def _dedent(line: str, width: int = 2) -> str:
    """Remove up to ``width`` leading spaces."""
    stripped = line[:width].lstrip(" ")
    return stripped + line[width:]


def _box_part(line: str) -> str | None:
    """For a Gemini box line (at most one space before it): ``open``, ``body`` or ``close``."""
    head = line[1:] if line.startswith(" ") else line
    return {"╭": "open", "│": "body", "╰": "close"}.get(head[:1])


def _box_content(line: str) -> str:
    """A box line's text, without its borders."""
    body = line.strip().removeprefix("│").rstrip()
    return body.removesuffix("│").strip() if body.endswith("│") else body.strip()


def _continue(block: _Block | None, line: str) -> None:
    """Add an indented or blank line to the open block (its output once output began)."""
    if block is None or block.kind == "skip":
        return
    if block.outputs:
        block.outputs[-1].append(line.strip())
    else:
        block.lines.append(_dedent(line))


def _blocks(lines: list[str], tool: ConsoleTool) -> list[_Block]:
    """Group the lines after line 1 into prompt, agent, box and skipped blocks."""
    blocks: list[_Block] = []
    current: _Block | None = None
    mark = _AGENT_MARK[tool]
    for number, raw in enumerate(lines[1:], start=2):
        line = raw.replace("\xa0", " ").rstrip("\r")
        if line.startswith("> "):
            current = _Block("prompt", number, [line[2:]])
        elif line.startswith(mark):
            current = _Block("agent", number, [line[len(mark) :].strip()])
        elif line.startswith("✻ Thinking"):
            current = _Block("skip", number, [])
        elif tool == "gemini" and _box_part(line):
            current = _gemini_box(current, line, number)
            if current is not None and (not blocks or blocks[-1] is not current):
                blocks.append(current)
            continue
        elif line.lstrip(" ").startswith("⎿"):
            if current is not None and current.kind != "skip":
                current.outputs.append([line.lstrip(" ")[1:].strip()])
            continue
        elif not line.strip() or line.startswith(" "):
            _continue(current, line)
            continue
        else:
            current = None
            continue
        blocks.append(current)
    return blocks


def _gemini_box(current: _Block | None, line: str, number: int) -> _Block | None:
    """Open, fill or close a Gemini tool box; return the block that stays open."""
    part = _box_part(line)
    if part == "open":
        return _Block("box", number, [])
    if current is None or current.kind != "box":
        return None
    if part == "close":
        return None
    current.lines.append(_box_content(line))
    return current


def _prompt_turn(block: _Block) -> ConsoleTurn:
    text = "\n".join(block.lines).strip()
    role: ConsoleRole = "summary" if text.startswith(SUMMARY_OPENING) else "user"
    return ConsoleTurn(role, text, block.line)


def _agent_turn(block: _Block) -> ConsoleTurn:
    """A ``⏺``/``✦`` block: a message, or a tool call when it has output or reads ``Name(…)``."""
    text = "\n".join(block.lines).strip()
    output = "\n".join("\n".join(part) for part in block.outputs).strip() or None
    call = _CALL.match(text)
    if output is None and (call is None or "\n\n" in text):
        return ConsoleTurn("assistant", text, block.line)
    name = call.group("name") if call else block.lines[0].strip().rstrip("…")
    arguments = " ".join(call.group("args").split()) if call else ""
    failed = bool(output and _FAILED_OUTPUT.match(output))
    return ConsoleTurn("assistant", "", block.line, name, arguments, output, failed)


def _box_turn(block: _Block) -> ConsoleTurn | None:
    """A Gemini tool box: its first line is ``<status> <Name> <arguments>``."""
    filled = [line for line in block.lines if line]
    call = _GEMINI_CALL.match(filled[0]) if filled else None
    if call is None:
        return None
    output = "\n".join(block.lines[1:]).strip() or None
    failed = call.group("status") in _GEMINI_FAILED
    return ConsoleTurn(
        "assistant", "", block.line, call.group("name"), call.group("args"), output, failed
    )


def read_console(text: str, source: str = "<console>") -> ConsoleSession:
    """Parse a console copy into its turns (see the module docstring for the format).

    Args:
        text: The copy's text.
        source: The name errors cite (usually the path).

    Returns:
        The tool line 1 names and every turn, in file order: one ``user`` or ``summary``
        turn per ``> `` line, one ``assistant`` turn per agent message or tool call.

    Raises:
        ImportFormatError: Line 1 names no known tool, or no line is a ``> `` prompt.
    """
    tool = console_tool(text)
    if tool is None:
        raise ImportFormatError(
            f"{source}:1: not a console copy: line 1 must name the tool "
            f"({' or '.join(TOOLS)}), found {text.split(chr(10), 1)[0][:40]!r}"
        )
    turns: list[ConsoleTurn] = []
    for block in _blocks(text.split("\n"), tool):
        if block.kind == "prompt":
            turns.append(_prompt_turn(block))
        elif block.kind == "agent":
            turns.append(_agent_turn(block))
        elif block.kind == "box":
            turn = _box_turn(block)
            if turn is not None:
                turns.append(turn)
    if not any(turn.role != "assistant" for turn in turns):
        raise ImportFormatError(f"{source}: a {tool} console copy without any '> ' prompt line")
    return ConsoleSession(tool, tuple(turns))


def read_console_file(path: Path) -> ConsoleSession:
    """Read and parse one console copy (see :func:`read_console`)."""
    return read_console(decode(Path(path).read_bytes(), str(path)), str(path))


def _logged(turn: ConsoleTurn) -> LoggedTurn:
    """A console turn as a session-log turn; ``index`` is its 0-based line number."""
    calls = []
    if turn.tool is not None:
        excerpt = (turn.output or "")[:EXCERPT_CHARS] if turn.failed else None
        arguments = {"arguments": turn.arguments} if turn.arguments else {}
        call = LoggedToolCall(
            name=turn.tool, input=arguments, result_excerpt=excerpt or None, is_error=turn.failed
        )
        calls.append(call)
    return LoggedTurn(index=turn.line - 1, role=turn.role, text=turn.text, tool_calls=calls)


def parse_console(data: bytes, name: str) -> SessionLog:
    """Parse a console copy into a session log (harness: the tool line 1 names).

    Turn indexes are 0-based line numbers of the file, so ``<harness>:<session>:<index>``
    points at line ``index + 1``. The session id is derived from the file name.

    Raises:
        ImportFormatError: As :func:`read_console`, or the file is not UTF-8.
    """
    session = read_console(decode(data, name), name)
    turns = [_logged(turn) for turn in session.turns]
    return imported_log(session.tool, session_id_from_name(name), data, turns)
