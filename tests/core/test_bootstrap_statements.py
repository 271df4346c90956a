"""The grammar bootstrap reads documentation with: one sentence, one block, one title."""

from __future__ import annotations

from collections import Counter

import pytest

from lorebook.bootstrap.distil import distil, plain, sentences, title_of
from lorebook.bootstrap.statements import read_sentence

RULES = [
    ("Never push directly to `main`.", "prohibition"),
    ("Do not commit secrets; put them in the vault.", "prohibition"),
    ("If the key is missing, fall through \u2014 don't fail.", "prohibition"),
    ("Avoid global state in request handlers.", "prohibition"),
    ("Always pass `encoding=` to `open()`.", "convention"),
    ("Public functions must have docstrings.", "convention"),
    ("Tests should be fast and deterministic.", "convention"),
    ("Use `uv` for dependency management, not pip.", "convention"),
    ("Keep every function under 40 lines.", "convention"),
    ("Use anyio, not asyncio.", "convention"),
    ("Run `make lint` before committing.", "convention"),
    ("Be careful: the cache is shared between workers.", "gotcha"),
    ("A ledger entry means one immutable line of the ledger.", "vocabulary"),
    ("We chose PostgreSQL over MongoDB because invoices need transactions.", "decision"),
    # ... but an imperative, or a sentence opening on the question, keeps its force
    ("Decide how the API should behave before writing code.", "convention"),
    ("What you must never do is push to main.", "prohibition"),
    # a verb of advice is what the prohibition forbids, not a hedge on it
    ("Don't suggest whitespace changes.", "prohibition"),
    ("Never recommend a library the project does not already use.", "prohibition"),
]

NOT_RULES = [
    ("Run `uv sync` in the root of the repository.", "step"),
    ("Click **Save** and wait for the page to reload.", "click-through"),
    ("Don't select any options.", "click-through"),
    ("To run the tests, use `make test`.", "how-to"),
    ("Use `-s` to see a shorter log.", "how-to"),
    ("You can also pass a custom client.", "hedged"),
    ("We suggest you pin the version.", "hedged"),
    ("The server never caches continuation pages.", "statement"),
    ("`MCPServer` always advertises tools.", "statement"),
    ("Support for Python 3.9 was removed.", "history"),
    ("For example, never use globals.", "example"),
    ("Why do we never use globals?", "question"),
    ("Lint: `ruff check .`", "reference"),
    ("It must be async.", "refers back"),
    ("Don't build on it.", "refers back"),
    ("All tasks must be tracked using the canonical process described here.", "refers back"),
    ("No additional configuration is required.", "statement"),
    ("No standardized format for a long time.", "statement"),
    ("Keep comments brief.", "instruction"),
    ("Keep them concise.", "refers back"),
    ("Never derive it from request-supplied data.", "refers back"),
    ("Never do this to `initialize`.", "refers back"),
    ("Don't log the pre-hash form yourself, either.", "refers back"),
    ("Its two arguments must be claims of the token.", "refers back"),
    ("However, it must be configured to drop permissions.", "refers back"),
    ("In this case, you must use single quotes around the value.", "refers back"),
    ("Please keep in mind that this path must be absolute.", "refers back"),
    ("Always use that function to secure a filename.", "refers back"),
    ("This page describes the architecture.", "refers back"),
    ("To see every option, read the reference.", "how-to"),
    # a modal in a question the sentence embeds is asked about, not required
    (
        "The maintainers have strong beliefs about what FastMCP should and shouldn't do.",
        "statement",
    ),
    ("The docs describe when a test should be marked slow.", "statement"),
]


@pytest.mark.parametrize(("sentence", "kind"), RULES)
def test_a_rule_sentence_binds_with_its_kind(sentence: str, kind: str) -> None:
    assert read_sentence(plain(sentence)).kind == kind


@pytest.mark.parametrize(("sentence", "reason"), NOT_RULES)
def test_a_sentence_that_is_no_rule_says_why(sentence: str, reason: str) -> None:
    reading = read_sentence(plain(sentence))
    assert reading.kind is None
    assert reading.reason == reason


def test_a_strict_reading_keeps_only_strong_rules() -> None:
    assert read_sentence("Tests should be fast.", strict=True).kind is None
    assert read_sentence("Keep every function short.", strict=True).kind is None
    assert read_sentence("Never share a client between threads.", strict=True).kind
    assert read_sentence("Do not share a client between threads.", strict=True).kind


def test_a_procedure_keeps_only_strong_steps() -> None:
    steps = "1. Clone the repository.\n2. Run `uv sync`.\n3. Don't select any options.\n"
    assert distil(steps) == []
    strong = "1. Clone the repository.\n2. Never commit the `.env` file.\n3. Run `uv sync`.\n"
    (rule,) = distil(strong)
    assert rule.title == "Never commit the `.env` file"


def test_the_sections_of_a_numbered_procedure_are_steps() -> None:
    # "#### 2. Add a New Task" is a step of a procedure, and so is what it says: only a
    # strong sentence under it binds. A numbered principle ("2. Avoid mocking") is no step.
    text = """\
#### 2. Add a New Task
- Add a new checklist item to `process/tasks.md` using the format below.
  - The title should be concise but descriptive.
  - Never reuse a task number.

#### 3. Avoid deep mocking
- Mocks should replace only the boundary of the module.
"""
    assert [r.title for r in distil(text)] == [
        "Never reuse a task number",
        "Mocks should replace only the boundary of the module",
    ]


@pytest.mark.parametrize("heading", ["## Rule Update Steps", "## Follow This Exact Procedure"])
def test_a_section_whose_heading_names_steps_holds_steps(heading: str) -> None:
    # a heading that names steps wins over "Rule" in it: its items are steps, not rules
    text = f"{heading}\n\n1. If the issue is a user preference, update the preferences file.\n"
    text += "2. Only after confirmation, resume the previous task.\n3. Never duplicate rules.\n"
    assert [r.title for r in distil(text)] == ["Never duplicate rules"]


def test_a_lead_in_or_a_heading_gives_its_items_their_force() -> None:
    (avoid,) = distil("Never:\n\n- commit secrets to the repository\n")
    assert avoid.title == "Never commit secrets to the repository"
    assert avoid.kind == "prohibition"
    text = "## Rules\n\n- Mirror the source tree in `tests/`.\n- The database is Postgres.\n"
    (mirror,) = distil(text)
    assert mirror.title == "Mirror the source tree in `tests/`"


def test_what_a_program_will_do_is_described_not_required() -> None:
    steps = (
        "1. Attempt to connect to the server\n"
        "2. Detect that OAuth authentication is required\n"
        "3. Open a browser for authentication\n"
    )
    tally: Counter[str] = Counter()
    assert distil(f"## Run the example\n\nThe `client.py` will:\n\n{steps}", tally) == []
    assert tally["description"] == 3
    # a list the reader is given keeps its force
    (rule,) = distil("You will:\n\n1. never push to main\n")
    assert rule.title == "Never push to main"


def test_a_block_quote_under_a_code_block_is_what_it_printed() -> None:
    shown = (
        "Example:\n\n```bash\nllm -t roast 'How are you?'\n```\n> I must admit, I never sleep.\n"
    )
    assert distil(shown) == []
    noted = "```bash\nmake deploy\n```\n\n> **Note:** never deploy on a Friday.\n"
    (rule,) = distil(noted)
    assert rule.kind == "prohibition"


def test_the_numbered_notes_on_a_code_blocks_lines_are_no_rules() -> None:
    # seen in a project's docs (mkdocs annotations): "1. Keep only the five most recent
    # messages" explained `return messages[-5:]  # (1)!` and became a rule
    annotated = (
        "```python\ndef keep(messages):\n    return messages[-5:]  # (1)!\n```\n\n"
        "1. Keep only the five most recent messages.\n\n"
        "Never drop the system prompt from the history.\n"
    )
    assert [rule.title for rule in distil(annotated)] == [
        "Never drop the system prompt from the history"
    ]
    plain_steps = "```bash\nmake build\n```\n\n1. Never deploy on a Friday.\n"
    assert len(distil(plain_steps)) == 1  # no marker in the code: the list is read


def test_a_sentence_cut_out_of_a_bold_span_keeps_no_marker() -> None:
    text = "- **Entries are append-only. Never remove an existing entry - only add new ones.**\n"
    titles = [rule.title for rule in distil(text)]
    assert titles == ["Never remove an existing entry - only add new ones"]


def test_a_rule_of_thumb_is_advice_not_a_heading_of_rules() -> None:
    items = "- For quick validation, use `bun run ./src/cli.ts`.\n- Mirror the source tree.\n"
    assert len(distil(f"## Rules\n\n{items}")) == 2
    assert distil(f"## Rule of Thumb\n\n{items}") == []


def test_one_rule_per_list_item_and_every_rule_of_a_paragraph() -> None:
    item = "- Never log tokens. Rotate every key yearly.\n"
    assert [r.title for r in distil(item)] == ["Never log tokens"]
    paragraph = "Never log tokens. Always rotate keys yearly.\n"
    assert [r.title for r in distil(paragraph)] == ["Never log tokens", "Always rotate keys yearly"]


def test_headings_code_and_tables_are_never_read_as_rules() -> None:
    text = (
        "# Never\n\n```sh\n# never run this\nrm -rf /\n```\n\n| Do | Don't |\n|---|---|\n"
        "| use uv | use pip |\n\n**Always**\n\nThe service has three parts.\n"
    )
    tally: Counter[str] = Counter()
    assert distil(text, tally) == []
    assert tally["rule"] == 0


def test_a_long_rule_is_titled_by_its_binding_clause() -> None:
    sentence = (
        "`test_coverage.py` enforces the contract in both directions: every requirement must "
        "be exercised by at least one test, and every deferred one by none."
    )
    (rule,) = distil(sentence)
    assert rule.title.startswith("Every requirement must be exercised by at least one test")
    assert rule.statement.startswith("`test_coverage.py` enforces the contract")
    assert title_of("Keep it short; it is read often.") == "Keep it short; it is read often"


def test_a_rule_that_ends_a_quotation_leaves_its_closing_mark_out_of_the_title() -> None:
    # seen in a plan document: _Clarification:_ "The `job_id` is the key. Do not use ... here."
    quoted = 'Do not use any other generated IDs as the primary key here."'
    assert title_of(quoted) == "Do not use any other generated IDs as the primary key here"
    assert title_of('Never write "TODO" in commit messages') == (
        'Never write "TODO" in commit messages'
    )


def test_a_title_keeps_the_words_a_whole_sentence_ends_on() -> None:
    # seen on a real project: "to (de)serialize" became "toserialize", and a sentence
    # ending on "into" or "in" lost it ("what users opt", "the lock bakes")
    assert title_of("Always use the `TypeAdapter` to (de)serialize message histories.") == (
        "Always use the `TypeAdapter` to (de)serialize message histories"
    )
    assert title_of("Recompilation is required for anything the lock bakes in.") == (
        "Recompilation is required for anything the lock bakes in"
    )
    assert title_of("Pass the flag (not the env var) to the runner.") == (
        "Pass the flag to the runner"
    )
    assert title_of("Always begin each task with the checks when:") == (
        "Always begin each task with the checks"  # a lead-in into a list still loses it
    )


def test_a_rule_written_in_capitals_is_titled_in_sentence_case() -> None:
    # seen in a project's agent rules, in a heading's only sentence
    title = title_of("ALL TASK AND SESSION OPERATIONS MUST USE THE MINSKY CLI")
    assert title.startswith("All task and session operations must")  # a short word may stay
    assert title.endswith("the minsky CLI")  # a short name stays


def test_a_long_subject_with_a_second_alternative_keeps_its_verb_in_the_title() -> None:
    sentence = (
        "Any attempt to operate on a file using a relative path, or an absolute path that "
        "falls outside the current session directory, MUST be immediately aborted."
    )
    # not "Any attempt to operate on a file using a relative path": a subject is no rule
    assert title_of(sentence) == (
        "Any attempt to operate on a file using a relative path MUST be immediately aborted"
    )
    # a list in the subject ("A, B, or C") is not an alternative set off by commas
    listed = (
        "ANY errors encountered during implementation, testing, or verification MUST be fixed "
        "before considering the task complete, whatever they are."
    )
    assert "testing" in title_of(listed)


def test_a_long_rule_drops_its_relative_clause_before_being_cut() -> None:
    sentence = (
        "Our project uses the BDD style with pytest-describe/pytest-spec, which is fine, but "
        "should be kept simple."
    )
    # not "..., which is fine": the title keeps what the sentence asks
    assert title_of(sentence) == (
        "Our project uses the BDD style with pytest-describe/pytest-spec, but should be kept simple"
    )
    # a comma then "that" may open the main clause: it is no aside
    main = (
        "When a workflow's top-level `if:` references a custom job's output, even if only in "
        "a comment, that job must also be referenced somewhere in the prompt."
    )
    assert "that job must" in title_of(main) or title_of(main).endswith("…")


def test_sentences_are_not_cut_inside_code_or_after_an_abbreviation() -> None:
    text = "Use `a.b()` e.g. for reads. Never call `x.y()` twice."
    assert sentences(text) == ["Use `a.b()` e.g. for reads.", "Never call `x.y()` twice."]


def test_items_that_say_when_something_else_may_happen_are_no_rules() -> None:
    """Conditions of an exception, and what a change of state requires, are not rules."""
    transitions = """\
1. **IN-PROGRESS \u2192 IN-REVIEW**
   - All tests should be passing
   - PR should be generated
2. **Reverting**
   - Never delete the branch of a task in review.
"""
    tally: Counter[str] = Counter()
    (rule,) = distil(transitions, tally)
    assert rule.title == "Never delete the branch of a task in review"
    assert tally["condition"] == 2
    conditions = """\
### Conditions for permitted use

- No other work must be based on the commits that will be overwritten.
- The user must approve it in writing.

### Rebase safety

- Never rebase branches that have been pushed.
"""
    assert [r.title for r in distil(conditions)] == ["Never rebase branches that have been pushed"]


@pytest.mark.parametrize(
    ("sentence", "title"),
    [
        (
            "Therefore, you must make sure all headers are set before the response starts.",
            "You must make sure all headers are set before the response starts",
        ),
        ("Keep in mind that the path must be absolute.", "The path must be absolute"),
        (
            "As mentioned above, bugs should first be fixed on `main`.",
            "Bugs should first be fixed on `main`",
        ),
        ("Note that hooks are not allowed to raise.", "Hooks are not allowed to raise"),
    ],
)
def test_a_title_goes_without_the_words_that_tie_it_to_the_text_around(
    sentence: str, title: str
) -> None:
    assert title_of(sentence) == title


def test_a_myst_role_reads_as_its_title_or_its_last_name() -> None:
    assert plain("{ref}`Positional arguments <arguments>` should be rare") == (
        "Positional arguments should be rare"
    )
    assert plain("return {class}`~click.shell_completion.CompletionItem` objects") == (
        "return `CompletionItem` objects"
    )


def test_a_rule_file_of_labelled_prohibitions_gives_each_one() -> None:
    # Shaped like a Cursor rule file a project keeps: the two "Don't suggest" items read as
    # hedges, so fewer than half the items stated a rule and the list was taken for a
    # checklist of things to do now: of its nine prohibitions, one became a note.
    text = """\
- **Verify Information**: Always verify information before presenting it.
- **No Apologies**: Never use apologies.
- **No Whitespace Suggestions**: Don't suggest whitespace changes.
- **No Inventions**: Don't invent major changes other than what's explicitly requested.
- **Preserve Existing Code**: Don't remove unrelated code or functionalities.
- **No Unnecessary Updates**: Don't suggest updates to files when nothing needs to change.
- **Use Explicit Variable Names**: Prefer explicit variable names to enhance readability.
- **Prioritize Performance**: When suggesting changes, consider code performance.
- **Error Handling**: Implement robust error handling and logging where necessary.
"""
    titles = [rule.title for rule in distil(text)]
    for expected in (
        "Don't suggest whitespace changes",
        "Don't remove unrelated code or functionalities",
        "Don't suggest updates to files when nothing needs to change",
    ):
        assert expected in titles, titles
