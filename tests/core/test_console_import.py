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


BODY = COPY.split("\n", 1)[1]
"""COPY without its line 1 (``claude``): it starts with the welcome banner."""

BANNER = """╭───────────────────────────────────────────────────╮
│ ✻ Welcome to Claude Code!                         │
│                                                   │
│   /help for help, /status for your current setup  │
╰───────────────────────────────────────────────────╯
"""


@pytest.mark.parametrize(
    "first",
    [
        "claude\n",
        "claude-trace\n",
        "claude-trace --include-all-requests\n",
        "claude --model opus\n",
        "user@host ~/proj % claude\n",
        "(.venv) me@box:~/proj$ claude --resume\n",
        "➜  proj git:(main) ✗ claude\n",
        "\n\n\nclaude\n",
        "",
    ],
    ids=[
        "claude",
        "trace",
        "trace-options",
        "model",
        "zsh",
        "bash",
        "oh-my-zsh",
        "blank-lines",
        "banner",
    ],
)
def test_a_copy_is_recognised_whatever_its_first_line(first: str) -> None:
    text = first + BODY
    shift = first.count("\n") - 1
    assert guess_format(text.encode(), "day.md") == "console"
    session = read_console(text, "day.md")
    assert session.tool == "claude"
    expected = read_console(COPY, "day.md")
    assert [(t.role, t.text, t.line + shift) for t in expected.turns] == [
        (t.role, t.text, t.line) for t in session.turns
    ]


@pytest.mark.parametrize(
    ("text", "tool"),
    [
        (BANNER + "\n> hi\n", "claude"),  # the banner alone says Claude Code
        ("me@host ~/proj % gemini\n\n> hi\n", "gemini"),  # so does the command started
        ("\n> hi\n\n✦ Hello.\n", "gemini"),  # and the agent's mark
        ("claude\n> hi\n\n✦ Hello.\n", "gemini"),  # the content wins over a line 1
    ],
    ids=["banner", "command", "mark", "mark-over-command"],
)
def test_the_tool_is_read_from_the_content(text: str, tool: str) -> None:
    assert guess_format(text.encode(), "x.md") == "console"
    assert read_console(text, "x.md").tool == tool


def test_a_file_without_console_marks_is_not_a_console_copy() -> None:
    with pytest.raises(ImportFormatError, match=r"s\.md: not a console copy: no Claude Code"):
        import_bytes(b"bash\n> hi\n", "s.md", "console")
    with pytest.raises(ImportFormatError, match="not a format lorebook can import"):
        guess_format(b"some notes\n> a quote, and claude is not a command here\n", "s.md")


def test_a_recognised_copy_without_human_input_names_file_line_and_why() -> None:
    text = "claude\n\n⏺ hello\n"
    message = r"s\.md:3: a Claude Code console copy \(a ⏺ line\), but no line is a human input"
    with pytest.raises(ImportFormatError, match=message):
        read_console(text, "s.md")
    with pytest.raises(ImportFormatError, match=message):
        import_bytes(text.encode(), "s.md")  # guessed as a console copy, then refused


INPUTS = """claude
> run the specs

⏺ ## Coverage, explained

### 1. Line 32 is not covered
# A heading of the agent's, at column 0 as newer copies show it

⏺ Bash(cat conftest.py)
  ⎿  import pytest

# a comment in the file it printed
     … +3 lines (ctrl+r to expand)

# ONE SCENARIO AT A TIME!
  ⎿  Noted.

! pytest --spec
  ⎿  3 passed

> # keep fixtures small
  ⎿  Got it.

> ! git status
  ⎿  nothing to commit

!!! a note the person added by hand after the session
"""


def test_memory_and_bash_mode_lines_are_human_inputs() -> None:
    session = read_console(INPUTS, "day.md")
    assert [(t.role, t.text, t.line) for t in session.prompts] == [
        ("user", "run the specs", 2),
        ("user", "# ONE SCENARIO AT A TIME!", 15),
        ("user", "! pytest --spec", 18),
        ("user", "# keep fixtures small", 21),
        ("user", "! git status", 24),
    ]
    log = parse_console(INPUTS.encode(), "day.md")
    assert [t.text for t in log.turns if t.role == "user"][1] == "# ONE SCENARIO AT A TIME!"


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


BOXED = """gemini

╭─────────────────────╮
│  > check the tests  │
╰─────────────────────╯

 ╭──────────────────────────╮
 │ ✔  Shell pytest --spec   │
 ╰──────────────────────────╯
✦ All green.

╭───────────────────────────────────────────
│  > good, but we don't need the excessive  │
│    comments                               │
╰───────────────────────────────────────────
"""


def test_a_gemini_copy_with_boxed_prompts_is_read() -> None:
    session = read_console(BOXED, "g.md")
    assert session.tool == "gemini"
    assert [(t.text, t.line) for t in session.prompts] == [
        ("check the tests", 4),
        ("good, but we don't need the excessive\ncomments", 13),
    ]
    assert [t.tool for t in session.turns if t.role == "assistant"] == ["Shell", None]


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


def _first_lines(tool: str) -> list[str]:
    """Line 1s a console copy of ``tool`` may start with (``""``: none, its banner first)."""
    if tool == "gemini":
        return ["gemini --model gemini-2.5-pro\n", "me@host ~/proj % gemini\n", "\n\ngemini\n", ""]
    return [
        "claude-trace\n",
        "claude-trace --include-all-requests\n",
        "claude --model opus\n",
        "user@host ~/proj % claude\n",
        "\n\nclaude\n",
        "",
    ]


RECORDED = {"day-002.md": "claude", "day-004.md": "claude", "day-014.md": "gemini"}


@needs_console
@pytest.mark.parametrize(
    ("name", "first"),
    [(name, first) for name, tool in RECORDED.items() for first in _first_lines(tool)],
    ids=lambda value: value.rstrip("\n").replace("\n", "blank+") or "no-command-line",
)
def test_recorded_copies_are_read_whatever_their_first_line(name: str, first: str) -> None:
    original = (CONSOLE / name).read_text(encoding="utf-8")
    expected = read_console(original, name)
    text = first + original.split("\n", 1)[1]
    shift = first.count("\n") - 1
    assert guess_format(text.encode(), name) == "console"
    session = read_console(text, name)
    assert session.tool == RECORDED[name]
    assert [(t.role, t.text, t.line) for t in session.turns] == [
        (t.role, t.text, t.line + shift) for t in expected.turns
    ]


V2_EXPORT = """
╭─── Claude Code v2.0.47 ──────────────────────────────────────────────────────╮
│                                          │ Tips for getting started          │
│             Welcome back Ada!            │ Run /init to create a CLAUDE.md…  │
│                 ▐▛███▜▌                  │ ───────────────────────────────── │
│                ▝▜█████▛▘                 │ Recent activity                   │
│                  ▘▘ ▝▝                   │ No recent activity                │
│        Sonnet 4.5 · Claude Max           │                                   │
╰──────────────────────────────────────────────────────────────────────────────╯
══════════════════ Conversation compacted · ctrl+o for history ═════════════════
  ⎿  Read src/loader.py (92 lines)

> /compact   Session summary:

  Done: the loader.
  ⎿  Compacted (ctrl+o to see full summary)

> the loader reads every file twice. Please make it read each\x20
file once, and keep\x20
 the cache in memory only

● I'll read the loader first.

● Read(src/loader.py)
  ⎿  Read 40 lines

∴ Thinking…

  They want a cache in memory.

● Done: one read per file.

> thanks. Next:\\
\\
- add a test\\
- never touch the fixtures folder
✻ Brewed for 2m 3s

> /export notes.txt\x20
  ⎿  Conversation exported to: notes.txt
══════════════════ Conversation compacted · ctrl+o for history ═════════════════

> that is all\x20
"""
"""A Claude Code v2 ``/export`` (made up, shaped as saross/trap-extraction's): line 1 empty,
the v2 banner, ``●`` agent marks, a wrapped prompt's later lines at column 0, prompt lines
ending in a space (``\x20``) as the export writes them."""

V2_PROMPTS = [
    ("/compact   Session summary:\n\nDone: the loader.", 13),
    (
        "the loader reads every file twice. Please make it read each \nfile once, and keep \n"
        "the cache in memory only",
        18,
    ),
    ("thanks. Next:\n\n- add a test\n- never touch the fixtures folder", 33),  # typed breaks
    ("/export notes.txt", 39),
    ("that is all", 43),
]

V2_LOGO = """
 ▐▛███▜▌   Claude Code v2.0.53
▝▜█████▛▘  Opus 4.5 · Claude Max
  ▘▘ ▝▝    /…/proj
"""
V2_STARRY_LOGO = """
 * ▐▛███▜▌ *   Claude Code v2.0.75
* ▝▜█████▛▘ *  Opus 4.5 · Claude Max
 *  ▘▘ ▝▝  *   ~/Downloads/site
"""
"""The logo in its frame of stars (v2.0.75), as a public console copy shows it."""


@pytest.mark.parametrize(
    "text",
    [
        V2_EXPORT,
        V2_EXPORT.replace("●", "⏺"),  # the mark as macOS terminals draw it
        V2_LOGO + V2_EXPORT.split("╯\n", 1)[1],  # the three-line logo for a banner
        V2_STARRY_LOGO + V2_EXPORT.split("╯\n", 1)[1].replace("●", "⏺"),
    ],
    ids=["banner", "macos-mark", "logo", "starry-logo"],
)
def test_a_claude_code_v2_export_is_read(text: str) -> None:
    assert guess_format(text.encode(), "2025-11-21-a.txt") == "console"
    session = read_console(text, "2025-11-21-a.txt")
    assert session.tool == "claude"
    shift = text.count("\n", 0, text.index("══")) - V2_EXPORT.count("\n", 0, V2_EXPORT.index("══"))
    assert [(t.text, t.line) for t in session.prompts] == [
        (prompt, line + shift) for prompt, line in V2_PROMPTS
    ]
    assert all(turn.role == "user" for turn in session.prompts)
    agent = [t for t in session.turns if t.role == "assistant"]
    assert [(t.text, t.tool) for t in agent] == [
        ("I'll read the loader first.", None),
        ("", "Read"),
        ("Done: one read per file.", None),
    ]
    assert not any("cache in memory." in t.text for t in session.turns)  # thinking left out


@pytest.mark.parametrize(
    "text",
    [
        "\n╭─── Claude Code v2.0.47 ─────╮\n│ Welcome back! │\n╰──────────────╯\n\n> hi\n",
        V2_LOGO + "\n> hi\n",
    ],
    ids=["banner", "logo"],
)
def test_the_v2_banner_alone_says_claude_code(text: str) -> None:
    assert guess_format(text.encode(), "x.txt") == "console"
    session = read_console(text, "x.txt")
    assert (session.tool, [t.text for t in session.prompts]) == ("claude", ["hi"])


def test_the_starry_logo_says_v2_so_a_prompt_goes_on_at_column_0() -> None:
    # seen in a public copy (v2.0.75): the logo in its stars was not known, so the tail of
    # "... before you do create a plan of action ..." was lost, the only rule of the session
    text = (
        V2_STARRY_LOGO
        + "\n> lets write the full copy for the website \nplease create a plan first\n\n⏺ Ok.\n"
        + "\n> and this pasted block\n  indented line of it\n\n⏺ Done.\n"
    )
    prompts = [t.text for t in read_console(text, "x.txt").prompts]
    assert prompts[0] == "lets write the full copy for the website \nplease create a plan first"


def test_a_v1_copy_still_ends_a_prompt_at_a_column_0_line() -> None:
    text = "claude\n\n> run the tests\nTotal cost: $0.10\n\n⏺ Done.\n"
    assert [t.text for t in read_console(text, "x.md").prompts] == ["run the tests"]


V2_TYPED_BREAKS = (
    " ▐▛███▜▌   Claude Code v2.0.53\n"
    "\n"
    "> thank you! Next tasks \n"
    "will be:\\\n"
    "\\\n"
    "-Examine the diaries\\\n"
    "-Commit\\\n"
    "\\\n"
    "do not begin these tasks now\n"
    "\n"
    "● Understood.\n"
    "\n"
    "> run this exactly:\n"
    "docker run --rm \\\n"
    "  -v data:/data image\n"
    "\n"
    "● Done.\n"
)


def test_backslashes_typed_to_break_a_prompt_are_not_kept() -> None:
    """Claude Code's backslash-Enter shows as a backslash ending each line of the prompt;
    a shell command's continuation, in a prompt typed without it, keeps its backslash."""
    prompts = [t.text for t in read_console(V2_TYPED_BREAKS).turns if t.role == "user"]
    assert prompts[0] == (
        "thank you! Next tasks \nwill be:\n\n-Examine the diaries\n-Commit\n\n"
        "do not begin these tasks now"
    )
    assert prompts[1] == "run this exactly:\ndocker run --rm \\\n-v data:/data image"


MACOS_V2_MID_SESSION = (
    "      268 +      size: 1,\n"
    "\n"
    "⏺ The themes are in place.\n"
    "\n"
    "> Prior to previewing themes in the Chrome extension, please load them into our \n"
    "previewer application. This approach eliminates the need to modify the settings.\n"
    "\n"
    "⏺ I'll load them into the previewer.\n"
    "\n"
    "> Commit and push these changes.\n"
    "\n"
    "⏺ Bash(git push)\n"
    "  ⎿  Everything up-to-date\n"
    "\n"
    "> Can you create a privacy page, as I have set the redirection link to \n"
    "the following URL?\n"
    "  https://example.org/privacy\n"
    "\n"
    "⏺ Done.\n"
)


def test_a_v2_copy_without_its_banner_reads_prompts_wrapped_at_column_0() -> None:
    """A macOS copy (``⏺`` marks) taken mid-session shows no banner; its prompts' later
    lines at column 0 still belong to them."""
    prompts = [t.text for t in read_console(MACOS_V2_MID_SESSION, "x.md").prompts]
    assert prompts == [
        "Prior to previewing themes in the Chrome extension, please load them into our \n"
        "previewer application. This approach eliminates the need to modify the settings.",
        "Commit and push these changes.",
        "Can you create a privacy page, as I have set the redirection link to \n"
        "the following URL?\nhttps://example.org/privacy",
    ]
