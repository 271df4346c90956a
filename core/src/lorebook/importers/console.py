"""Console copies: text copied from the terminal of a Claude Code or Gemini CLI session.

A copy is recognised, and its tool told, by what it holds, wherever it starts (a
``claude-trace`` line, the welcome banner, a shell prompt, blank lines): the agent's marks
at column 0 (``⏺`` or ``●`` Claude Code, ``✦`` Gemini CLI; the more frequent tool's marks
name it), else a Claude Code banner (v1's "✻ Welcome to Claude Code", v2's
``╭─── Claude Code v2.0.47 ───╮`` box or its three-line logo `` ▐▛███▜▌   Claude Code
v2.0.53``) or a Gemini CLI tool box, else a first line that starts the tool (``claude``,
``claude-trace``, ``claude --model opus``, ``me@host ~/proj % gemini``) followed somewhere
by a ``> `` prompt (a ``❯`` line is not enough there: many shells' prompts end so). That
command line is not read. Then:

* A human input is a line beginning ``> `` at column 0 (slash commands such as ``> /cost``,
  ``> # …`` memory and ``> ! …`` bash-mode lines too); in a Claude Code copy, also one
  beginning ``❯ `` (U+276F), as Claude Code 2.1 shows prompts (``❯ fix the tests``). A
  multi-line prompt goes on over the indented and blank lines that follow it, up to the
  next line at column 0 or a ``⎿`` output line; spaces ending a ``❯`` prompt's lines (2.1
  pads them to the terminal's width) are dropped. A ``❯`` line is no prompt when it is the input box
  (right under a ``─`` rule) or a menu's cursor (``❯ 1. Yes`` among a permission dialog's
  or a question's numbered options; see :mod:`lorebook.importers.console_marks`). A prompt
  that opens with Claude Code's "This session is being continued from a previous
  conversation" is the compaction summary Claude pasted, not something a person typed: its
  role is ``summary``.
* Claude Code v2 (its banner or logo, or ``●`` marks, show it; in a copy with neither,
  prompts that go on at column 0 more often than on indented lines) writes a wrapped
  prompt's later lines at column 0, so there a prompt goes on up to the next line that starts
  ``●``, ``⏺``, ``> ``, ``❯``, ``✻``, ``∴``, ``═``, ``─``, ``╭`` or the logo, or a ``⎿`` line;
  trailing blank lines are dropped. ``══ Conversation compacted ══`` lines are not read.
* Claude Code also shows what was typed in memory mode (``# rule``) and bash mode
  (``! command``) at column 0 without the ``> ``, its answer under it (``⎿  Noted.``, the
  command's output). Such a line is a human input when a blank line (or nothing) is above
  it and the next non-blank line is that ``⎿`` answer; a markdown heading in the agent's
  text or in tool output has no such answer and is not one.
* Claude Code: an agent message or tool call begins with ``⏺`` (``●`` on Linux and in
  VS Code) at column 0 and goes on over its indented lines; ``  ⎿`` lines under it are
  tool output. A block with output, or whose one line reads ``Name(arguments)``, is a tool
  call (``Name`` up to the parenthesis). ``✻ Thinking…`` and ``∴ Thinking…`` blocks are
  the model's thinking and are left out.
* Gemini CLI: an agent message begins with ``✦``; a tool call is a box (``╭`` … ``╰``)
  whose first line holds a status mark, the tool name and its arguments (``✔`` ran,
  ``✖`` failed, ``-`` was declined or cancelled). Newer versions draw each prompt in a box
  at column 0 too, its first line ``│  > prompt``: that box is a human input.
* Everything else at column 0 (the welcome banner, the input box, ``Total cost:`` lines,
  spinners, tips) ends the block before it and is not read.

Terminals copy some spaces as no-break spaces; they are read as spaces. Each turn keeps
the 1-based line of the file it starts on, so a label or a quote can point back at it.
"""  # noqa: RUF002 (the pointer U+276F is named on purpose)

from __future__ import annotations

import itertools
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
from lorebook.importers.console_marks import POINTER, POINTER_PROMPT, pointer_prompt, typed_breaks
from lorebook.models.session import LoggedToolCall, LoggedTurn, SessionLog

# Host names core keeps on purpose: a console copy is a terminal's text, read without the
# host's plugin (Gemini CLI has none), so its marks cannot come from a plugin.
ConsoleTool = Literal["claude", "gemini"]
ConsoleRole = Literal["user", "assistant", "summary"]

TOOLS: tuple[ConsoleTool, ...] = ("claude", "gemini")
"""The tools whose console copies are read."""

TOOL_NAMES: dict[ConsoleTool, str] = {"claude": "Claude Code", "gemini": "Gemini CLI"}
"""How messages name each tool."""

SUMMARY_OPENING = "This session is being continued from a previous conversation"
"""How the compaction summary Claude Code pastes as a prompt begins."""

EXCERPT_CHARS = 300
"""Tool output kept in a staged log (failed calls only, as capture keeps it)."""

_AGENT_MARKS: dict[ConsoleTool, tuple[str, ...]] = {"claude": ("⏺", "●"), "gemini": ("✦",)}
_CALL = re.compile(r"^(?P<name>[A-Za-z][\w.:-]*(?: \(MCP\))?)\((?P<args>.*)\)…?$", re.DOTALL)
_GEMINI_CALL = re.compile(r"^(?P<status>\S)\s+(?P<name>\S+)\s*(?P<args>.*)$")
_FAILED_OUTPUT = re.compile(
    r"^(Error\b|User rejected|No \(tell Claude|Interrupted by user)", re.IGNORECASE
)
_GEMINI_FAILED = frozenset({"✖", "x", "-"})
NO_MARKS = (
    "no Claude Code or Gemini CLI marks (no ⏺, ● or ✦ line at column 0, no Claude Code "
    "banner or Gemini tool box, and the first line does not start claude, claude-trace or "
    "gemini)"
)
"""Why a file is not read as a console copy."""

_CLAUDE_BANNER = "✻ Welcome to Claude Code"
_CLAUDE_V2_BANNER = re.compile(r"^(?:╭─+ |[ *]*▐▛███▜▌[ *]+)Claude Code v\d")
"""Claude Code v2's banner box (``╭─── Claude Code v2.0.47 ───╮``) or its logo's first line,
plain or in its starry frame (`` * ▐▛███▜▌ *   Claude Code v2.0.75``)."""
_LOGO = re.compile(r"^[ *]*(?:▐▛███▜▌|▝▜█████▛▘|▘▘ ▝▝)")
_WRAPPED_PROMPT_ENDS = ("●", "⏺", "> ", POINTER, "✻", "∴", "═", "─", "╭")
"""What ends a v2 prompt at column 0 (besides the logo): the lines its wrapped text never starts."""
_THINKING = ("✻ Thinking", "∴ Thinking")
_EXIT_SUMMARY = re.compile(r"^Total (?:cost|duration|code changes)\b|^Usage by model\b")
"""The summary Claude Code prints at column 0 when it exits (``Total cost: $0.10``)."""
_GEMINI_TOOL_BOX = re.compile(r"^ ?│ (?:✔|✖)  \S")
_LAUNCH = re.compile(
    r"^(?:(?!> ).*[$%#>)\u276f\u279c\u00bb\u03bb\u2192\u2717]\s*)?(?:\S*/)?"
    r"(?P<command>claude-trace|claude|gemini)"
    r"(?:\s+[-\"'].*)?$"
)
"""A line that starts a tool: the command alone or after a shell prompt (ending ``$``,
``%``, ``#``, ``>``, or the arrow, cross or parenthesis of a zsh theme), then nothing,
options or a quoted first prompt. A ``> `` line is a prompt of the copy, never a shell's."""
_SHORTCUT = re.compile(r"^(?P<mark>[#!]) ?(?P<text>[^\s#!].*)$")
"""Memory (``# rule``) and bash mode (``! command``) as Claude Code shows them."""


@dataclass(frozen=True, slots=True)
class ConsoleTurn:
    """One turn of a console copy.

    Attributes:
        role: ``user`` (a human input), ``summary`` (a pasted compaction summary) or
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
        """Every human input's turn (role ``user`` or ``summary``), in file order."""
        return tuple(turn for turn in self.turns if turn.role != "assistant")


@dataclass(slots=True)
class _Block:
    kind: Literal["prompt", "agent", "box", "skip"]
    line: int
    lines: list[str]
    outputs: list[list[str]] = field(default_factory=list)
    boxed: bool = False
    padded: bool = False  # a pointer prompt: Claude Code 2.1 pads its lines to the width


@dataclass(frozen=True, slots=True)
class _Evidence:
    """What shows a file is a console copy of ``tool``: ``what``, on 1-based ``line``.

    ``launch`` is True when it is only the command line that started the tool, which
    recognises a copy only together with a ``> `` prompt; that line is not read.
    """

    tool: ConsoleTool
    line: int
    what: str
    launch: bool = False


def _lines(text: str) -> list[str]:
    """The file's lines, no-break spaces read as spaces, without carriage returns."""
    return [raw.replace("\xa0", " ").rstrip("\r") for raw in text.split("\n")]


def _marks(lines: list[str]) -> _Evidence | None:
    """The tool whose agent marks (``⏺``/``●`` or ``✦``) begin more lines, and its first."""
    seen: dict[ConsoleTool, list[int]] = {tool: [] for tool in TOOLS}
    for number, line in enumerate(lines, start=1):
        for tool, marks in _AGENT_MARKS.items():
            if line.startswith(marks):
                seen[tool].append(number)
    found = [tool for tool in TOOLS if seen[tool]]
    if not found:
        return None
    tool = max(found, key=lambda name: (len(seen[name]), -seen[name][0]))
    first = seen[tool][0]
    return _Evidence(tool, first, f"a {lines[first - 1][0]} line")


def _launch(lines: list[str]) -> _Evidence | None:
    """The first non-blank line, when it is the command that started a tool."""
    for number, line in enumerate(lines, start=1):
        if line.strip():
            match = _LAUNCH.match(line.strip())
            if match is None:
                return None
            command = match.group("command")
            tool: ConsoleTool = "gemini" if command == "gemini" else "claude"
            return _Evidence(tool, number, f"the command {command!r}", launch=True)
    return None


def _evidence(lines: list[str]) -> _Evidence | None:
    """What shows ``lines`` are a console copy, and of which tool; None: nothing does."""
    marked = _marks(lines)
    if marked is not None:
        return marked
    for number, line in enumerate(lines, start=1):
        if _CLAUDE_BANNER in line:
            return _Evidence("claude", number, "the welcome banner")
        if _CLAUDE_V2_BANNER.match(line):
            return _Evidence("claude", number, "the Claude Code v2 banner")
        if _GEMINI_TOOL_BOX.match(line):
            return _Evidence("gemini", number, "a tool box")
    return _launch(lines)


def console_tool(text: str) -> ConsoleTool | None:
    """The tool a console copy comes from, read from its content; None: no marks of one."""
    found = _evidence(_lines(text))
    return None if found is None else found.tool


def looks_like_console(text: str) -> bool:
    """True when ``text`` holds a console copy's marks (a command line needs a prompt too)."""
    lines = _lines(text)
    found = _evidence(lines)
    if found is None:
        return False
    return not found.launch or any(line.startswith("> ") for line in lines)


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


def _wrapped(lines: list[str]) -> bool:
    """True when the copy is Claude Code v2's: its banner or logo, or a ``●`` mark, shows it.

    Its ``/export`` writes a wrapped prompt's later lines at column 0, not indented. A copy
    that starts mid-session with ``⏺`` marks (macOS) shows neither; there its prompts tell:
    more of them go on at column 0 on the very next line than on an indented one (v1 indents
    a wrapped prompt's later lines; at column 0 right under a prompt it writes only its exit
    summary, ``Total cost: ...``).
    """
    if any(line.startswith("●") or _CLAUDE_V2_BANNER.match(line) for line in lines):
        return True
    column0 = indented = 0
    for line, after in itertools.pairwise(lines):
        if not line.startswith(("> ", POINTER_PROMPT)) or not after.strip():
            continue
        if after[0] in " \t":
            indented += not after.lstrip().startswith("⎿")  # a ⎿ output line tells nothing
        elif not after.startswith(_WRAPPED_PROMPT_ENDS) and not _EXIT_SUMMARY.match(after):
            column0 += 1
    return column0 > indented


def _wraps_on(block: _Block | None, line: str) -> bool:
    """True when a column-0 ``line`` of a v2 copy goes on the prompt ``block`` (no output yet)."""
    return (
        block is not None
        and block.kind == "prompt"
        and not block.boxed
        and not block.outputs
        and not line.startswith(_WRAPPED_PROMPT_ENDS)
    )


def _blocks(
    lines: list[str], tool: ConsoleTool, skipped: int | None, wrapped: bool = False
) -> list[_Block]:
    """Group the lines (but line ``skipped``) into prompt, agent, box and skipped blocks.

    ``wrapped``: a prompt goes on over column-0 lines too (:func:`_wrapped`).
    """
    blocks: list[_Block] = []
    current: _Block | None = None
    for index, line in enumerate(lines):
        number = index + 1
        if number == skipped or _LOGO.match(line):
            current = None
        elif tool == "gemini" and _box_part(line):
            current = _gemini_box(current, line, number)
            if current is not None and (not blocks or blocks[-1] is not current):
                blocks.append(current)
        elif line.lstrip(" ").startswith("⎿"):
            if current is not None and current.kind != "skip":
                current.outputs.append([line.lstrip(" ")[1:].strip()])
        elif not line.strip() or line.startswith(" "):
            _continue(current, line)
        else:
            opened = _opened(lines, index, tool)
            if opened is None and wrapped and _wraps_on(current, line):
                _continue(current, line)
                continue
            current = opened
            if current is not None:
                blocks.append(current)
    return blocks


def _opened(lines: list[str], index: int, tool: ConsoleTool) -> _Block | None:
    """The block a column-0 line opens, or None: it is not read (banner, tips, costs)."""
    line, number = lines[index], index + 1
    if line.startswith("> "):
        return _Block("prompt", number, [line[2:]])
    if tool == "claude" and line.startswith(POINTER_PROMPT):
        typed = pointer_prompt(lines, index)
        return None if typed is None else _Block("prompt", number, [typed], padded=True)
    if line.startswith(_AGENT_MARKS[tool]):
        return _Block("agent", number, [line[1:].strip()])
    if line.startswith(_THINKING):
        return _Block("skip", number, [])
    typed = _shortcut_input(lines, index)
    return None if typed is None else _Block("prompt", number, [typed])


def _shortcut_input(lines: list[str], index: int) -> str | None:
    """A memory (``# rule``) or bash-mode (``! command``) line typed at the prompt, or None.

    Only a line with a blank line (or nothing) above it and Claude Code's ``⎿`` answer as
    the next non-blank line counts, so a heading in agent text or tool output never does.
    """
    typed = _SHORTCUT.match(lines[index])
    if typed is None or (index > 0 and lines[index - 1].strip()):
        return None
    following = next((lines[i] for i in range(index + 1, len(lines)) if lines[i].strip()), "")
    if not following.lstrip(" ").startswith("⎿"):
        return None
    return f"{typed.group('mark')} {typed.group('text').strip()}"


def _gemini_box(current: _Block | None, line: str, number: int) -> _Block | None:
    """Open, fill or close a Gemini box; return the block that stays open.

    A box whose first line reads ``> …`` is a prompt (newer Gemini CLI boxes each prompt),
    any other box a tool call.
    """
    part = _box_part(line)
    if part == "open":
        return _Block("box", number, [], boxed=True)
    if current is None or not current.boxed or part == "close":
        return None
    content = _box_content(line)
    if current.kind == "box" and not current.lines and content.startswith("> "):
        current.kind, current.line, content = "prompt", number, content[2:]
    current.lines.append(content)
    return current


def _prompt_turn(block: _Block) -> ConsoleTurn:
    lines = [line.rstrip() for line in block.lines] if block.padded else block.lines
    text = typed_breaks("\n".join(lines)).strip()
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
        The tool the content shows and every turn, in file order: one ``user`` or
        ``summary`` turn per human input, one ``assistant`` turn per agent message or tool
        call.

    Raises:
        ImportFormatError: Nothing shows a Claude Code or Gemini CLI copy, or one that does
            holds no human input (the message names the line that shows the tool).
    """
    lines = _lines(text)
    found = _evidence(lines)
    if found is None:
        raise ImportFormatError(f"{source}: not a console copy: {NO_MARKS}")
    turns: list[ConsoleTurn] = []
    skipped = found.line if found.launch else _launch_line(lines)
    wrapped = found.tool == "claude" and _wrapped(lines)
    for block in _blocks(lines, found.tool, skipped, wrapped):
        if block.kind == "prompt":
            turns.append(_prompt_turn(block))
        elif block.kind == "agent":
            turns.append(_agent_turn(block))
        elif block.kind == "box":
            turn = _box_turn(block)
            if turn is not None:
                turns.append(turn)
    if not any(turn.role != "assistant" for turn in turns):
        raise ImportFormatError(
            f"{source}:{found.line}: a {TOOL_NAMES[found.tool]} console copy ({found.what}), "
            "but no line is a human input: a prompt begins '> ' (or '\u276f ') at column 0"
        )
    return ConsoleSession(found.tool, tuple(turns))


def _launch_line(lines: list[str]) -> int | None:
    """The line of the command that started the tool, when the copy begins with one."""
    found = _launch(lines)
    return None if found is None else found.line


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
    """Parse a console copy into a session log (harness: the tool its content shows).

    Turn indexes are 0-based line numbers of the file, so ``<harness>:<session>:<index>``
    points at line ``index + 1``. The session id is derived from the file name.

    Raises:
        ImportFormatError: As :func:`read_console`, or the file is not UTF-8.
    """
    session = read_console(decode(data, name), name)
    turns = [_logged(turn) for turn in session.turns]
    return imported_log(session.tool, session_id_from_name(name), data, turns)
