"""Bootstrap distils: what a rule introduces is its detail, pointers are no rules, and a
rule said again (in other words, with the alternative it turns down, with its code span
shortened) is one rule.

Measured on two projects nobody tuned it on (benchmarks/bootstrap_judgements.md): the Cursor
rules of one stated a rule in a bold item and restated it in every item nested under it,
and the rule files' "Related rules" sections became notes ("Apply alongside
session-first-workflow ..."). Each mechanism here is checked on made-up text.
"""

from __future__ import annotations

from collections import Counter

import pytest

from lorebook.bootstrap.distil import distil
from lorebook.bootstrap.drafting import body_of
from lorebook.bootstrap.drafts import Draft
from lorebook.bootstrap.duplicates import merge_restatements
from lorebook.bootstrap.statements import read_sentence
from lorebook.bootstrap.wording import restates, rule_terms

NESTED = """\
## Core testing principles

1. **NEVER test console output directly**
   * Tests MUST NOT assert against specific console output strings
   * Instead, test that the right information was passed to the output function
2. **Code quality**
   * All tests must pass before a merge.
   * Flaky tests must be fixed or quarantined.
"""


def test_items_nested_under_a_rule_are_its_detail_not_notes_of_their_own() -> None:
    tally: Counter[str] = Counter()
    rules = distil(NESTED, tally)
    assert [r.title for r in rules] == [
        "NEVER test console output directly",
        "All tests must pass before a merge",  # a label states no rule: its items stand
        "Flaky tests must be fixed or quarantined",
    ]
    assert tally["detail"] == 2
    body = body_of(rules[0], ".cursor/rules/testing.mdc")
    assert "Tests MUST NOT assert against specific console output strings" in body
    assert "passed to the output function" in body


def test_a_binding_sentence_ending_in_a_colon_owns_its_list() -> None:
    text = """\
Tasks MUST always be created in the main workspace, not in session directories:

- Always run `cd` to the main workspace before creating one.
- Never create a task file by hand.

Use appropriate types:

- Always use `fix:` for a bug fix.
"""
    titles = [r.title for r in distil(text)]
    assert titles == [
        "Tasks MUST always be created in the main workspace, not in session directories",
        "Always use `fix:` for a bug fix",  # a lead-in that binds nothing owns nothing
    ]


def test_a_heading_that_states_a_rule_is_one_note_with_the_rules_under_it() -> None:
    text = """\
## CRITICAL: Always create tasks in the main workspace

Tasks MUST be created in the main workspace.

Never create a task from inside a session directory.

## Overview

Never push to `main` directly.
"""
    titles = [r.title for r in distil(text)]
    assert titles == [
        "Tasks MUST be created in the main workspace",
        "Never push to `main` directly",
    ]


def test_a_numbered_heading_that_instructs_is_one_note_with_the_rules_under_it() -> None:
    text = """\
## 2. Avoid complex mocking

- Do not use brittle mocking patterns that need the module's internals.
- Avoid mocking the file system unless absolutely required.

## 3. Test isolation

- Never depend on global state.
- Always reset mocks between tests.
"""
    rules = distil(text)
    assert [r.title for r in rules] == [
        "Do not use brittle mocking patterns that need the module's internals",
        "Never depend on global state",  # "Test isolation" names a topic: its items stand
        "Always reset mocks between tests",
    ]
    assert "Avoid mocking the file system" in rules[0].context


@pytest.mark.parametrize(
    "sentence",
    [
        "Whenever a verification error occurs, the AI must:",
        "For traceability, every file edit performed by an agent MUST log:",
        "Deleting state files is STRICTLY FORBIDDEN as it:",
        "Never consider a task complete until changes have been:",
        "Before any file operation, the following verifications MUST be performed:",
        "The cloud host must satisfy all of these requirements when composing cached reads:",
    ],
)
def test_a_sentence_the_list_after_it_finishes_is_a_lead_in(sentence: str) -> None:
    assert read_sentence(sentence).reason == "lead-in"


def test_a_complete_rule_before_a_colon_still_binds() -> None:
    reading = read_sentence("Tasks MUST always be created in the main workspace:")
    assert reading.kind == "convention"


def test_related_rules_and_examples_are_no_rules() -> None:
    text = """\
## Related rules

- Apply alongside session-first-workflow for complete session management.
- Always apply with `resource-management-protocol` when editing config.

## Examples

- Always name the branch after the task.

## Requirements

- Apply alongside session-first-workflow and minsky-cli-usage rules.
- You MUST verify the workspace before editing.
"""
    tally: Counter[str] = Counter()
    titles = [r.title for r in distil(text, tally)]
    assert titles == ["You MUST verify the workspace before editing"]
    assert tally["pointer"] == 2
    assert tally["example"] == 1


def test_examples_a_paragraph_introduces_and_a_preference_after_a_rule_are_that_rule() -> None:
    text = """\
Always use `bun` instead of `node` when running scripts. Bun is the preferred runtime.

Examples:
- Use `bun install` instead of `npm install`
- Use `bun test` instead of `jest`

Avoid dynamic `import()` statements. Prefer static imports for type checking.

Avoid ternary expressions: coverage cannot measure both branches. Use an explicit `if`
block instead.

For unit tests, prefer `FakeModel` over a new mock. Prefer `FakeStream` for stream tests.
"""
    tally: Counter[str] = Counter()
    rules = distil(text, tally)
    assert [r.title for r in rules] == [
        "Always use `bun` instead of `node` when running scripts",
        "Avoid dynamic `import()` statements",
        "Avoid ternary expressions: coverage cannot measure both branches",
        "For unit tests, prefer `FakeModel` over a new mock",
        "Prefer `FakeStream` for stream tests",  # a second preference is a rule of its own
    ]
    assert "`bun install`" in rules[0].context  # the examples are quoted in the rule's note
    assert "Prefer static imports" in rules[1].context
    assert "Use an explicit `if`" in rules[2].context  # "... instead": the other side
    assert tally["example"] == 2


def test_the_items_under_a_heading_of_reasons_say_why() -> None:
    text = """\
## Why we still need `__init__.py` files

- Package boundaries must be clearly defined
- Subpackages must import reliably in every environment

You should never leak a crash's details to a remote caller.
"""
    tally: Counter[str] = Counter()
    titles = [r.title for r in distil(text, tally)]
    assert titles == ["You should never leak a crash's details to a remote caller"]
    assert tally["reason"] == 2


@pytest.mark.parametrize(
    ("left", "right"),
    [
        # the two false conflicts of the held-out run: now one rule each
        (
            "Tasks MUST always be created in the main workspace, not in session directories",
            "Always ensure you are in the main workspace before creating tasks",
        ),
        (
            "Only after having a failing test, implement the fix",
            "Never implement a fix without first having a failing test",
        ),
        ("Always use `git mv` for moving files",
         "Always use `git mv old_path new_path` for moving or renaming files tracked by Git"),
        ("Avoid redundant comments that merely restate what the code clearly shows",
         "NEVER add redundant comments that restate what the code already expresses"),
        # one action said with another verb, carried by "perform" / "happen"
        ("All code editing, testing, and committing must happen in the session workspace",
         "You MUST perform all code, test, config, and doc changes in the session workspace"),
        ("Never repeat content across rules",
         "Never duplicate the full content of the rules they route"),
        # "correct" only qualifies the environment
        ("Always ensure you are in the correct virtual environment before running any"
         " project-specific commands",
         "Always activate the virtual environment with `source .venv/bin/activate` in each new"
         " terminal session before running any commands"),
        ("Always use `minsky <command> --help` when uncertain about any command or its options",
         "For Minsky commands, verify syntax and options with `minsky <command> --help` rather"
         " than assuming command structure"),
        # an omission negated affirms: "don't miss opportunities to X" is "always X"
        ("Always extract strings that appear 3 or more times",
         "Don't miss opportunities to extract strings that appear 3 or more times"),
        ("Always run the linter before committing",
         "Never forget to run the linter before committing"),
    ],
)  # fmt: skip
def test_one_rule_said_twice_is_one_rule(left: str, right: str) -> None:
    assert restates(rule_terms(left), rule_terms(right))
    assert ("~not" in rule_terms(left)) == ("~not" in rule_terms(right))


@pytest.mark.parametrize(
    ("left", "right"),
    [
        ("Use `uv` to install packages", "Use `pip` to install packages"),
        ("Use uv, not pip, to install packages", "Use pip, not uv, to install packages"),
        ("Never push to main", "Always push to main"),
        ("Do not add new `# type: ignore` comments", "Add new `# type: ignore` comments"),
        ("Use `git mv` to move files", "Use `git rm` to move files"),
        # "never" shared by two prohibitions says nothing of what they forbid
        ("Never use `test.skip()` to avoid fixing tests",
         "NEVER delete test files to fix test failures"),
        # a code span only one of them names weighs as much as in the overall likeness
        ("Filter keys must match `[A-Za-z0-9_-]+`",
         "Multiple keys combine with AND logic: every filter must match"),
    ],
)  # fmt: skip
def test_different_rules_stay_apart(left: str, right: str) -> None:
    left_terms, right_terms = rule_terms(left), rule_terms(right)
    same_polarity = ("~not" in left_terms) == ("~not" in right_terms)
    assert not (same_polarity and restates(left_terms, right_terms))


def test_a_checklist_is_one_rule_quoting_its_criteria() -> None:
    text = """\
## Complete status verification

Before marking any task as DONE, do a final verification:

1. **Requirements validation**
   - All requirements in the task document should be implemented
   - All acceptance criteria should be met
2. **Documentation check**
   - Work log should be up to date
   - Changelog should be updated

## Test execution requirements

3. **Test success criteria**
   - All tests must pass
   - No new test warnings should be introduced
"""
    tally: Counter[str] = Counter()
    rules = distil(text, tally)
    assert [r.title for r in rules] == [
        "Before marking any task as DONE, do a final verification",  # the check's occasion
        "All tests must pass",
    ]
    assert "All requirements in the task document should be implemented" in rules[0].context
    assert "All acceptance criteria should be met" in rules[0].context
    assert "Work log should be up to date" in rules[0].context  # one check, its groups too
    assert "No new test warnings should be introduced" in rules[1].context


@pytest.mark.parametrize(
    ("sentence", "reason"),
    [
        ("I should have verified my changes were applied correctly.", "history"),
        ("Such exceptions should be well-justified and documented.", "refers back"),
        ("The following verification protocol is MANDATORY for all Git operations.",
         "refers back"),
        ("Never use text-based tools like `grep` or `sed` for this purpose.", "refers back"),
        ("Update only if the issue is specific to that domain.", "refers back"),
        ('"make sure to always...", "going forward, always..."', "example"),
        ("For resource management, apply with resource-management-protocol rule.",
         "refers back"),
        ("When fixing bugs, always follow this test-driven development workflow.",
         "refers back"),
        ("Always applicable core principles.", "statement"),
    ],
)  # fmt: skip
def test_regrets_references_and_quoted_phrases_are_no_rules(sentence: str, reason: str) -> None:
    assert read_sentence(sentence).reason == reason


@pytest.mark.parametrize(
    "sentence",
    [
        '`prompt.hide_reasoning` means "hide visible reasoning output", not "disable reasoning".',
        "The client must have declared the `sampling` capability.",
        "Never derive host paths from serialized or other untrusted input.",
        "Always follow this project's commit conventions before every push.",
        "Always prefer integration tests that invoke the command handler directly.",
    ],
)
def test_a_quoted_definition_and_a_required_state_still_bind(sentence: str) -> None:
    assert read_sentence(sentence).kind is not None


def test_a_title_keeps_code_whole_and_skips_a_label_before_the_rule() -> None:
    text = """\
- Tests MUST NEVER include placeholders like `expect(true).toBe(true)` (no exceptions)
- **Mandatory Pre-Edit Verification Message:** Before every call to `edit_file`, the AI
  **MUST** output the verification message that names the session directory and the file.
"""
    assert [r.title for r in distil(text)] == [
        "Tests MUST NEVER include placeholders like `expect(true).toBe(true)`",
        "Before every call to `edit_file`, the AI MUST output the verification message that "
        "names the session directory …",
    ]


def test_a_title_cut_short_is_compared_by_its_whole_sentence() -> None:
    first = Draft(
        "AGENTS.md#testing", "New code should be covered by tests",
        "New code should be covered by tests.", "", "convention",
    )  # fmt: skip
    long = (
        "All new Python code files containing logic or features must be accompanied by "
        "corresponding test files in the `specs/` directory and be covered by tests"
    )
    second = Draft(
        "AGENTS.md#additional-instructions",
        "All new Python code files containing logic or features must be accompanied by …",
        long, "", "convention",
    )  # fmt: skip
    groups, merged = merge_restatements([[first], [second]])
    assert merged == 1
    assert groups[1][0].title == "New code should be covered by tests"


def test_a_rule_said_twice_in_one_section_is_one_rule_but_not_across_documents() -> None:
    def draft(origin: str, title: str) -> Draft:
        return Draft(origin, title, f"{title}.", "", "convention")

    before = "Before committing, always run the full test suite and ensure all tests pass"
    after = "The AI agent must run the full test suite after making any changes"
    groups, merged = merge_restatements(
        [[draft("AGENTS.md#testing", before), draft("AGENTS.md#testing", after)]]
    )
    assert merged == 1
    assert groups[0][1].title == before
    assert groups[0][1].origin == "AGENTS.md#testing"  # the note still cites where it was said
    _, apart = merge_restatements(
        [[draft("AGENTS.md#testing", before)], [draft("docs/agents.md#workflow", after)]]
    )
    assert apart == 0


def test_a_section_whose_heading_names_an_earlier_rule_details_it() -> None:
    def draft(origin: str, title: str) -> Draft:
        return Draft(origin, title, f"{title}.", "", "prohibition")

    principle = "NEVER test filesystem operations directly"
    detail = "DO NOT TEST: actual file reading/writing or directory operations"
    groups, merged = merge_restatements(
        [
            [
                draft("rules.md#principles", principle),
                draft("rules.md#direct-filesystem-operations", detail),
            ]
        ]
    )
    assert merged == 1
    assert groups[0][1].title == principle
    assert groups[0][1].origin == "rules.md#direct-filesystem-operations"
    # a heading naming a topic the rule only mentions ("Pull requests") folds nothing
    mention = draft(
        "CONTRIBUTING.md#intro",
        "Pull requests from outside the team are only reviewed when assigned",
    )
    later = draft("CONTRIBUTING.md#pull-requests", "Never open two pull requests for one issue")
    _, apart = merge_restatements([[mention, later]])
    assert apart == 0


def test_a_check_a_lead_in_names_owns_its_labelled_groups() -> None:
    text = """\
Before marking any task as DONE, do a final verification:

1. **Requirements validation**
   - All requirements in the task document should be implemented
   - All acceptance criteria should be met
2. **Code quality verification**
   - All tests should be passing
   - No TODOs should remain
3. **Documentation verification**
   - Work log should be up to date
"""
    rules = distil(text)
    assert [r.title for r in rules] == ["Before marking any task as DONE, do a final verification"]
    assert rules[0].statement == "Before marking any task as DONE, do a final verification"
    assert "Work log should be up to date" in rules[0].context


def test_an_item_that_describes_a_link_is_a_pointer() -> None:
    text = """\
- [testing-boundaries](rules/testing-boundaries.md): CRITICAL rules for what should NOT be tested
- Never comment out failing tests.
"""
    tally: Counter[str] = Counter()
    assert [r.title for r in distil(text, tally)] == ["Never comment out failing tests"]
    assert tally["pointer"] == 1


STYLE_LIST = """\
## Code Style
- TypeScript with strict null checks
- Tests should use the real logger implementation (do not mock `@/utils/logger`).
- Helper functions go at the bottom of files, not the top
- No re-export patterns. Import from the original source.
- No barrel files. Import directly from source files.
- One resource per API route file
- Don't export types only used within the same file
"""


def test_a_style_guides_list_is_read_item_by_item_not_as_a_checklist() -> None:
    # Seen on a project's AGENTS.md: 19 terse rules under "Code Style", few of them forceful
    # alone, were read as a checklist, and not one became a note.
    titles = [r.title for r in distil(STYLE_LIST)]
    assert titles == [
        "Tests should use the real logger implementation",
        "No re-export patterns",
        "No barrel files",
        "Don't export types only used within the same file",
    ]
    # "No ..." prohibits only where a heading says the list is about style
    limits = [r.title for r in distil(STYLE_LIST.replace("## Code Style", "## Limitations"))]
    assert "No barrel files" not in limits
    # a checklist under such a heading (its items open with verbs) is still a checklist
    checklist = "## Code Style\n- Include the ticket number\n- Explain the change\n- Add a test\n"
    assert distil(checklist) == []


def test_a_bold_rule_that_introduces_code_is_a_rule() -> None:
    # A rule file wrote its rules as bold lead-ins to an example: read as headings with
    # nothing but code under them, none became a note.
    text = """\
### 2. Data Access Control

**ALL database queries MUST be scoped to the authenticated user/account:**

```typescript
const rules = await prisma.rule.findMany({ where: { emailAccountId } });
```

**Example:**

```typescript
const x = 1;
```

Always pass the account id to the query helper here.
"""
    assert [(r.kind, r.title) for r in distil(text)] == [
        ("convention", "ALL database queries MUST be scoped to the authenticated user/account")
    ]  # a short bold label before code stays a label: what follows it is its example
