"""The pre-selection: what an LLM extractor is shown of a session, and what it is not."""

from __future__ import annotations

from lorebook.extractors.cues import emphatic, rule_question
from lorebook.extractors.llm import preselect
from lorebook.extractors.preselect import CONTEXT_WORDS, select_turns
from lorebook.models.session import LoggedToolCall, LoggedTurn


def session(*turns: tuple[str, str] | LoggedTurn) -> list[LoggedTurn]:
    """Turns from ``(role, text)`` pairs (or ready turns), indexed in order."""
    built: list[LoggedTurn] = []
    for item in turns:
        turn = (
            item
            if isinstance(item, LoggedTurn)
            else LoggedTurn(index=0, role=item[0], text=item[1])
        )
        built.append(turn.model_copy(update={"index": len(built)}))
    return built


def refused(name: str) -> LoggedTurn:
    """An agent turn whose tool call the human refused."""
    call = LoggedToolCall(
        name=name, result_excerpt="No (tell Claude what to do differently)", is_error=True
    )
    return LoggedTurn(index=0, role="assistant", text="", tool_calls=[call])


def sent_texts(turns: list[LoggedTurn]) -> list[str]:
    return [turn.text for turn in select_turns(turns)]


def test_a_turn_answering_a_refused_action_is_sent_with_that_action() -> None:
    turns = session(
        ("user", "Move the setup notes into docs."),
        ("assistant", "I'll read the file and write a new one."),
        refused("Write"),
        ("user", "Cant you mv it?"),
    )
    chosen = select_turns(turns)
    assert [t.index for t in chosen] == [0, 1, 2, 3]
    assert chosen[2].tool_calls[0].name == "Write"


def test_approvals_slash_commands_pasted_logs_and_summaries_are_not_sent() -> None:
    pasted = "\n".join(f"    at frame{i} (src/x.ts:{i}:1)" for i in range(30))
    turns = session(
        ("assistant", "Shall I go on?"),
        ("user", "OK"),
        ("assistant", "Done."),
        ("user", "yes, go ahead"),
        ("assistant", "Done."),
        ("user", "/cost"),
        ("assistant", "Done."),
        ("user", pasted),
        ("summary", "This session is being continued from a previous conversation."),
        ("user", "1"),
    )
    assert select_turns(turns) == []
    assert preselect(turns).sent_words == 0


def test_what_was_pasted_into_a_typed_turn_is_left_out_with_a_count() -> None:
    frames = [f"    at frame{i} (src/x.ts:{i}:1)" for i in range(30)]
    typed = "It crashes again, see:\n" + "\n".join(frames) + "\n\nNever retry on a 4xx."
    turns = session(("assistant", "Done."), ("user", typed))
    _, human = select_turns(turns)
    assert human.text == (
        "It crashes again, see:\n[30 pasted lines left out]\n\nNever retry on a 4xx."
    )
    assert preselect(turns).sent_words < preselect(turns).total_words / 4


def test_every_turn_typed_as_prose_is_sent_questions_and_requests_too() -> None:
    teaching = [
        "shouldn't that be in docs, and the filename shouldn't shout?",
        "we can drop the comment, right?",
        "I'd rather exclude the diary folder from the checks.",
        "use `@clack/prompts` instead of bun-promptx",
        "Please don't write docstrings in specs.",
        "do it yourself",
        "# the staging database is read-only",
    ]
    plain = ["what is hatchling?", "also update the one in stories"]
    turns = session(
        *[pair for text in teaching + plain for pair in (("assistant", "ok"), ("user", text))]
    )
    assert [text for text in sent_texts(turns) if text != "ok"] == teaching + plain


def test_the_agent_context_is_cut_to_its_end() -> None:
    long_answer = " ".join(f"w{i}" for i in range(1000)) + " Shall I pin the versions?"
    turns = session(("assistant", long_answer), ("user", "No. We never pin versions here."))
    context, human = select_turns(turns)
    assert context.text.endswith("Shall I pin the versions?")
    assert "w0 " not in context.text
    assert len(context.text.split()) <= CONTEXT_WORDS + 1
    assert human.text == "No. We never pin versions here."
    selection = preselect(turns)
    assert selection.sent_words < selection.total_words / 5


def test_emphasis_is_punctuation_or_a_shouted_word_not_a_name_in_capitals() -> None:
    assert emphatic("Proper Git hygiene, Claude!")
    assert emphatic("I want YOU to reproduce it first")
    assert emphatic("think harder, ULTRATHINK")
    assert not emphatic("update the README and the TOML file")
    assert not emphatic("print the ZEBRAFISH banner when the build finishes")


def test_a_question_carries_a_rule_when_its_auxiliary_is_negated_or_it_asks_for_agreement() -> None:
    assert rule_question("doesn't git have `mv` equivalent?")
    assert rule_question("Can't we make the latest python a dependency?")
    assert rule_question("should `resolveRepoPath` be in tasks?")
    assert rule_question("the file should be called library_spec.py, right?")
    assert not rule_question("is the description permanent?")
    assert not rule_question("what are the __init__.py files everywhere?")


def test_a_pasted_terminal_a_pasted_document_and_a_long_paste_are_cut() -> None:
    terminal = "\n".join(
        [
            "(google-env) me@Mac proj % ./cleanup.sh",
            *[f"removing model-{i}" for i in range(40)],
            "",
            "Always back up the models before a cleanup.",
        ]
    )
    document = "# Implementation Toolkit\n\n" + "\n".join(
        f"Step {i} of the plan." for i in range(400)
    )
    long_paste = " ".join(f"word{i}" for i in range(1000))
    turns = session(
        ("assistant", "Done."),
        ("user", terminal),
        ("assistant", "Done."),
        ("user", document),
        ("assistant", "Done."),
        ("user", long_paste),
    )
    human = [t.text for t in select_turns(turns) if t.role == "user"]
    assert human[0] == "[41 pasted lines left out]\n\nAlways back up the models before a cleanup."
    assert human[1].startswith("[1 pasted line left out]\n\nStep 0 of the plan.")  # not a # line
    assert "[… 1755 words left out …]" in human[1]  # 2,005 words, 250 kept
    assert human[2].startswith("word0 word1 ")
    assert "word199 [… 750 words left out …] word950" in human[2]
    assert human[2].endswith("word999")


def test_box_drawing_quoted_in_a_code_span_is_typed_prose_a_panel_is_not() -> None:
    typed = (
        "worked well, however in step 4 the header shows the line starting `┌Files──`,"
        " please update the captures for the rest of the tests"
    )
    panel = (
        "╭──────────────────────────╮\n│ ✻ Welcome to Claude Code │\n╰──────────────────────────╯"
    )
    turns = session(("user", typed), ("assistant", "Done."), ("user", panel))
    assert sent_texts(turns) == [typed]
