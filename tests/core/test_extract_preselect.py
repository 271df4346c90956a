"""The pre-selection: what an LLM extractor is shown of a session, and what it is not."""

from __future__ import annotations

from lorebook.extract.cues import emphatic, rule_question
from lorebook.extract.llm import preselect
from lorebook.extract.preselect import CONTEXT_WORDS, select_turns
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
    assert [t.index for t in chosen] == [1, 2, 3]
    assert chosen[1].tool_calls[0].name == "Write"


def test_approvals_slash_commands_pasted_logs_and_summaries_are_not_sent() -> None:
    pasted = "\n".join(["here:", *[f"    at frame{i} (src/x.ts:{i}:1)" for i in range(30)]])
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


def test_rules_preferences_and_rule_carrying_questions_are_sent_plain_questions_are_not() -> None:
    teaching = [
        "shouldn't that be in docs, and the filename shouldn't shout?",
        "we can drop the comment, right?",
        "I'd rather exclude the diary folder from the checks.",
        "use `@clack/prompts` instead of bun-promptx",
        "Please don't write docstrings in specs.",
        "do it yourself",
        "# the staging database is read-only",
    ]
    plain = ["what is hatchling?", "how does it determine which branch to compare to?"]
    turns = session(
        *[pair for text in teaching + plain for pair in (("assistant", "ok"), ("user", text))]
    )
    assert [text for text in sent_texts(turns) if text != "ok"] == teaching


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
