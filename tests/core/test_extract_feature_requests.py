"""A feature request is not a rule the agent keeps (issue 27, precision of the rules extractor).

On ktsu-dev/BlastMerge and edobry/minsky half of what the deterministic extractor proposed
specified the program being built: "when doing the merge it should ...", "implement a
navigation stack ... instead of back to the main menu". What gives it away is grammar: the
modal's subject is the thing built (*it*, *this part*), the alternative is the behaviour a
change replaces, *have* is possession not a counterfactual, the person repairs their own
words, a wish points at the text it introduces, a message was copied under a line of code.
Each case below was proposed before; the rules next to them must still be.
"""

from __future__ import annotations

import pytest

from lorebook.extractors.rules import find_teaching_moments
from lorebook.extractors.sentences import split_sentences
from lorebook.extractors.teaching import main_sentence
from lorebook.models.session import LoggedToolCall, LoggedTurn
from tests.core.test_extract_precision import alternate


def proposed(text: str) -> bool:
    return bool(find_teaching_moments(alternate(text)))


def main_of(text: str) -> str:
    """The sentence of ``text`` that carries its rule (it must have one)."""
    sentences = split_sentences(text)
    main = main_sentence(sentences)
    assert main is not None
    return sentences[main].text


@pytest.mark.parametrize(
    "request_",
    [
        # an order to build: its "instead of" is the behaviour it replaces
        "implement a navigation stack so that we can go back to where we were instead of"
        " back to the main menu",
        "make the `git pr` command optionally take a repo path instead of a session name",
        "update the session start command to optionally take a task id instead of a session name",
        # an alternative done to the thing shown
        "when running a batch operation it would be better to gather all of the files and"
        " group them by filename instead of doing it one pattern at a time.",
        # the modal's subject is the thing built
        "the history input currently replaces the prompt when using the up and down keys,"
        " it shouldnt.",
        "it should support multiple task backends.",
        "> - #123: Task Title [TODO] this is not an actual task and shouldnt be output",
        "this is not an actual task and shouldnt be output",
        "when doing the iterative merge it should do the version search again between every"
        " iteration",
        # possession, not a counterfactual
        "it should have full menus for batch management",
        # the plural of *this*: what the order before it builds
        "in each engines/ module implement simple FUNCTIONS, one per endpoint. These should"
        " have extensive docstrings and the full selection of function arguments",
        # the person repairs their own words
        'sorry I mistakenly said "on" green red, I meant use the original green red colors'
        " we had before.",
        # a wish about the text it introduces
        "I dont need to know this message in the output:\n\nSafety rule: Only files with"
        " identical names can be merged together.",
        "in `cli` I\u2019d like the engines function to work like so:\n- it should be called"
        " `info`\n- without args it should list the engines",
        # *I meant*: a repair of the instruction before, no term defined
        'I meant: do uv pip install duckduckgo-search && python -c "help(DDGS.text)"|cat',
        # the things at hand, not every thing of a kind
        "all of these need to be fixed before the release, start with the parser",
        # *nobody* with a verb of knowing: a remark, not a prohibition
        "nobody knows why the nightly build got slower, can you profile it?",
        # *I meant* opening the sentence: which thing was meant, not what a term means
        "I meant LangChain/LangGraph. Don't those host the agent too?",
        # *meant to*: what is expected of someone, not what a word means
        "given our use of prisma and schema's. How am I meant to correctly apply the following"
        " sql updates to the database without introducing errors.",
        # an analyser's message copied with the line it flags
        "else if (showWhitespace)\nChange this condition so that it does not always evaluate"
        " to 'True'. Some code paths are unreachable.\n\n\t\t{\n\t\t\treturn x;\n\t\t}",
    ],
)
def test_a_feature_request_is_not_proposed(request_: str) -> None:
    assert not proposed(request_)


@pytest.mark.parametrize(
    "rule",
    [
        "use `@clack/prompts` instead of bun-promptx",
        "we went with Postgres rather than MySQL because the team knows it",
        "you should have addressed the warning before committing",
        "Please don't delete anything, it should be archived not deleted.",
        "it should actually call the domain methods, not the cli commands",
        "by 'batch' I mean the saved list of file patterns.",
        "By updating project memory I meant you should have modified the `CLAUDE.md` file.",
        "These must never import from the cli package.",
        "I don't like nested types, and I like all types to have their own file",
        # a rule for every thing of a kind: a quantified subject under a modal
        "its not the cache. any buffer a DMA stream reads or writes has to be declared with"
        " `DMA_BUFFER`, which puts it in `.dma_buffers`.",
        # a prohibition put as what nobody does
        "bump the worker replicas from 4 to 6. do it in the manifests repo \u2014 nobody"
        " kubectl applies anything on the prod cluster, argo reverts a manual change",
    ],
)
def test_a_rule_beside_them_is_still_proposed(rule: str) -> None:
    assert proposed(rule)


def test_a_pronoun_after_a_condition_on_any_such_thing_states_a_general_rule() -> None:
    rule = (
        "When a test touches the database, it must use the `pg_tmp` fixture because the"
        " real one is shared."
    )
    specification = (
        "When the export runs, it must use the new template because the old one is gone."
    )
    assert proposed(rule)
    assert not proposed(specification)


# What the held-out project daviswhitehead/chef-chopsky showed, once it was measured (it is
# shaped on from here): questions asking for advice, requests for help, reports and pasted
# logs were proposed as rules.


@pytest.mark.parametrize(
    "chat",
    [
        # the agent's help asked for is a request, not a preference
        "Okay, following our playbook, I'd like your help planning a new feature.",
        # asking the agent's opinion is not a question at its conduct
        "I see the exact same thing at the preview URL. What do you think is going on here?",
        # a modal question without an alternative asks for advice
        "Should I have a separate OPENAI_API_KEY for each environment?",
        "do we need .env.vercel? should it be folded into .env.production? why or why not?",
        "ok i am setting up dns entries on cloudflare. should the dns entries have proxy mode "
        "disabled?",
        "Should we be using cursor?",
        # a sentence trailing off into a question asks
        "Rather than creating another project in vercel for staging... could we just use a"
        " single vercel project and its built-in environments?",
        # what the person sees happening, or expects
        "ok it looks like railway is creating a deploy each time a variable is set...",
        "ok `VERCEL_TOKEN` should be ready for you to use, try again",
        # a log pasted under a banner, or with a timestamp on every line
        "the deployment is still failing, can you debug it?\n\n---- Build Logs ----\n\n"
        "Attempt #1 failed with service unavailable.\n1/1 replicas never became healthy!\n",
        "Now I'm seeing this error... Can you help me fix this please?\n\n"
        "2025-10-02T19:24:06.6711910Z npm warn deprecated rimraf@3.0.2: Do not use it.\n"
        "2025-10-02T19:24:06.6712000Z npm warn deprecated glob@7: Use glob@9 instead\n"
        "2025-10-02T19:24:06.6713000Z added 710 packages in 18s\n"
        "2025-10-02T19:24:06.6714000Z found 0 vulnerabilities\n",
    ],
)
def test_advice_asked_reports_and_logs_are_not_proposed(chat: str) -> None:
    assert not proposed(chat)
    assert not find_teaching_moments(after_an_action(chat))


def after_an_action(text: str) -> list[LoggedTurn]:
    """The human turn answering an agent turn that acted."""
    return [
        LoggedTurn(
            index=0,
            role="assistant",
            text="I updated the environment files.",
            tool_calls=[LoggedToolCall(name="Edit", input={"file_path": ".env.example"})],
        ),
        LoggedTurn(index=1, role="user", text=text),
    ]


@pytest.mark.parametrize(
    "rule",
    [
        "should we be using pytest instead of unittest?",
        "shouldn't we use `uv` instead of pip?",
        "Why not use `uv` for this? We always use it.",
    ],
)
def test_questions_that_carry_a_rule_are_still_proposed(rule: str) -> None:
    assert proposed(rule)


def test_a_sentence_trailing_off_into_a_tag_question_still_carries_its_rule() -> None:
    turns = [
        LoggedTurn(
            index=0,
            role="assistant",
            text="I created GITHUB_SETUP.md in the project root.",
            tool_calls=[LoggedToolCall(name="Write", input={"file_path": "GITHUB_SETUP.md"})],
        ),
        LoggedTurn(
            index=1,
            role="user",
            text="While we are cleaning up... the GITHUB_SETUP.md you dropped into project"
            " root... shouldn't that be in docs and the filename shoudln't shout... right?",
        ),
    ]
    assert find_teaching_moments(turns)


def test_an_order_put_as_a_question_to_record_a_rule_is_proposed() -> None:
    order = (
        "Looks good. Can you update the 103-task-decomposition-phase cursor rule to make sure"
        " that a task's Markdown file is created each time we move into task decomposition?"
    )
    assert find_teaching_moments(after_an_action(order))
    assert not find_teaching_moments(after_an_action("Can you explain how the rule works?"))


def test_what_matters_to_the_person_is_a_preference() -> None:
    turn = (
        "Ok let's keep the best elements of each. Keeping the notion of continuous improvement"
        " is very important to me throughout our playbook and tactics."
    )
    assert find_teaching_moments(after_an_action(turn))


def test_a_sentence_opening_as_a_question_asks_before_its_question_mark() -> None:
    turn = (
        "For example, would it make sense to say in the phase II cursor rule that the AI"
        " should be wearing the hats of:\n1. Product Manager\n2. Software Architect\n\n"
        "What do you think?"
    )
    assert not find_teaching_moments(after_an_action(turn))


def test_a_rule_for_every_thing_of_a_kind_outweighs_an_opening_remark() -> None:
    text = (
        "First we need to address an oversight. We have fields for peripherals on two tabs."
        " Any standard fields should remain in the Machine Control tab."
    )
    assert main_of(text).startswith("Any standard fields")


@pytest.mark.parametrize(
    "request_",
    [
        # the modal sits inside a question the person asks the agent to answer
        "Please walk me through what we need to do to get that done!",
        "Make a COMPLETE SPEC in the @TODO.md of what needs to be done !",
        "Clean up @TODO.md and @PROGRESS.md only keeping what needs to be done",
        "tell me which of these files you should change first!",
    ],
)
def test_a_modal_inside_an_embedded_question_is_no_obligation(request_: str) -> None:
    assert not proposed(request_)


def test_a_pseudo_cleft_still_states_the_obligation() -> None:
    assert proposed("What you must always do is run `make lint` before you commit!")


def test_a_consequence_opened_by_which_still_directs() -> None:
    assert proposed("We run on Postgres 16, which means you must never use MySQL syntax.")


def test_a_question_after_a_condition_asks_without_its_mark() -> None:
    turn = "If you have to use the Add Series page, will you be able to use the existing setup."
    assert not find_teaching_moments(after_an_action(turn))
    assert find_teaching_moments(after_an_action("If the tests fail, never merge the branch."))


def test_an_exclamation_of_progress_is_not_the_rule_of_its_turn() -> None:
    text = (
        "We're getting closer! 17/65 tests now pass! Please make a testing overview in"
        " `docs/test/`. Make particular note of the issues we had in verifying the p5 code so"
        " that we do not run into the same trouble yet again."
    )
    assert main_of(text).startswith("Make particular note")
