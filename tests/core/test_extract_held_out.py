"""False proposals read on held-out projects (issue 27, item 4), each turned into a
mechanism that explains itself: the layout of a pasted answer, the grammar of a report."""

from __future__ import annotations

from lorebook.extractors.rules import find_teaching_moments
from lorebook.extractors.sentences import is_pasted_document
from lorebook.models.session import LoggedToolCall, LoggedTurn

RULE = "Always run the tests with `uv run pytest`, never bare pytest."

PASTED_ANSWER = """Okay, let's refine the `_create_model_instance` function to be more efficient.

Here's a revised version:

```python
def _create_model_instance(model, data):
    fields = set(model.model_fields)
    return model.model_validate({k: v for k, v in data.items() if k in fields})
```

Key improvements:

1.  **Simplified Logic:** The logic is more compact. If version 2 is detected then `model_validate` is always called.
2.  **Efficiency:** We filter the data *once* based on the model's field names, rather than having different filtering logic for different versions.
"""


def alternate(*texts: str) -> list[LoggedTurn]:
    """User turns, each answered by an agent turn that acted."""
    turns: list[LoggedTurn] = []
    for text in texts:
        turns.append(LoggedTurn(index=len(turns), role="user", text=text))
        turns.append(
            LoggedTurn(
                index=len(turns),
                role="assistant",
                text="Done: I edited the file.",
                tool_calls=[LoggedToolCall(name="Edit", input={"file_path": "src/app.py"})],
            )
        )
    return turns


def test_a_pasted_answer_with_bold_labelled_items_is_not_proposed() -> None:
    turns = alternate(PASTED_ANSWER, RULE)
    found = find_teaching_moments(turns)
    assert [turns[c.turn].text for c in found] == [RULE]


def test_one_bold_item_is_emphasis_not_a_pasted_answer() -> None:
    typed = "Two things:\n\n- **never** push to main\n- run the linter first"
    assert not is_pasted_document(typed)
    assert is_pasted_document(PASTED_ANSWER)


def test_a_bug_report_that_something_does_not_work_is_not_a_gotcha() -> None:
    turns = alternate(
        "Context does not work properly. Take a look at it and fix.",
        "it does not work. But first fix the issue with the missing PIL dependency.",
        RULE,
    )
    found = find_teaching_moments(turns)
    assert [turns[c.turn].text for c in found] == [RULE]


def test_what_does_not_work_under_a_condition_is_still_a_gotcha() -> None:
    gotcha = "The `--fix` flag doesn't work with the monorepo config, run eslint per package."
    turns = alternate(gotcha)
    found = find_teaching_moments(turns)
    assert [(turns[c.turn].text, c.kind) for c in found] == [(gotcha, "gotcha")]


def test_you_need_to_in_a_relative_clause_is_not_an_obligation() -> None:
    task = "Gather all the data you need to create a plan and plan the actual implementation"
    rule = "When the schema changes you need to regenerate the client with `make gen`."
    turns = alternate(task, rule)
    found = find_teaching_moments(turns)
    assert [turns[c.turn].text for c in found] == [rule]


def test_a_wish_about_the_place_just_shown_is_not_proposed() -> None:
    one_off = "I don't want any wrong `gryad` aliases there, remove them"
    turns = alternate(one_off, RULE)
    found = find_teaching_moments(turns)
    assert [turns[c.turn].text for c in found] == [RULE]


def test_a_there_after_a_named_place_is_a_rule_about_that_place() -> None:
    rule = "The old `src/billing` module only keeps the API shims, so do not add code there."
    turns = alternate(rule)
    found = find_teaching_moments(turns)
    assert [turns[c.turn].text for c in found] == [rule]


def test_an_existential_there_does_not_point_at_the_exchange() -> None:
    rule = "When there\nare two migrations, always apply the older one first."
    turns = alternate(rule)
    found = find_teaching_moments(turns)
    assert [turns[c.turn].text for c in found] == [rule]


def test_a_turn_asking_whether_the_person_did_right_teaches_nothing() -> None:
    report = (
        "ok i have these env variables set up in railway. the only difference is that "
        'RETRIEVER_PROVIDER=pinecone and "chef" instead of "chef-production". '
        "did i do this right?"
    )
    turns = alternate(report, RULE)
    found = find_teaching_moments(turns)
    assert [turns[c.turn].text for c in found] == [RULE]
