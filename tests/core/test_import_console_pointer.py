# ruff: noqa: RUF001, RUF002  (the copies hold the pointer U+276F and other look-alikes on purpose)
"""Console copies of newer Claude Code (2.1.x), whose prompts are shown ``❯ prompt``.

The shapes are real, the text is made up:

* ``EXPORT`` follows the ``/export`` files Claude Code v2.1.2 wrote in
  tonyandrewmeyer/sungather-k8s-operator (Apache-2.0), commit 0cfd74a8, ``.claude/logs/*.txt``:
  the logo, ``❯ `` prompts padded with spaces to the terminal's width and wrapped onto lines
  indented two spaces, ``●`` messages and tool calls with ``⎿`` output, ``✻ Cooked for …``
  lines, a ``⎿`` answer under a prompt, and a bare ``❯ 1`` answering a numbered question.
* ``SCREEN`` follows what ``tmux capture-pane`` showed of Claude Code 2.1.197 (run against
  a mock model server): the input box (``❯`` and a no-break space between two ``─`` rules)
  and a Bash permission dialog whose cursor reads `` ❯ 1. Yes``.
* ``QUESTION`` follows an AskUserQuestion widget of 2.1.295 quoted in a public notes file:
  its cursor ``❯ 1. Phased`` is at column 0, the other options under it at column 2.
"""

from __future__ import annotations

import re

from lorebook.importers import guess_format
from lorebook.importers.console import looks_like_console, parse_console, read_console


def _padded(text: str) -> str:
    """``text`` with each run of ``~`` that ends a line made spaces, as Claude Code pads prompts."""
    return re.sub(r"~+$", lambda run: " " * len(run.group()), text, flags=re.MULTILINE)


EXPORT = _padded("""
 ▐▛███▜▌   Claude Code v2.1.2
▝▜█████▛▘  Sonnet 4.5 · Claude Pro
  ▘▘ ▝▝    ~/weather-operator

❯ the integration tests would be better with a fake station server to query.~~~
  could you write a small one that the charm can reach on a local address?~~~~~

● Good idea. Let me look at the current tests first.

● Search(pattern: "tests/integration/*.py")
  ⎿  Found 2 files (ctrl+o to expand)

● Read(src/charm.py)
  ⎿  Read 120 lines

● Here are two ways to do it:

  1. A tiny HTTP server started by the test fixture
  2. A separate container deployed next to the charm

  Which would you like?

✻ Cooked for 1m 12s

❯ 1~

● Bash(uv run pytest tests/integration -q)
  ⎿  Error: Exit code 1
     FAILED tests/integration/test_charm.py::test_station - TimeoutError
     … +12 lines (ctrl+o to see all)

❯ never run the integration tests without `tox -e integration`: it sets up~~~~
  the model first.~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
  ⎿  You've hit your limit · resets 11am (UTC)

❯ Continue~

● Bash(tox -e integration)
  ⎿  2 passed in 81.20s

✻ Sautéed for 3m 4s

❯ /export~
  ⎿  Conversation exported to: 2026-01-10-the-integration-tests.txt
""")

SCREEN = """
 ▐▛███▜▌   Claude Code v2.1.197
▝▜█████▛▘  Sonnet 4.5 · API Usage Billing
  ▘▘ ▝▝    /home/me/proj

❯ remove the stale build folder

● Bash(rm -rf build)
  ⎿ \u00a0Waiting…

────────────────────────────────────────────────────────────
 Bash command

   rm -rf build
   Remove the stale build folder

 Do you want to proceed?
 ❯ 1. Yes
   2. Yes, and always allow access to build/ from this project
   3. No

 Esc to cancel · Tab to amend · ctrl+e to explain
"""

INPUT_BOX = """
 ▐▛███▜▌   Claude Code v2.1.197
▝▜█████▛▘  Sonnet 4.5 · API Usage Billing
  ▘▘ ▝▝    /home/me/proj

❯ fix the failing tests please

● hi

✻ Churned for 0s

────────────────────────────────────────────────────────────
❯\u00a0
────────────────────────────────────────────────────────────
  ? for shortcuts · ← for agents
"""

QUESTION = """
 ▐▛███▜▌   Claude Code v2.1.295
▝▜█████▛▘  Opus 4.5 · Claude Max
  ▘▘ ▝▝    ~/shop

❯ plan the rollout of the new checkout

● AskUserQuestion(questions: [{"question": "Which rollout plan do you want?"}])

────────────────────────────────────────────────────────────
 ☐ Rollout

Which rollout plan do you want?

<first>1. Phased
     Payments first, then the rest.
<second>2. All at once
     One release for everything
  3. Type something.
────────────────────────────────────────────────────────────
  4. Chat about this

Enter to select · ↑/↓ to navigate · Esc to cancel
"""


def test_pointer_prompts_are_the_human_inputs() -> None:
    session = read_console(EXPORT, "export.txt")
    assert session.tool == "claude"
    assert [(turn.role, turn.line, turn.text) for turn in session.prompts] == [
        (
            "user",
            6,
            "the integration tests would be better with a fake station server to query.\n"
            "could you write a small one that the charm can reach on a local address?",
        ),
        ("user", 26, "1"),
        (
            "user",
            33,
            "never run the integration tests without `tox -e integration`: it sets up\n"
            "the model first.",
        ),
        ("user", 37, "Continue"),
        ("user", 44, "/export"),
    ]
    calls = [(turn.tool, turn.arguments, turn.failed) for turn in session.turns if turn.tool]
    assert calls == [
        ("Search", 'pattern: "tests/integration/*.py"', False),
        ("Read", "src/charm.py", False),
        ("Bash", "uv run pytest tests/integration -q", True),
        ("Bash", "tox -e integration", False),
    ]
    messages = [turn.text for turn in session.turns if turn.role == "assistant" and not turn.tool]
    assert messages[1].startswith("Here are two ways to do it:\n\n1. A tiny HTTP server")


def test_a_pointer_copy_is_recognised_and_imported() -> None:
    assert looks_like_console(EXPORT)
    assert guess_format(EXPORT.encode(), "export.txt") == "console"
    log = parse_console(EXPORT.encode(), "export.txt")
    assert log.harness == "claude"
    assert [turn.index for turn in log.turns if turn.role == "user"] == [5, 25, 32, 36, 43]


def test_a_permission_menu_is_no_human_input() -> None:
    indented = read_console(SCREEN, "screen.txt")
    assert [turn.text for turn in indented.prompts] == ["remove the stale build folder"]
    # the same dialog copied without its one-space margin: its cursor line is at column 0
    flush = "\n".join(line.removeprefix(" ") for line in SCREEN.split("\n"))
    session = read_console(flush, "screen.txt")
    assert [turn.text for turn in session.prompts] == ["remove the stale build folder"]
    assert [turn.tool for turn in session.turns if turn.tool] == ["Bash"]


def test_a_question_menu_is_no_human_input_wherever_its_cursor_is() -> None:
    for first, second in (("❯ ", "  "), ("  ", "❯ ")):
        session = read_console(
            QUESTION.replace("<first>", first).replace("<second>", second), "q.txt"
        )
        assert [turn.text for turn in session.prompts] == ["plan the rollout of the new checkout"]


def test_the_input_box_is_no_human_input() -> None:
    session = read_console(INPUT_BOX, "box.txt")
    assert [turn.text for turn in session.prompts] == ["fix the failing tests please"]
    typed = INPUT_BOX.replace("❯\u00a0\n", "❯ a draft not yet sent\n")
    assert [turn.text for turn in read_console(typed, "box.txt").prompts] == [
        "fix the failing tests please"
    ]


def test_a_numbered_list_typed_as_a_prompt_is_one() -> None:
    copy = """ ▐▛███▜▌   Claude Code v2.1.2

❯ 1. rename the module
  2. update its imports

● Update(src/app.py)
  ⎿  Updated src/app.py with 2 additions
"""
    session = read_console(copy, "list.txt")
    assert [turn.text for turn in session.prompts] == [
        "1. rename the module\n2. update its imports"
    ]


def test_memory_bash_and_column0_wrapped_pointer_prompts() -> None:
    copy = """ ▐▛███▜▌   Claude Code v2.1.2

❯ # always run make test before committing
  ⎿  Got it.

❯ ! git status
  ⎿  On branch main

❯ a prompt whose wrapped part the export
wrote at column 0, as v2.0 did

● Done.
"""
    session = read_console(copy, "mixed.txt")
    assert [turn.text for turn in session.prompts] == [
        "# always run make test before committing",
        "! git status",
        "a prompt whose wrapped part the export\nwrote at column 0, as v2.0 did",
    ]


def test_a_gemini_copy_does_not_read_shell_pointer_lines() -> None:
    copy = """✦ I updated the file.

> thanks

✦ You're welcome.

❯ git status
On branch main
"""
    session = read_console(copy, "gemini.txt")
    assert session.tool == "gemini"
    assert [turn.text for turn in session.prompts] == ["thanks"]
