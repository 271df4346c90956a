"""A rule restated in other words in a document that links to it is one note citing both.

Measured on a project nobody tuned bootstrap on (benchmarks/bootstrap_judgements.md): its
Cursor rules have "start here" routers that link to the rule files and restate their rules
in other words ("Never comment out failing tests" for the linked file's "Tests MUST NEVER
contain commented-out assertions"), and rule files whose closing "Requirements" section
restates their own principles. Word overlap alone could not tell those from two different
rules of one subject; here the link (or the one document) says the two places speak of the
same things, and the terms are weighed by how rare they are among the run's rules. Every
case is made-up text.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lorebook.bootstrap.drafts import Draft
from lorebook.bootstrap.duplicates import (
    links_between,
    merge_restatements,
    rare_containment,
    rarity,
)
from lorebook.bootstrap.wording import restates, rule_terms
from lorebook.models.note import NoteKind
from tests.conftest import CliRunner

BOUNDARIES = """\
---
description: What tests must and must not check
alwaysApply: true
---
# Testing boundaries

## Principles

- Tests MUST NEVER contain commented-out assertions
- NEVER test console output directly
- Never modify files in the main workspace while implementing a task
- Always run the linter before committing
"""

ROUTER = """\
---
description: Start here for anything about tests
alwaysApply: true
---
# Testing guidance

The full rules are in [testing boundaries](mdc:.cursor/rules/testing-boundaries.mdc).

## Requirements

- Never comment out failing tests
- Never copy files from the main workspace into the session workspace
- Always tag slow tests with `@slow`
"""


def _would_write(repo: Path, cli: CliRunner) -> list[dict[str, Any]]:
    result = cli("bootstrap", "--dry-run", "--json", cwd=repo)
    assert result.exit_code == 0, result.stderr
    notes: list[dict[str, Any]] = result.json()["would_write"]
    return notes


def test_a_paraphrase_in_a_linking_document_is_one_note_citing_both_files(
    kb_repo: Path, cli: CliRunner
) -> None:
    rules = kb_repo / ".cursor" / "rules"
    rules.mkdir(parents=True)
    (rules / "testing-boundaries.mdc").write_text(BOUNDARIES, encoding="utf-8")
    (rules / "testing-router.mdc").write_text(ROUTER, encoding="utf-8")
    notes = _would_write(kb_repo, cli)
    by_title = {n["title"]: n["derived_from"] for n in notes}
    # the router's paraphrase folds into the rule it links to, and the note cites both
    assert "Never comment out failing tests" not in by_title
    assert by_title["Tests MUST NEVER contain commented-out assertions"] == [
        ".cursor/rules/testing-boundaries.mdc#principles",
        ".cursor/rules/testing-router.mdc#requirements",
    ]
    # two different rules of one subject, sharing most words, stay two notes
    assert "Never modify files in the main workspace while implementing a task" in by_title
    assert "Never copy files from the main workspace into the session workspace" in by_title
    assert len(notes) == 6


def test_without_a_link_the_same_two_sentences_are_compared_by_their_words_alone() -> None:
    def draft(origin: str, title: str) -> Draft:
        return Draft(origin, title, f"{title}.", "", "prohibition")

    documents = [
        [draft("a.md#principles", "Tests MUST NEVER contain commented-out assertions")],
        [draft("b.md#requirements", "Never comment out failing tests")],
    ]
    _, apart = merge_restatements(documents)
    assert apart == 0
    groups, merged = merge_restatements(
        documents, links=links_between({"a.md": "", "b.md": "[a](a.md)"})
    )
    assert merged == 1
    assert groups[1][0].title == "Tests MUST NEVER contain commented-out assertions"
    assert groups[1][0].origin == "b.md#requirements"


def test_a_document_summary_restates_its_own_rules_only_with_the_same_action() -> None:
    def draft(origin: str, title: str) -> Draft:
        return Draft(origin, title, f"{title}.", "", "convention")

    principle = "Group functions by what they operate on rather than how they operate"
    summary = "You MUST group related functions and types by domain, not by technical layer"
    web = "With OpenAI, you must use their Responses API to access the web search tool"
    mcp = "With OpenAI, you must use their Responses API to access the MCP server tool"
    groups, merged = merge_restatements(
        [
            [
                draft("modules.md#principles", principle),
                draft("modules.md#requirements", summary),
                draft("tools.md#web-search", web),
                draft("tools.md#mcp", mcp),
            ]
        ]
    )
    assert merged == 1
    assert [d.title for d in groups[0]] == [principle, principle, web, mcp]


def test_links_are_read_from_markdown_and_cursor_links_both_ways() -> None:
    texts = {
        "README.md": "See [the guide](docs/guide.md#setup) and [site](https://example.org/x.md).",
        "docs/guide.md": "Back to [the rules](../.cursor/rules/tests.mdc).",
        ".cursor/rules/tests.mdc": "Apply with [router](mdc:.cursor/rules/router.mdc).",
        ".cursor/rules/router.mdc": "No links here.",
        "docs/other.md": "[missing](nowhere.md)",
    }
    links = links_between(texts)
    assert links["README.md"] == {"docs/guide.md"}
    assert links["docs/guide.md"] == {"README.md", ".cursor/rules/tests.mdc"}
    assert links[".cursor/rules/router.mdc"] == {".cursor/rules/tests.mdc"}
    assert links["docs/other.md"] == frozenset()


def test_rarity_weighs_a_term_every_rule_uses_least() -> None:
    claims = [rule_terms(t) for t in ("Never skip tests", "Tests must pass", "Name tests well")]
    rare = rarity(claims)
    # a term the other rules use weighs less than one no other rule uses
    assert rare.weight("test", 1) < rare.weight("skip", 1)
    # sharing only a common term is not sharing a subject
    left, right = rule_terms("Never skip tests"), rule_terms("Never name tests badly")
    assert rare_containment(left, right, rare) == 0.0


def test_an_option_or_method_named_alone_is_the_same_code_as_on_its_command() -> None:
    assert restates(
        rule_terms("Tests must never be marked with `.skip()` to pass"),
        rule_terms("Never mark tests with `test.skip()` to pass"),
    )
    assert restates(
        rule_terms("Check a command with `--help` before running it"),
        rule_terms("Check a command with `minsky <command> --help` before running it"),
    )
    assert restates(
        rule_terms("Always check `/process/tasks.md` for an existing task first"),
        rule_terms("Always check `process/tasks.md` for an existing task first"),
    )
    # two different methods are still two
    assert not restates(
        rule_terms("Never call `.skip()` in a test"), rule_terms("Never call `.only()` in a test")
    )


def test_a_shared_code_span_weighs_double_across_a_link() -> None:
    def draft(origin: str, title: str) -> Draft:
        return Draft(origin, title, f"{title}.", "", "prohibition")

    rule = "Tests MUST NEVER include placeholders like `expect(true).toBe(true)`"
    summary = "Never use `expect(true).toBe(true)` or similar non-testing patterns"
    others = [
        "Never test console output directly",
        "Never delete test files to fix failures",
        "Never share mutable state between tests",
        "Never commit placeholder tests",
        "Never include secrets in test fixtures",
    ]
    documents = [
        [draft("rules/boundaries.md#principles", t) for t in (rule, *others)],
        [draft("rules/router.md#requirements", summary)],
    ]
    links = links_between({"rules/boundaries.md": "", "rules/router.md": "[b](boundaries.md)"})
    groups, merged = merge_restatements(documents, links=links)
    assert merged == 1
    assert groups[1][0].title == rule


def _drafts(kind: NoteKind, *places: tuple[str, str]) -> list[list[Draft]]:
    return [[Draft(origin, title, f"{title}.", "", kind)] for origin, title in places]


def test_a_phrasal_verb_and_its_noun_are_one_term() -> None:
    # "cleaned up" is the action "cleanup" names; "up to date" is no verb's particle
    assert rule_terms("Ensure resources are cleaned up even when errors occur") >= {"cleanup"}
    assert rule_terms("Ensure Resource Cleanup") == {"resourc", "cleanup"}
    assert rule_terms("Tests MUST NEVER contain commented-out assertions") >= {"commentout"}
    assert not any(t.endswith("up") for t in rule_terms("Keep the docs up to date"))
    assert not any(
        t.endswith("up") for t in rule_terms("Check the most accurate and up-to-date help")
    )
    links = links_between({"router.md": "[rules](rules.md)", "rules.md": ""})
    groups, merged = merge_restatements(
        _drafts(
            "convention",
            ("router.md#principles", "Ensure Resource Cleanup"),
            ("rules.md#key-principles", "Ensure resources are cleaned up even when errors occur"),
        ),
        links=links,
    )
    assert merged == 1
    assert groups[1][0].origin == "rules.md#key-principles"
    assert groups[1][0].title == "Ensure Resource Cleanup"


def test_an_alternative_turned_down_is_what_a_prohibition_of_it_forbids() -> None:
    use_tool = (
        "Always use the project's tools to manage resources rather than modifying files directly"
    )
    never = "NEVER modify resource files directly if a management tool is available"
    groups, merged = merge_restatements(
        [
            [
                Draft("tools.md#core-principle", use_tool, f"{use_tool}.", "", "convention"),
                Draft("tools.md#requirements", never, f"{never}.", "", "prohibition"),
            ]
        ]
    )
    assert merged == 1
    assert (groups[0][1].title, groups[0][1].kind) == (use_tool, "convention")
    # a prohibition of something the affirming rule does not turn down stays apart
    other = "NEVER delete resource files while a management tool is running"
    _, apart = merge_restatements(
        [
            [
                Draft("tools.md#core-principle", use_tool, f"{use_tool}.", "", "convention"),
                Draft("tools.md#requirements", other, f"{other}.", "", "prohibition"),
            ]
        ]
    )
    assert apart == 0
