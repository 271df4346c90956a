"""Console copies (Claude Code and Gemini CLI terminals) read into turns and session logs."""

from __future__ import annotations

import pytest

from lorebook.importers import guess_format, import_bytes
from lorebook.importers.common import ImportFormatError
from lorebook.importers.console import parse_console, read_console, read_console_file
from tests.conftest import SHARED

CONSOLE = SHARED / "eval" / "transcripts" / "claude-console"
needs_console = pytest.mark.skipif(
    not CONSOLE.is_dir(), reason=f"evaluation data absent: {CONSOLE} (shared/ beside the repo)"
)

COPY = """claude
╭──────────────────────────────╮
│ ✻ Welcome to Claude Code!    │
╰──────────────────────────────╯

> run the tests, and
  make sure they pass

⏺ I'll run them.

  Then report back.

⏺ Bash(uv run pytest -q
      --maxfail=1)…
\u00a0\u00a0⎿ \u00a03 passed

> no, never bare pytest: use the Makefile

✻ Thinking…

  The user wants make test.

⏺ Bash(rm -rf build)…
  ⎿  No (tell Claude what to do differently)

> /cost
  ⎿  Total cost: $0.10

> # always run make test before committing

> This session is being continued from a previous conversation that ran out of context.
  <analysis>

  Summary here.

Total cost:            $8.67
"""


def test_a_copy_becomes_prompts_messages_and_calls() -> None:
    session = read_console(COPY, "day.md")
    assert session.tool == "claude"
    assert [(t.role, t.line) for t in session.prompts] == [
        ("user", 6),
        ("user", 17),
        ("user", 26),
        ("user", 29),
        ("summary", 31),
    ]
    first, correction, cost, memory, summary = session.prompts
    assert first.text == "run the tests, and\nmake sure they pass"
    assert correction.text == "no, never bare pytest: use the Makefile"
    assert cost.text == "/cost"
    assert memory.text == "# always run make test before committing"
    assert summary.text.endswith("Summary here.")
    agent = [t for t in session.turns if t.role == "assistant"]
    assert [t.line for t in agent] == [9, 13, 23]
    assert agent[0].text == "I'll run them.\n\nThen report back."
    assert (agent[1].tool, agent[1].arguments, agent[1].output) == (
        "Bash",
        "uv run pytest -q --maxfail=1",
        "3 passed",
    )
    assert not agent[1].failed
    assert agent[2].failed
    assert not any("make test." in t.text for t in session.turns)  # thinking is left out


def test_a_copy_as_a_session_log() -> None:
    log = parse_console(COPY.encode(), "/x/day-002.md")
    assert (log.harness, log.session_id, log.origin) == ("claude", "day-002", "claude:day-002")
    assert [turn.index for turn in log.turns] == [5, 8, 12, 16, 22, 25, 28, 30]
    refused = log.turns[4].tool_calls[0]
    assert refused.is_error
    assert refused.result_excerpt == "No (tell Claude what to do differently)"
    assert log.turns[2].tool_calls[0].result_excerpt is None  # success output is not kept
    assert guess_format(COPY.encode(), "x") == "console"


def test_line_one_must_name_the_tool() -> None:
    with pytest.raises(ImportFormatError, match=r"s\.md:1: not a console copy"):
        import_bytes(b"bash\n> hi\n", "s.md", "console")
    with pytest.raises(ImportFormatError, match="without any '> ' prompt"):
        read_console("claude\n\n⏺ hello\n", "s.md")


GEMINI = """gemini

> check the tests

 ╭──────────────────────────╮
 │ ✔  Shell pytest --spec   │
 │                          │
 │    14 passed             │
 ╰──────────────────────────╯
✦ All green.
  Nothing to fix.
 ╭───────────────────────────────────────
 │ -  Edit docs/a.md: old => new  │
 ╰───────────────────────────────────────

> No need to reorder the books
"""


def test_a_gemini_copy_is_read() -> None:
    session = read_console(GEMINI, "g.md")
    assert session.tool == "gemini"
    assert [t.text for t in session.prompts] == ["check the tests", "No need to reorder the books"]
    shell, message, edit = (t for t in session.turns if t.role == "assistant")
    assert (shell.tool, shell.arguments, shell.output, shell.failed) == (
        "Shell",
        "pytest --spec",
        "14 passed",
        False,
    )
    assert message.text == "All green.\nNothing to fix."
    assert (edit.tool, edit.failed) == ("Edit", True)
    assert parse_console(GEMINI.encode(), "g.md").harness == "gemini"


@needs_console
@pytest.mark.parametrize(
    ("name", "tool", "prompts", "marks"),
    [
        ("day-002.md", "claude", 39, 301),
        ("day-004.md", "claude", 109, 548),
        ("day-014.md", "gemini", 8, 39),
    ],
)
def test_recorded_copies_parse_to_their_counts(
    name: str, tool: str, prompts: int, marks: int
) -> None:
    path = CONSOLE / name
    lines = path.read_text(encoding="utf-8").splitlines()
    session = read_console_file(path)
    assert session.tool == tool
    assert len(session.prompts) == prompts == sum(line.startswith("> ") for line in lines)
    assert all(lines[turn.line - 1].startswith("> ") for turn in session.prompts)
    mark = "⏺" if tool == "claude" else "✦"
    agent_lines = [t.line for t in session.turns if t.role == "assistant"]
    marked = [n for n, line in enumerate(lines, start=1) if line.startswith(mark)]
    assert len(marked) == marks
    assert set(marked) <= set(agent_lines)
    for turn in session.prompts:  # no prompt text comes from tool output
        assert "⎿" not in turn.text


@needs_console
def test_recorded_copy_keeps_a_correction_after_a_refused_call() -> None:
    session = read_console_file(CONSOLE / "day-004.md")
    at = {turn.line: turn for turn in session.turns}
    assert at[3467].text.startswith("no, `mv` it back and then `git mv` it.")
    before = [t for t in session.turns if t.line < 3467][-1]
    assert before.role == "assistant"
    assert sum(turn.role == "summary" for turn in session.turns) == 3
