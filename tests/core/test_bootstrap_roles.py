"""Bootstrap leaves out what the instructions say about themselves (issue 27, item 6).

A rule file that applies only to rule files (its globs name ``*.mdc``) is about writing
rules; a rule file's rule that speaks of rules ("Never repeat content across rules") is
too. Neither is the project's rule; a rule of the code named a rule ("Test the core
business rules") is.
"""

from __future__ import annotations

from pathlib import Path

from lorebook.bootstrap.roles import instruction_globs, names_rules
from lorebook.kb.notes import parse_note
from tests.conftest import CliRunner

WRITING_RULES = """---
description: Guidelines for creating or updating .mdc rule files.
globs: **/*.mdc
alwaysApply: false
---
# Rule Creation Guidelines

## File location

- Rule files must be stored in the `.cursor/rules` directory at the root of the project.
- Never create rule files in any other location.

## Frontmatter

- Every file must have opening and closing frontmatter markers.
"""

TESTING = """---
description: How we test
globs: src/**/*.ts
alwaysApply: false
---
# Testing

## Principles

- Never repeat content across rules; link the rule that says it.
- Always test the core business rules of the billing domain.
- Never mock the database in integration tests.
"""


def _titles(repo: Path) -> list[str]:
    found = []
    for path in sorted((repo / ".lorebook" / "nodes").rglob("*.md")):
        if path.name != "index.md":
            note, _ = parse_note(path.read_text(encoding="utf-8"), source=path.name)
            found.append(note.title)
    return found


def test_rules_about_the_rule_files_are_no_notes(kb_repo: Path, cli: CliRunner) -> None:
    rules = kb_repo / ".cursor" / "rules"
    rules.mkdir(parents=True)
    (rules / "rule-creation-guidelines.mdc").write_text(WRITING_RULES, encoding="utf-8")
    (rules / "testing.mdc").write_text(TESTING, encoding="utf-8")

    result = cli("bootstrap", "--json", cwd=kb_repo)
    assert result.exit_code == 0, result.stderr
    report = result.json()
    titles = _titles(kb_repo)
    # the project's rules stay, a rule of the code called a rule among them
    assert any("business rules" in t for t in titles), titles
    assert any("mock the database" in t for t in titles), titles
    # what the rule files say about rule files is counted, not written
    assert not [t for t in titles if "rule" in t.lower() and "business" not in t], titles
    assert not [t for t in titles if "frontmatter" in t.lower()], titles
    assert report["statements"]["left_out"]["about the instructions"] == 4


def test_a_document_is_about_the_instructions_when_its_globs_name_only_them() -> None:
    assert instruction_globs(["**/*.mdc"])
    assert instruction_globs([".cursor/rules/**", "CLAUDE.md", "**/AGENTS.md"])
    assert instruction_globs([".github/instructions/*.instructions.md"])
    assert not instruction_globs([])  # no globs: the rule applies everywhere
    assert not instruction_globs(["**/*.mdc", "src/**/*.ts"])
    assert not instruction_globs(["docs/**/*.md"])


def test_a_rule_names_rules_unless_a_word_says_which_rule_of_the_code() -> None:
    assert names_rules("Each rule should govern exactly one area of concern")
    assert names_rules("Cross-References in Rule Content: include references to related rules")
    assert names_rules("Ensure the rule is precise, testable, and applicable")
    assert not names_rules("ALWAYS Test Domain Logic and Core Business Rules")
    assert not names_rules("Fix every ruff rule violation before committing")
    assert not names_rules("As a rule of thumb, keep functions short")
    assert not names_rules("Never mock the database")
