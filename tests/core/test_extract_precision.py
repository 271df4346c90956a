"""What the deterministic extractor must never do: lose a session to one retraction, or
propose chat. Both were seen on real projects (a 712-prompt day ending "forget it, you
don't remember" proposed nothing; "I disagree." became a convention)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lorebook.extractors.rules import find_teaching_moments, to_proposal
from lorebook.models.session import LoggedToolCall, LoggedTurn
from tests.conftest import CliRunner

RULES = (
    "Always run the tests with `uv run pytest`, never bare pytest.",
    "We don't mock the database in integration tests: use the `pg_tmp` fixture.",
    "Feature flags must always be named `ff_<team>_<name>`, in snake case.",
)


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


@pytest.mark.parametrize(
    "retraction",
    [
        "forget it, you don't remember",
        "Never mind, leave it as it is.",
        "Scrap that, revert the changes.",
    ],
)
def test_a_last_retraction_of_something_else_keeps_every_earlier_rule(retraction: str) -> None:
    turns = alternate(*RULES, "Can you rename the `build` step to `compile` in CI?", retraction)
    found = find_teaching_moments(turns)
    assert [turns[c.turn].text for c in found] == list(RULES)


def test_a_retraction_right_after_a_rule_takes_back_that_rule_only() -> None:
    turns = alternate(*RULES, "Never mind, leave it as it is.")
    found = find_teaching_moments(turns)
    assert [turns[c.turn].text for c in found] == list(RULES[:2])


def test_a_retraction_naming_a_subject_takes_back_the_rules_about_it_only() -> None:
    turns = alternate(*RULES, "Never mind the `pg_tmp` rule.")
    found = find_teaching_moments(turns)
    assert [turns[c.turn].text for c in found] == [RULES[0], RULES[2]]


def test_forgetting_the_rule_takes_it_back() -> None:
    turns = alternate(
        *RULES[:2],
        "new rule for the cli: every subcommand supports `--json` and prints machine-readable"
        " output with it. add it to `list` and `status` to start",
        "hmm actually no. revert both and forget the rule, we'll settle it in the design review",
    )
    found = find_teaching_moments(turns)
    assert [turns[c.turn].text for c in found] == list(RULES[:2])


def test_a_retraction_quoting_a_rule_takes_it_back_turns_later() -> None:
    turns = alternate(
        RULES[0],
        "going forward every new enemy uses the BehaviorTree plugin. start by porting the Grunt",
        "does it play the same?",
        'ugh. scrap it, revert the grunt stuff, and forget the "every new enemy" thing too.',
    )
    found = find_teaching_moments(turns)
    assert [turns[c.turn].text for c in found] == [RULES[0]]


def test_a_trial_naming_something_else_takes_back_nothing() -> None:
    turns = alternate(
        RULES[0], "I put notes in `run-sheet.md` (just testing that you can read them)"
    )
    found = find_teaching_moments(turns)
    assert [turns[c.turn].text for c in found] == [RULES[0]]


def test_what_comes_before_a_retraction_in_its_own_turn_is_not_taught() -> None:
    turns = alternate(
        RULES[0],
        "does it play the same?",
        "honestly i dont want this churn before the demo. scrap it, revert the grunt stuff.",
    )
    found = find_teaching_moments(turns)
    assert [turns[c.turn].text for c in found] == [RULES[0]]


def test_a_follow_up_far_from_the_last_rule_is_a_rule_of_its_own() -> None:
    first = "I'd like to standardise on the approach that the team leader is always a walker."
    later = (
        "this is great, thank you! Please don't delete anything, it should be archived not deleted."
    )
    chores = [f"now do step {n} of the plan" for n in range(5)]
    found = find_teaching_moments(alternate(first, *chores, later))
    assert [len(c.turns) for c in found] == [1, 1]
    near = find_teaching_moments(alternate(first, later))
    assert [len(c.turns) for c in near] == [2]


def test_a_rule_is_merged_by_what_it_names_not_by_the_sentence_before_it() -> None:
    turns = alternate(
        "wait dont edit share/man, thats generated and gets overwritten at release",
        "docs/man/ holds one scdoc file per subcommand, and `just man` rebuilds share/man from"
        " them. also every default value is defined exactly once in src/defaults.rs and clap"
        " reads it from there, so that file is the source of truth.",
    )
    found = find_teaching_moments(turns)
    assert [c.turns for c in found] == [(0,), (2,)]


@pytest.mark.parametrize(
    "reminder",
    [
        "Don't forget the changelog entry rule: every user-facing change gets a line.",
        "never forget the rule that migrations are reviewed by a second person",
    ],
)
def test_a_reminder_not_to_forget_is_no_retraction(reminder: str) -> None:
    turns = alternate(RULES[0], reminder)
    found = find_teaching_moments(turns)
    assert [turns[c.turn].text for c in found] == [RULES[0], reminder]


CHAT = (
    "I disagree.",
    "remind me?",
    "Your first prompt looked great",
    "I don't recall the details, remind me",
    "Sorry for interrupting",
    "Stop there.",
    "thanks!",
    "looks good, continue",
    "ok",
    "also update the one in stories",
    "what's core? and conf?",
    "What the fuck are you doing and doing?",
    "why do you show a background task is running?",  # asks for a reason: no rule
    "why did you get rid of all the Part.from_text calls?",
    "Ok, try this approach but just for the bookings table. Do not touch anything else.",
)


def _after(context: str, text: str) -> list[LoggedTurn]:
    """``text`` as a user turn answering an agent turn of the given kind."""
    if context == "refused":
        agent = LoggedTurn(
            index=0,
            role="assistant",
            text="I'll remove the build folder.",
            tool_calls=[
                LoggedToolCall(
                    name="Bash",
                    input={"command": "rm -rf build"},
                    result_excerpt="The user doesn't want to proceed: the tool use was rejected",
                    is_error=True,
                )
            ],
        )
    elif context == "question":
        agent = LoggedTurn(index=0, role="assistant", text="Should I refactor the parser too?")
    else:
        agent = LoggedTurn(
            index=0,
            role="assistant",
            text="I changed the parser.",
            tool_calls=[LoggedToolCall(name="Edit", input={"file_path": "src/parse.py"})],
        )
    return [agent, LoggedTurn(index=1, role="user", text=text)]


@pytest.mark.parametrize("context", ["refused", "question", "acted"])
@pytest.mark.parametrize("text", CHAT)
def test_chat_approvals_questions_and_one_off_requests_are_never_proposed(
    context: str, text: str
) -> None:
    assert find_teaching_moments(_after(context, text)) == []


@pytest.mark.parametrize(
    "text",
    [
        "why do you keep adding comments to the test files?",
        "why are you running the whole suite again?",
        "why did you even touch the lockfile?!",
        "what the hell did you do to my config?",
    ],
)
def test_a_question_that_presses_on_the_agents_conduct_is_a_correction(text: str) -> None:
    assert len(find_teaching_moments(_after("acted", text))) == 1


def test_an_accusation_naming_no_act_counts_with_the_rule_beside_it() -> None:
    found = find_teaching_moments(
        _after("acted", "what are you doing? read the file before you write it.")
    )
    assert len(found) == 1


@pytest.mark.parametrize(
    "text",
    [
        "when I test the install I get this error: Ensure the relative path of the installer "
        "always matches the manifest.",
        "still failing, the output:\nEnsure the relative path must always match.\nnpm ERR! code 1",
        "Nice, one test left:\nFAIL src/undo.test.js > should never undo beyond the history",
        "│ 2 │ Always keep the header │ Never edit │\n└────┴──────────────┘",
        "Installing the current project: blogger (0.1.0)\nError: The current project could not"
        " be installed: No file/folder found for package blogger\nIf you do not want to install"
        " the current project use --no-root.",
        # an exception's class opens the line as a runtime prints it
        "why does this happen?\n\nUncaught TypeError: Failed to resolve module specifier"
        ' "@acme/ui". Relative references must start with either "/", "./", or "../".',
        "java.lang.IllegalStateException: Handlers must never be registered twice.",
    ],
)
def test_what_a_reporting_colon_or_a_tool_drew_is_pasted_not_taught(text: str) -> None:
    assert find_teaching_moments(_after("acted", text)) == []


def test_an_exception_named_inside_a_typed_rule_is_still_the_rule() -> None:
    found = find_teaching_moments(
        _after("acted", "never raise a bare ValueError: use the errors module instead.")
    )
    assert len(found) == 1


def _titles(*exchange: tuple[str, str]) -> list[str]:
    import asyncio

    from lorebook.extract.base import ExtractionRequest
    from lorebook.extractors.rules import RulesExtractor
    from lorebook.models.session import SessionLog

    turns = [
        LoggedTurn.model_validate({"index": i, "role": role, "text": text})
        for i, (role, text) in enumerate(exchange)
    ]
    log = SessionLog(
        harness="claude", session_id="s1", origin="claude:s1", transcript_hash="0" * 64,
        transcript_length=0, turns=turns,
    )  # fmt: skip
    proposals = asyncio.run(RulesExtractor().extract(ExtractionRequest(log=log, turns=turns)))
    return [p.title for p in proposals]


def test_a_title_states_the_rule_without_the_discourse_around_it() -> None:
    titles = _titles(
        ("assistant", "I pushed the fix to main."),
        ("user", "Sorry for interrupting, but we never commit straight to main."),
    )
    assert titles == ["Never commit straight to main"]


def test_a_title_does_not_copy_a_typo_the_agent_spells_right() -> None:
    titles = _titles(
        ("assistant", "I added docstrings to the specs. The docstrings explain each step."),
        ("user", "No, we don't write doctrings in spec files, ever."),
    )
    assert len(titles) == 1
    assert "docstrings" in titles[0]
    assert "doctrings" not in titles[0]


@pytest.mark.parametrize(
    "text",
    [
        "/compact   Session Summary: names fixed\n\nWork Completed:\n\n"
        "- Never delete completed tasks from to-do lists\n"
        "- Don't keep original versions - replace directly with canonical names",
        "You must fully embody this agent's persona and follow all activation instructions "
        "exactly as specified. NEVER break character until given an exit command.\n\n"
        '<agent-activation CRITICAL="TRUE">\n1. LOAD the FULL agent file\n</agent-activation>',
        "You are a concerned parent who is fully aware of the flaws that exist within the "
        "school system. You must always choose the closest school. What do you do?",
        "Fix this bug...\n\nThe properties should be initialized to empty collections "
        "instead of null. This causes NullReferenceExceptions.",
        "when I test the install I get this error:\n\nEnsure the specified relative path of "
        "the nested installer matches: C:\\Temp\\app.exe",
    ],
)
def test_commands_prompt_templates_and_quoted_reports_are_not_the_person_teaching(
    text: str,
) -> None:
    assert find_teaching_moments(_after("acted", text)) == []


@pytest.mark.parametrize(
    "text",
    [
        "still no detailed summary?",
        "I have 2 files - a.md and b.md. I want to replace the contents of b with a - should "
        "I just copy it, git rm the old file, and commit? Or is there a command-line-only "
        "solution?",
        "Okay, this looks good! It runs, grid mode still works, circle mode works. I think "
        "we can move forward.",
    ],
)
def test_a_plain_question_or_praise_is_not_proposed(text: str) -> None:
    assert find_teaching_moments(_after("acted", text)) == []


@pytest.mark.parametrize(
    "text",
    [
        "can we use mstest instead of custom tests?",
        "I should formalise this from what I understand (please correct):\n\n"
        "1. PRIMARY: Team diaries should always be read first (English preferred)",
    ],
)
def test_a_question_carrying_a_rule_and_a_list_the_person_wrote_are_still_proposed(
    text: str,
) -> None:
    assert len(find_teaching_moments(_after("acted", text))) == 1


@pytest.mark.parametrize(
    ("text", "proposed"),
    [
        ("No. We always run the tests with `uv run pytest` here, never with bare pytest.", 1),
        ("We never commit generated files here.", 1),
        ("we don't need to save the result here", 0),  # this moment of the exchange
        # said of the whole repository, even with "always" misspelt
        ("dont use npm here, allways use pnpm in this repo, the lockfile is pnpm-lock.yaml", 1),
    ],
)
def test_here_said_of_every_time_is_the_project_not_this_moment(text: str, proposed: int) -> None:
    assert len(find_teaching_moments(_after("acted", text))) == proposed


def test_the_same_rule_said_twice_in_a_session_is_one_proposal() -> None:
    rule = "Always run the tests with `uv run pytest`, never bare pytest."
    again = "Please, again: always run the tests with `uv run pytest`, never bare pytest!"
    between = [f"Rename the step number {n} to something clearer." for n in range(6)]
    turns = alternate(rule, *between, "Never commit straight to main.", *between, again)
    found = find_teaching_moments(turns)
    firsts = [turns[c.turn].text for c in found]
    assert firsts.count(rule) == 1
    assert again not in firsts
    (merged,) = [c for c in found if turns[c.turn].text == rule]
    assert turns[merged.turns[-1]].text == again


def test_a_pasted_program_log_is_not_taught_whatever_its_language() -> None:
    log = (
        "[DEBUG] メインスレッド監視を開始しました\n"
        "コーデック対応状況: AV1 supported (decoders: libdav1d, av1)\n"
        "yt-dlp: [youtube] Extracting URL: https://example.com/watch?v=abc\n"
        "動画情報取得完了: Never Gonna Give You Up (Official Video) (長さ: 213秒)\n"
        "ダウンロードを開始します: data\\abc.mp4\n"
        "エラー: stat: path should be string, not NoneType"
    )
    assert find_teaching_moments(_after("acted", log)) == []


def test_a_rule_with_a_labelled_line_is_still_a_rule() -> None:
    text = "Note: never commit straight to main.\nAlways open a pull request for review."
    assert len(find_teaching_moments(_after("acted", text))) == 1


@pytest.mark.parametrize(
    "text",
    [
        "we don't need to /compact since your context was cleared when I had to restart.",
        "Ah, we are almost out of context. I'd like you to undertake Option C, BUT first we "
        "need to /compact.",
        "cherche si il existe deja des fichiers plan.md et spec-convention.md",
        "can you please check if there are any names in attributes.csv that should not be "
        "in the mapping?",
        "I would like you to build some tests for undo.layers.",
        "I think that I'd like you to go through the Tier 2 diaries and incorporate anything "
        "relevant into final_attribution.csv.",
        "Hi, I'd like to see what's wrong with reading the diary.\nThe entry is pasted below, "
        "I'm not\nsure why you were having trouble reading it.\\\n\\\nDate: 22 Nov 2011\n"
        "Leader: Adela\nThe goal of the day was to cover the peninsula, where team B failed "
        "to \nfinish the whole area because of mud (12 Nov). One mound should \nbe recorded "
        "again (3276).\nDuring the day 4 sites were found.",
    ],
)
def test_session_mechanics_lookups_one_off_requests_and_pasted_entries_are_not_rules(
    text: str,
) -> None:
    assert find_teaching_moments(_after("acted", text)) == []


def test_a_request_repeating_how_it_was_done_before_is_a_rule() -> None:
    text = "As before, I'd like you to change the dates to ISO format (YYYY-MM-DD)."
    assert len(find_teaching_moments(_after("acted", text))) == 1


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("Pour chaque périmètre, on doit faire un CR distinct, avec sections sur conception.",
         "convention"),
        ("Pareil pour le CR quotidien, les blocs non renseignés ne doivent pas être affichés.",
         "prohibition"),
        ("inutile de re référencer constitution dans le start-here !!!", "prohibition"),
        ("meme ça : je prefere supprimer et me contenter de ce que dirait speckit", "convention"),
        ("je voudrais un nombre de fichiers minimal", "convention"),
        ("technical-conventions.md ???? il est encore référencé ???!", "convention"),
        ("pourquoi tu m'en parles alors ??", "convention"),
        ("ben non. je propose plutot de specifier le test avec speckit !!", "convention"),
        ("concernant git-usage il faut neutraliser le spécifique par un placeholder : l'idée est "
         "de savoir exactement quoi remplacer", "convention"),
    ],
)  # fmt: skip
def test_a_french_rule_is_read_from_its_grammar(text: str, kind: str) -> None:
    found = find_teaching_moments(_after("acted", text))
    assert [c.kind for c in found] == [kind]


@pytest.mark.parametrize(
    "text",
    [
        "quand tu écris Le template doit, c'est quoi ?",
        "je voudrais savoir quelle solution tu as choisi, il faut que je comprenne",
        "dis-moi si ces fichiers doivent être lus au démarrage",
        "je voudrais sécuriser le démarrage d'une session avec codex",
    ],
)
def test_a_french_question_is_not_a_rule(text: str) -> None:
    assert find_teaching_moments(_after("acted", text)) == []


def test_a_french_rule_is_titled_by_the_clause_that_states_it() -> None:
    (title,) = _titles(
        ("assistant", "J'ai ajouté les blocs au CR."),
        ("user", "Pareil pour le CR quotidien, les blocs non renseignés ne doivent pas être "
         "affichés."),
    )  # fmt: skip
    assert "ne doivent pas être affichés" in title
    assert not title.startswith("Pareil")


@pytest.mark.parametrize(
    "text",
    [
        "we dont need to save the final result here, as we replaced the versions up to this point",
        "dont use a winget specific staging directory either",
        "okay then I dont want the long path ellipsization then",
        'instead of that, lets make unchanged characters dim gray, and changed ones "on" red',
        'im using `dotnet test --collect:"Code Coverage"` how can I get it to output the '
        "coverage into a deterministic directory",
        "│ 2 │ /.project.json │ /.project.json │\n│ 3 │ LICENSE │ LICENSE │\n"
        "└───┴────────────────┴────────────────┘\nChanges: +640\n"
        "Invalid input: Page size must be greater or equal to 3.",
    ],
)
def test_feedback_bound_to_this_point_of_the_exchange_is_not_a_rule(text: str) -> None:
    assert find_teaching_moments(_after("acted", text)) == []


def test_a_rule_typed_above_a_pasted_table_is_still_a_rule() -> None:
    text = (
        "this table should show the relative file path and be sorted by filename so that "
        "similar files are proximal:\n\n╭───────┬───────╮\n│ Group │ Files │\n├───────┼───────┤\n"
        "│ 1     │ 1     │\n│ 2     │ 63    │\n╰───────┴───────╯"
    )
    assert len(find_teaching_moments(_after("acted", text))) == 1


@pytest.mark.parametrize(
    "text",
    [
        "still doesn't work.",
        "simple-load-spec.js still has a function using window.p5Instance which will fail",
        "Wait, there is still an error in the logs!",
        "I need it for every block",
        "I want it to open the html file in the iXBRL viewer",
        "That is, I want these changes and the last commit to be in one single commit.",
        "in base_page.html can you add the following text at the bottom\n\n"
        '"This product is in development. It should not be used for production reports."',
    ],
)
def test_a_status_report_a_wish_about_this_output_and_quoted_text_are_not_rules(
    text: str,
) -> None:
    assert find_teaching_moments(_after("acted", text)) == []


def test_a_counterfactual_about_still_broken_work_is_still_a_rule() -> None:
    text = "you should have addressed also the warning and not rush to commit still broken stuff"
    assert len(find_teaching_moments(_after("acted", text))) == 1


@pytest.mark.parametrize(
    "text",
    [
        "you should be using the English diary as primary, it's longer, as per the source "
        "inventory",
        "regex isn't going to work, you need to read them manually with your NLP capabilities.",
    ],
)
def test_a_modal_of_obligation_addressed_to_the_agent_is_a_rule(text: str) -> None:
    assert len(find_teaching_moments(_after("acted", text))) == 1


def test_a_modal_bound_to_this_moment_is_not_a_rule() -> None:
    text = "You should now have resolution information for all issues."
    assert find_teaching_moments(_after("acted", text)) == []


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("Use context7 for Playwright", 1),
        ("Currently I can't get the tests to run. Use context7 playwright if needed", 1),
        ("Use that as GH description, let's move on.", 0),
        ("Use Ultrathink", 0),
    ],
)
def test_a_tool_named_for_a_kind_of_work_is_a_tool_choice(text: str, found: int) -> None:
    candidates = find_teaching_moments(_after("acted", text))
    assert [c.kind for c in candidates] == ["tooling"] * found


@pytest.mark.parametrize(
    "text",
    [
        'I\'m looking for a word that is similar to "text generation", but refers to using '
        "existing texts.",
        "I no longer recall why the function `dry` is called `dry`.",
        "This is well after 10 actions. I'm not saying it's every ten, I'm theorizing.",
    ],
)
def test_the_person_looking_for_an_answer_or_thinking_aloud_is_not_a_rule(text: str) -> None:
    assert find_teaching_moments(_after("acted", text)) == []


@pytest.mark.parametrize(
    "text",
    [
        "(venv) me@host process-xbrl % npm run dev\n\n> dev\n> next dev\n\n"
        "28 packages are looking for funding\n  run `npm fund` for details",
        "the numbers in that area don't show the viewer, like i cannot click on it to view "
        "concepts",
        "Today is July 8th, 2025. Your daughter already has a transfer status. What do you do?",
        # a terminal copy pasted after a few words on the same line, and its output
        "is this right? me@laptop:~/src/demo$ python demo.py\nDemo - clean output only\n\n"
        "Running commands silently...\nYou should always see the summary below.\n",
    ],
)
def test_a_terminal_copy_a_bug_report_and_a_dated_scene_are_not_rules(text: str) -> None:
    assert find_teaching_moments(_after("acted", text)) == []


def test_a_rule_typed_before_an_address_is_still_the_rule() -> None:
    text = "You should always mail ann@example.com before you tag a release."
    assert len(find_teaching_moments(_after("acted", text))) == 1


def test_an_order_saying_what_to_keep_is_a_rule() -> None:
    text = (
        "Can you please add a review of your corrective actions to the review document? "
        "Update all actions in that document to 'done' without deleting them, so we have a "
        "clear record of what has been accomplished."
    )
    assert len(find_teaching_moments(_after("acted", text))) == 1
    assert (
        find_teaching_moments(
            _after("acted", "Without making any changes, please report on your analysis.")
        )
        == []
    )


@pytest.mark.parametrize(
    "text",
    [
        "次のステップがあれば、常に実行し続けてください。",
        "なんでuv使わないんですか",
        "venvをactivateしろよ",
        "違うって ライブの再生の際も正しくFPSを取得して再生して",
    ],
)
def test_a_japanese_rule_is_read_from_its_grammar(text: str) -> None:
    assert len(find_teaching_moments(_after("acted", text))) == 1


@pytest.mark.parametrize(
    "text",
    [
        "PyAVを導入して",
        "正常にストリームの終端に達したら、再生し直すせいで無限ループしています",
        "切り替え時に一瞬No Signalにならないでほしい",
    ],
)
def test_a_japanese_request_or_report_is_not_a_rule(text: str) -> None:
    assert find_teaching_moments(_after("acted", text)) == []


@pytest.mark.parametrize("lets", ["let's", "lets", "let\u2019s"])
def test_a_next_step_is_not_a_rule_however_its_apostrophe_is_typed(lets: str) -> None:
    """*n't* is read with or without its apostrophe; so is *let's*: "lets try 10% bigger"
    is the next try at this task, as "let's try" is."""
    text = f"For future days instead of 25% bigger, {lets} try 10% bigger."
    assert find_teaching_moments(_after("acted", text)) == []


def test_where_a_thing_is_not_and_where_it_is_are_one_rule() -> None:
    """A location corrected in two sentences side by side (where it is not, then where it
    is and how) is one note, not a location note and a convention note."""
    text = (
        "no, dns doesn't live in envs/. every route53 zone and record for every env is in "
        "`infra/terraform/global/dns/`, one file per zone (`example-corp.io.tf` and so on). "
        "the env stacks only read zone ids from its remote state outputs. put it there"
    )
    (candidate,) = find_teaching_moments(_after("acted", text))
    assert "envs/" in candidate.quote
    assert "infra/terraform/global/dns/" in candidate.quote


@pytest.mark.parametrize("between", ["\n\n", " "])
def test_a_location_and_a_practice_about_different_things_stay_two_rules(between: str) -> None:
    text = (
        f"Fixtures live in tests/fixtures/.{between}"
        "Always run the linter before you commit, since CI rejects unlinted code."
    )
    assert len(find_teaching_moments(_after("acted", text))) == 2


@pytest.mark.parametrize(
    "text",
    [
        "帮我将这些组件与 vue 进行同步，请注意 vue 是标准，请不要修改我 vue 的代码",
        "我不需要 emoji 和中文说明，需要英文的",
        "以后都用 pnpm 安装依赖",
        "不是的，我的意思是测试都放在 tests 目录下",
        "注释必须是英文的",
        "以后不要添加新的依赖",  # "new" beside what is there, but from now on
    ],
)
def test_a_chinese_rule_is_read_from_its_grammar(text: str) -> None:
    assert len(find_teaching_moments(_after("acted", text))) == 1


@pytest.mark.parametrize(
    "text",
    [
        "帮我增加更多的测试案例，让测试更加全面和健全",
        "现在还是不能显示",
        "为什么不要用这个组件？",
        "不是这个意思，我应该如何设置这个 context",
        "修改以后运行一下测试",
        "帮我修复这个类型错误",
        # a constraint of this task, seen on a project whose chats are in Chinese: for now,
        # nothing else, nothing new, not twice
        "先不考虑访问者的地理位置选项，暂定值为空，先不要使用外部网络请求",
        "不要做其他样式的修改",
        "注意不要添加新的组件 修改现有的面包屑导航实现我需要的功能",
        "修改当前的 bookmark-settings.tsx 不要重复添加",
    ],
)
def test_a_chinese_request_question_or_report_is_not_a_rule(text: str) -> None:
    assert find_teaching_moments(_after("acted", text)) == []


def test_a_chinese_rule_is_titled_by_its_clause_not_by_the_task_it_came_with() -> None:
    turns = _after("acted", "帮我将这些组件与 vue 进行同步，请不要修改我 vue 的代码，同时完善 css")
    (candidate,) = find_teaching_moments(turns)
    proposal = to_proposal(candidate, turns, session="s", harness="cursor", number=1)
    assert proposal.title == "请不要修改我 vue 的代码"
    assert candidate.kind == "prohibition"
    assert "帮我将这些组件与 vue 进行同步" in proposal.quote
    opener = _after("acted", "不是的，测试都放在 tests 目录下，别放在 src 里")
    (candidate,) = find_teaching_moments(opener)
    title = to_proposal(candidate, opener, session="s", harness="cursor", number=1).title
    assert title.startswith("测试都放在 tests 目录下")


def test_a_file_named_with_at_places_what_the_sentence_says_is_in_it() -> None:
    text = (
        "My routes should be in @routes.py\n"
        "Creating the viewer is located in @xbrl_processing.py\n"
        "Conversion logic is located in @acfr.py"
    )
    assert len(find_teaching_moments(_after("acted", text))) == 1


@pytest.mark.parametrize(
    "text",
    [
        "Refer to @Shortest_README.md and help me figure out how to get @shortest.config.ts "
        "to work",
        "i mean the functions you removed in @spinner.js",
    ],
)
def test_a_request_for_help_or_which_thing_was_meant_is_not_a_rule(text: str) -> None:
    assert find_teaching_moments(_after("acted", text)) == []


@pytest.mark.parametrize(
    "text",
    [
        "no need to make examples a package :/\nalso, please run pytest to check it",
        "there's no need to rebuild the index after a pull, the hook does it",
    ],
)
def test_no_need_to_is_a_prohibition(text: str) -> None:
    assert [c.kind for c in find_teaching_moments(_after("acted", text))] == ["prohibition"]


def test_seeing_no_need_is_no_prohibition() -> None:
    assert find_teaching_moments(_after("acted", "I see no need to change it.")) == []


@pytest.mark.parametrize(
    "text",
    ["No SQL queries only AL code!", "No fallbacks, just a basic choice between the two APIs."],
)
def test_no_this_only_that_is_a_prohibition(text: str) -> None:
    assert [c.kind for c in find_teaching_moments(_after("acted", text))] == ["prohibition"]


@pytest.mark.parametrize(
    "text",
    [
        "Redo does nothing. No errors, just no change.",
        "no, just the first one",
        "No problem, just fix it",
    ],
)
def test_no_then_a_report_or_an_answer_is_no_prohibition(text: str) -> None:
    assert find_teaching_moments(_after("acted", text)) == []


def test_a_host_apps_system_instruction_block_is_not_the_persons_rule() -> None:
    block = (
        "<system_instruction>\nYou are working inside Conductor, a Mac app that lets the user"
        " run many coding agents in parallel.\nYour work should take place in the"
        " /Users/me/conductor/workspaces/app/lima directory (unless otherwise directed), which"
        " has been set up for you to work in.\nEach workspace has a .context directory"
        " (gitignored) where you can save files to collaborate with other agents.\nThe target"
        " branch for this workspace is me/fix-docs. Use this for actions like creating new PRs,"
        " bisecting, etc., unless you're told otherwise.\n</system_instruction>\n\n"
    )
    assert find_teaching_moments(_after("acted", block + "implement")) == []
    rule = "Never import from the cli package in core modules, ever!"
    found = find_teaching_moments(_after("acted", block + rule))
    assert [c.quote for c in found] == [rule]


def test_an_http_status_is_no_prohibition() -> None:
    text = "now I am getting 403 Forbidden: the publish step failed again."
    assert find_teaching_moments(_after("acted", text)) == []
    assert find_teaching_moments(_after("acted", "Force-pushing to main is forbidden."))


def test_a_rule_opening_with_a_pronoun_is_described_with_what_it_stands_for() -> None:
    turns = _after(
        "acted",
        "Thanks for the cleanup.\n\nYou are deleting coinflip, randomLayer and percentSize."
        " They must remain.",
    )
    (candidate,) = find_teaching_moments(turns)
    proposal = to_proposal(candidate, turns, session="s", harness="cursor", number=1)
    assert proposal.description == (
        "You are deleting coinflip, randomLayer and percentSize. They must remain."
    )
    plain = alternate("Never force-push to main. It rewrites history others have pulled.")
    (candidate,) = find_teaching_moments(plain)
    described = to_proposal(candidate, plain, session="s", harness="h", number=1).description
    assert described.startswith("Never force-push to main")


def test_a_run_over_sessions_in_a_language_the_rules_do_not_read_says_so(
    kb_repo: Path, cli: CliRunner, tmp_path: Path
) -> None:
    # seen on Spanish and Russian sessions: "0 kept" and nothing said of why
    prompts = [
        "Asegúrate de no romper nada de lo que está funcionando.",
        "Haz un push. Guarda solo lo necesario y el mensaje en castellano.",
        "Quiero que la base de palabras no aparezca nunca en los desplegables.",
        "Используй принципы SOLID и ООП, пиши краткий но понятный код.",
    ]
    lines = [{"role": "user", "text": text} for text in prompts]
    (tmp_path / "es.jsonl").write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    assert cli("import", str(tmp_path / "es.jsonl"), cwd=kb_repo).exit_code == 0
    done = cli("extract", cwd=kb_repo)
    assert done.exit_code == 0, done.stderr
    assert "4 of the 4 inputs of these sessions are in a language the rules extractor" in (
        done.stderr
    )
    assert "Spanish (3), Cyrillic (Russian, Ukrainian, ...) (1)" in done.stderr
    assert "--extractor headless" in done.stderr


def test_an_english_run_gets_no_language_warning(
    kb_repo: Path, cli: CliRunner, tmp_path: Path
) -> None:
    lines = [{"role": "user", "text": "never use print for logging here, use the logger"}] * 3
    (tmp_path / "en.jsonl").write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    assert cli("import", str(tmp_path / "en.jsonl"), cwd=kb_repo).exit_code == 0
    assert "does not read" not in cli("extract", cwd=kb_repo).stderr
