"""A note states the rule: its title is the rule in a short sentence, its id no typo or filler.

Inputs are written the way people type at a coding agent (apologies, "ok so", a rule hidden
in the second sentence, typos, emoji); the expected titles are what a developer would write
on the note. The wording is our own.
"""

from __future__ import annotations

from collections import Counter

import pytest

from lorebook.extractors.statement import state_rule
from lorebook.extractors.titles import rule_title
from lorebook.extractors.typos import fix_typos
from lorebook.extractors.words import content_words, rule_slug_words
from lorebook.slug import slugify

VOCABULARY = {
    "docstrings": 3,
    "should": 5,
    "the": 10,
    "spec": 4,
    "files": 6,
    "test": 5,
    "use": 7,
    "nullable": 2,
    "shared": 3,
    "prompts": 2,
    "task": 3,
    "lizzy": 4,
    "open": 3,
    "protest": 3,
    "pytests": 2,
    "two": 3,
}


# --- fix_typos --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("doctrings", "docstrings"),
        ("shold", "should"),
        ("teh", "the"),
        ("should I add doctrings to spec files?", "should I add docstrings to spec files?"),
        ("You shold always run it", "You should always run it"),
        ("Doctrings in spec files are noise.", "Docstrings in spec files are noise."),
        ("shold, doctrings.", "should, docstrings."),
        ("keep it non-nulable", "keep it non-nullable"),
        ("a shard module", "a shared module"),  # "shard" is not in the vocabulary
        ("tset it", "test it"),  # a transposition
    ],
)
def test_fix_typos_corrects_a_certain_typo(text: str, expected: str) -> None:
    assert fix_typos(text, VOCABULARY) == expected


@pytest.mark.parametrize(
    "text",
    [
        "pytest",  # two edits from "protest", an inflection of "pytests"
        "`doctrings`",  # code
        "see src/doctrings.py",  # a path
        "the doc_trings helper",  # snake case
        "the docTrings helper",  # camel case
        "doctrings2",  # digits
        "https://example.com/doctrings",  # a URL
        "call her 'Lizzi'",  # a quoted name
        "ask Lizzi about it",  # a capitalised word mid-sentence: a name
        "the OPEB rows",  # capitals: an acronym
        "thw",  # three letters, not a transposition
        "sue",  # "use" starts with another letter
        "tests",  # an inflection of "test", not a typo
        "used",  # an inflection of "use"
        "tast",  # "test" and "task" are both one edit away
    ],
)
def test_fix_typos_leaves_what_is_not_certain(text: str) -> None:
    assert fix_typos(text, VOCABULARY) == text


@pytest.mark.parametrize(
    ("text", "vocabulary"),
    [
        ("think", {"thank": 5}),  # "i" and "a" are not neighbouring keys
        ("must", {"most": 5}),
        ("them", {"the": 50}),  # an extra last letter makes another word
        ("hard", {"had": 5}),  # an extra letter not typed twice
        ("called", {"caller": 3}),  # two forms of one word
        ("uses", {"user": 3}),
        ("doesnt", {"doesn": 9}),  # a contraction typed without its apostrophe
        ("there", {"three": 5}),  # a function word is a known word
        ("though", {"through": 5}),
    ],
)
def test_fix_typos_takes_a_real_word_for_a_word(text: str, vocabulary: dict[str, int]) -> None:
    assert fix_typos(text, vocabulary) == text


@pytest.mark.parametrize(
    ("text", "vocabulary", "expected"),
    [
        ("runninng", {"running": 2}, "running"),  # a letter typed twice
        ("commiting", {"committing": 2}, "committing"),  # a letter left out
        ("rhe", {"the": 9}, "rhe"),  # three letters: swaps only
        ("tje", {"the": 9}, "tje"),
        ("docimentation", {"documentation": 2}, "documentation"),  # "u" and "i" are neighbours
        ("woudl", {"would": 4}, "would"),
    ],
)
def test_fix_typos_reads_a_slip_of_the_fingers(
    text: str, vocabulary: dict[str, int], expected: str
) -> None:
    assert fix_typos(text, vocabulary) == expected


def test_fix_typos_needs_the_word_seen_twice() -> None:
    assert fix_typos("doctrings", {"docstrings": 1}) == "doctrings"
    assert fix_typos("doctrings", {"docstrings": 2}) == "docstrings"


def test_fix_typos_leaves_a_word_the_vocabulary_holds() -> None:
    assert fix_typos("a shard", {"shard": 1, "shared": 9}) == "a shard"


def test_fix_typos_folds_the_vocabulary_case() -> None:
    assert fix_typos("doctrings", {"Docstrings": 2, "DOCSTRINGS": 1}) == "docstrings"


def test_fix_typos_with_no_vocabulary_changes_nothing() -> None:
    text = "You shold add doctrings, teh end."
    assert fix_typos(text, {}) == text


def test_fix_typos_keeps_code_fences_and_spans() -> None:
    text = "Add doctrings:\n```\ndoctrings = 1\n```\nand `shold` stays."
    assert fix_typos(text, VOCABULARY) == (
        "Add docstrings:\n```\ndoctrings = 1\n```\nand `shold` stays."
    )


def test_fix_typos_drops_a_missing_last_letter() -> None:
    assert fix_typos("you shoul run it", VOCABULARY) == "you should run it"


# --- state_rule: refusals ---------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "I disagree.",
        "remind me?",
        "Your first prompt looked great",
        "Stop there.",
        "Sorry for interrupting",
        "ok",
        "Great work, thanks!",
        "What does this function do?",
        "Do it.",
        "Let's call it consolidated-documentation.md for now.",
        "Use this one.",
        "You are deleting coinflip and randomLayer.",
        "I tried an installation of jest and ran into the issue below.",
        "we are almost out of context and need to compact",
        "yes, please proceed",
        "",
        "   ",
        "👍",
    ],
)
def test_state_rule_refuses_what_states_no_rule(text: str) -> None:
    assert state_rule(text) == ""


# --- state_rule: the rule, in a short sentence -------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("You should always run ruff before committing.", "Always run ruff before committing"),
        ("We don't use mocks for the DB.", "Don't use mocks for the DB"),
        ("I prefer uv over pip.", "Prefer uv over pip"),
        ("we use pnpm in this repo", "Use pnpm in this repo"),
        ("we never push to main directly", "Never push to main directly"),
        ("You shouldn't touch the generated files.", "Don't touch the generated files"),
        ("we should not mock the clock", "Don't mock the clock"),
        ("You should never call the API from a unit test", "Never call the API from a unit test"),
        ("you need to activate the venv first", "Activate the venv first"),
        ("I want you to always ask before deleting files.", "Always ask before deleting files"),
        ("I'd rather change the existing publish step", "Change the existing publish step"),
        ("I don't want to compare a.json with b.json", "Don't compare a.json with b.json"),
        ("I dont like nested types", "Avoid nested types"),
        ("we're using BDD lingo!", "Use BDD lingo"),
        ("let's use the Plus Jakarta Sans font instead", "Use the Plus Jakarta Sans font instead"),
        # no need to: a prohibition; a face typed after it is not the rule
        (
            "no need to make examples a package :/ also, please run pytest",
            "Don't make examples a package",
        ),
        (
            "there's no need to rebuild the index after a pull",
            "Don't rebuild the index after a pull",
        ),
        # "you are to": an order
        (
            "Whenever you create a to-do list, you are to write it to docs/todo.md",
            "Whenever you create a to-do list, write it to docs/todo.md",
        ),
        ("you're not to touch the migrations", "Don't touch the migrations"),
        # "I want no X": the X ruled out
        (
            "basically i want no unnecessary lines in the tables",
            "No unnecessary lines in the tables",
        ),
        # "I want X to Y": what X should do
        (
            "I want the batch mode to use the same manual approach",
            "The batch mode should use the same manual approach",
        ),
        ("I'd like the tests to be fast.", "The tests should be fast"),
    ],
)
def test_state_rule_turns_persons_into_an_imperative(text: str, expected: str) -> None:
    assert state_rule(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "I would like some help to understand the parser",  # help wished for does nothing
        "I want also use Kiro workflow to develop DocGen CLI",  # a verb, its "to" left out
        "I want replace Kiro to be driven",
    ],
)
def test_a_wish_whose_object_is_no_doer_is_not_told_what_to_do(text: str) -> None:
    assert "should" not in state_rule(text)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "Sorry for interrupting, but we never commit straight to main. Carry on.",
            "Never commit straight to main",
        ),
        (
            "Sorry for interrupting. Tests live in tests/, not next to the code.",
            "Tests live in tests/, not next to the code",
        ),
        ("No, use uv instead of pip!!!", "Use uv instead of pip"),
        ("No! Never push to main 🙂 thanks", "Never push to main"),
        ("Hey, ok so please keep the comments", "Keep the comments"),
        ("keep the comments, thanks", "Keep the comments"),
        (
            "Actually, btw, I think the renderLayers call should remain in sketch.js.",
            "The renderLayers call should remain in sketch.js",
        ),
        ("Always use uv!!! 🙏", "Always use uv"),
        ("please make sure to run the linter", "Make sure to run the linter"),
        ("ah, and always confirm the unit numbers!", "Always confirm the unit numbers"),
        ("Wait dont edit share/man, thats generated", "Don't edit share/man, that's generated"),
        ("wait for the build before you deploy", "Wait for the build before you deploy"),
        # emphasis goes, a dunder name is code and stays
        ("__Never__ push to _main_!", "Never push to main"),
        (
            "I don't want to commit the empty __init__.py files!",
            "Don't commit the empty __init__.py files",
        ),
    ],
)
def test_state_rule_drops_discourse(text: str, expected: str) -> None:
    assert state_rule(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "I tried that yesterday and it broke. Always restart the dev server after changing nuxt.config.js.",
            "Always restart the dev server after changing nuxt.config.js",
        ),
        (
            "Yes, that's right. Test files live in test/ with the other tests.",
            "Test files live in test/ with the other tests",
        ),
        (
            "The gradient looks fine. Don't add hover effects to buttons.",
            "Don't add hover effects to buttons",
        ),
        (
            "Hmm, I see. Can you look at the logs? We always deploy from the release branch.",
            "Always deploy from the release branch",
        ),
        (
            "You are deleting coinflip and randomLayer. Never delete functions the task doesn't touch.",
            "Never delete functions the task doesn't touch",
        ),
    ],
)
def test_state_rule_picks_the_sentence_with_the_rule(text: str, expected: str) -> None:
    assert state_rule(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("can we use mstest instead of custom tests?", "Use mstest instead of custom tests"),
        ("why don't you use uv?", "Use uv"),
        ("shouldn't we pin the versions in CI?", "Pin the versions in CI"),
        # a reminder of what was agreed
        (
            "I thought we wanted to use Railway instead of Vercel for the agent? Is that still"
            " the plan?",
            "Use Railway instead of Vercel for the agent",
        ),
        ("I thought we agreed to use `uvx migrate-to-uv`?!", "Use uvx migrate-to-uv"),
        # a better way, asked
        (
            "Wouldn't it be better to pin the versions in the lockfile?",
            "Pin the versions in the lockfile",
        ),
        # a statement under a tag question
        (
            "I'd rather exclude the diary folder from the checks, is that possible?",
            "Exclude the diary folder from the checks",
        ),
    ],
)
def test_state_rule_reads_a_rule_put_as_a_question(text: str, expected: str) -> None:
    assert state_rule(text) == expected


@pytest.mark.parametrize(
    "text",
    ["is it broken again, right?", "The bot now sends media to Gemini, correct?"],
)
def test_state_rule_reads_no_rule_in_a_question_or_a_fact_checked(text: str) -> None:
    assert state_rule(text) == ""


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "'Multiple versions' means files with different content.",
            "'Multiple versions' means files with different content",
        ),
        ("in CI our tests are run by PSBuild", "In CI our tests are run by PSBuild"),
        (
            "Sorry to interrupt again, but one minor clarification: the scanned forms contain dates.",
            "The scanned forms contain dates",
        ),
        ("My routes should be in @routes.py", "My routes should be in routes.py"),
        ("Don't append `| cat` to commands.", "Don't append | cat to commands"),
        ("`uv run` is how we run scripts", "uv run is how we run scripts"),
    ],
)
def test_state_rule_keeps_a_statement_of_fact(text: str, expected: str) -> None:
    assert state_rule(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "Since the diaries are clearer, we always read them first.",
            "Always read them first",
        ),
        (
            "If the value is negative, you should wrap it in parentheses.",
            "If the value is negative, wrap it in parentheses",
        ),
        ("In CI, we run the tests with PSBuild.", "Run the tests with PSBuild in CI"),
        (
            "regex isn't going to work, you need to read the forms by eye",
            "Read the forms by eye",
        ),
        (
            "ok, not sure if that helps, but we need to record every gap in the log",
            "Record every gap in the log",
        ),
        ("please *never* delete tasks, mark them as done", "Never delete tasks, mark them as done"),
        (
            "can you keep the comments when you rewrite code",
            "Keep the comments when you rewrite code",
        ),
        ("we'll need to keep the old column names", "Keep the old column names"),
        ("I'd lean towards ramda because I like it", "Prefer ramda because I like it"),
        ("you should be able to read the scans", "You should be able to read the scans"),
    ],
)
def test_state_rule_reads_the_frame_around_a_rule(text: str, expected: str) -> None:
    assert state_rule(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "TypeError: Cannot read properties of undefined (reading 'flip')",
        "here are the names from the diary: Ana, Boris, Cveta",
        "tell me more about structuredClone",
        "Why the heck are you reading the file and writing a new one",
        "You keep running ahead into action.",
        "Compare Files in Directory",
        "Multi-color is correct.",
        "this is a very good outcome, better than I expected",
        "Write a commit message for that.",
        "It should explain the following:",
    ],
)
def test_state_rule_refuses_output_requests_and_chat(text: str) -> None:
    assert state_rule(text) == ""


def test_state_rule_does_not_judge_latin_script_it_cannot_read() -> None:
    text = "je voudrais un nombre de fichiers minimal"
    assert state_rule(text) == text


@pytest.mark.parametrize(
    ("text", "head"),
    [
        (
            "we should make the filesystem parameters non nullable so that we have to address "
            "this right away and not have potentially inconsistent state floating around",
            "Make the filesystem parameters non nullable",
        ),
        (
            "Do not remove a function just because it is not currently called, and only "
            "consolidate functions that add nothing when kept separate.",
            "Do not remove a function just because it is not currently called",
        ),
        (
            "Plan files are prefixed with two digits, zero-padded (eg `00.`, `01.` `02.` etc.), "
            "in the order they were created by the planner",
            "Plan files are prefixed with two digits",
        ),
    ],
)
def test_state_rule_cuts_a_long_rule_at_a_clause(text: str, head: str) -> None:
    title = state_rule(text)
    assert title.startswith(head)
    assert len(title) <= 80
    assert not title.endswith((".", ",", " and", " or", " the"))


def test_state_rule_cut_leaves_no_dangling_word() -> None:
    text = (
        "Always run the complete integration suite against the staging database and the "
        "mocked payment gateway before tagging a release"
    )
    title = state_rule(text)
    assert len(title) <= 82
    assert title.endswith(" \u2026")  # cut inside its clause, and marked so
    assert title.split()[-2].lower() not in {"and", "or", "the", "a", "to", "of", "before"}
    assert title.startswith("Always run the complete integration suite")


def test_state_rule_keeps_one_rule() -> None:
    title = state_rule("Never commit to main. Always open a pull request.")
    assert title in {"Never commit to main", "Always open a pull request"}


def test_state_rule_ignores_pasted_code_and_output() -> None:
    text = "Don't swallow exceptions in handlers.\n```\ntry:\n    x()\nexcept Exception:\n    pass\n```"
    assert state_rule(text) == "Don't swallow exceptions in handlers"


def test_state_rule_reads_wrapped_console_lines() -> None:
    text = "please always check the cited source file exists before \\\ntrusting the row"
    assert state_rule(text) == "Always check the cited source file exists before trusting the row"


def test_state_rule_does_not_judge_a_language_it_cannot_read() -> None:
    assert state_rule("venvをactivateしろよ") == "venvをactivateしろよ"


def test_typo_fix_then_statement_reaches_the_title() -> None:
    text = "Sorry for interrupting. You shold never add doctrings to spec files."
    assert state_rule(fix_typos(text, VOCABULARY)) == "Never add docstrings to spec files"


# --- rule_slug_words --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("title", "expected"),
    [
        ("Don't use mocks for the DB", "dont-use-mocks-db"),
        ("Always run ruff before committing", "run-ruff-committing"),
        ("Prefer uv over pip", "prefer-uv-pip"),
        ("Never add docstrings to spec files", "never-add-docstrings-spec-files"),
        ("Café données über naïve", "cafe-donnees-uber-naive"),
        (
            "Use the project's Python virtual environment in venv for the document extraction",
            "use-project-python-virtual-environment-venv",
        ),
        ("Keep `new FileSystem()` in one place", "keep-new-filesystem-one-place"),
        ("Test test TEST tests", "test-tests"),
    ],
)
def test_rule_slug_words(title: str, expected: str) -> None:
    assert rule_slug_words(title) == expected


def test_rule_slug_words_keeps_filler_when_it_is_all_there_is() -> None:
    assert rule_slug_words("Do it for them") == "do-it-for-them"
    assert rule_slug_words("") == ""


@pytest.mark.parametrize(
    "title",
    ["Don't use mocks for the DB", "Über naïve Café rules, e.g. this one!", "1. Pin v2.3 of `uv`"],
)
def test_rule_slug_words_is_a_slug(title: str) -> None:
    words = rule_slug_words(title)
    assert slugify(words) == words
    assert len(words.split("-")) <= 6


def test_content_words_drop_function_words() -> None:
    assert content_words("You should never use the mocks for a DB!") == [
        "never",
        "use",
        "mocks",
        "db",
    ]


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        # shouting is lowered, short names kept
        ("WE DON'T WANT FUCKING CITIES", "We don't want cities"),
        ("WHY ARE YOU CHECKING IP AT ALL BEFORE CONNECTING???", "Why are you checking IP at all"),
        ("WE SHOULD DEFINITELY ALLOW SHORTCODES", "Definitely allow shortcodes"),
        # a word in capitals in a sentence typed in lower case is the person's emphasis
        ("The retries must stay at 3, use the LIVE IP CHECK", "The retries must stay at 3"),
        # shouting opens the sentence: names in capitals after a word in lower case stay
        ("Always show ZREADINGPROGRESS = 1.0 AND ZISFINISHED = 1", "Always show ZREADINGPROGRESS"),
        # an expletive that only adds force goes; a verb stays
        ("We don't need 12 fucking retries in the code.", "We don't need 12 retries in the code"),
        ("Stop fucking with the permissions of the configs folder.", "Stop fucking with"),
        # an identifier opening the sentence keeps its case
        ("rotateWrapped should not be removed.", "rotateWrapped should not be removed"),
    ],
)
def test_a_title_is_neither_shouted_nor_sworn(sentence: str, expected: str) -> None:
    from lorebook.extractors.titles import rule_title

    assert rule_title(sentence).startswith(expected)


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        ("WHY ARE YOU CHECKING IP AT ALL BEFORE CONNECTING???", "Don't check IP at all"),
        ("Why are you trying to cd to my home directory?", "Don't try to cd to my home"),
        ("why are you making a new branch again?", "Don't make a new branch again"),
        ("Why are you running the whole suite?", "Don't run the whole suite"),
        ("why did you get rid of the from_text calls?", "Don't get rid of the from_text calls"),
        # a verb of mind, or a verb the agent never wrote, is no conduct to stop
        ("Why do you think that is?", "Why do you think that is"),
        ("Why are you singing?", "Why are you singing"),
    ],
)
def test_a_question_at_the_agents_conduct_is_titled_by_what_to_stop(
    sentence: str, expected: str
) -> None:
    from collections import Counter

    from lorebook.extractors.titles import rule_title

    agent = Counter(["check", "try", "cd", "make", "run", "get", "rid", "think"])
    assert rule_title(sentence, agent).startswith(expected)


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        (
            "Can't we make the latest python a dependency declared in our project?",
            "Make the latest python a dependency declared in our project",
        ),
        ("Can\u2019t you use the venv?", "Use the venv"),
        ("Why not use uv?", "Use uv"),
        ("Why don't you run the tests first?", "Run the tests first"),
        ("Shouldn't that be in docs?", "That should be in docs"),
        ("We can drop the comment, right?", "We can drop the comment"),
        # a question asking something, or with a verb the agent never wrote, stays a question
        ("Can you tell me why it failed?", "Can you tell me why it failed?"),
        ("Can you think of a reason?", "Can you think of a reason?"),
        ("Could you juggle?", "Could you juggle?"),
        ("How is this done, right?", "How is this done, right?"),
    ],
)
def test_a_suggestion_put_as_a_question_is_titled_by_what_it_suggests(
    sentence: str, expected: str
) -> None:
    from collections import Counter

    from lorebook.extractors.titles import rule_title

    agent = Counter(["make", "use", "run", "tell", "think"])
    assert rule_title(sentence, agent) == expected


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        (
            "The old `src/billing` module only keeps the API shims, so do not add code there.",
            "Do not add code in src/billing",
        ),
        # the place is in the title already, or the sentence names none or several
        (
            "Keep the fixtures in tests/fixtures and never put real data there.",
            "Keep the fixtures in tests/fixtures and never put real data there",
        ),
        ("Do not add code there.", "Do not add code there"),
        (
            "Logs go to var/log/app or to tmp/logs, never write anything else there.",
            "Never write anything else there",
        ),
        # an existential there is no place
        ("There is a shim in src/billing, never remove it.", "There is a shim in src/billing"),
    ],
)
def test_a_there_in_a_title_is_the_one_place_its_sentence_names(
    sentence: str, expected: str
) -> None:
    from lorebook.extractors.titles import rule_title

    assert rule_title(sentence).startswith(expected)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "amounts are int64 minor units everywhere (an `amount_minor` + `currency` pair,"
            " never a decimal or float field) so keep it that way in the request",
            "Amounts are int64 minor units everywhere so keep it that way in the request",
        ),
        (
            "add a `session start` command (i'm using the command names as shorthand, it should"
            " actually call the domain methods, not the cli commands), then return its path",
            "It should actually call the domain methods, not the cli commands",
        ),
        # "never" with no verb is the contrast of the clause before it, not a rule of its own
        (
            "every screen opened from outside the app has to go through the router, never an"
            " explicit Intent.",
            "Every screen opened from outside the app has to go through the router",
        ),
        (
            "make sure the tests pass before you commit",
            "Make sure the tests pass before you commit",
        ),
        # a long rule loses its parentheses before it loses its words
        (
            "when the user quits with files selected (by pressing q or Esc, or closing the"
            " terminal) the app must warn first",
            "When the user quits with files selected the app must warn first",
        ),
    ],
)
def test_asides_and_contrasts_stay_with_their_clause(text: str, expected: str) -> None:
    assert state_rule(text) == expected


def test_a_title_that_opens_with_an_address_keeps_it_as_typed() -> None:
    sentence = "https://example.org/guidelines/al It should follow these guidelines"
    assert rule_title(sentence, Counter()).startswith("https://example.org/guidelines/al")
