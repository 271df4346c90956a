"""Rules about the instructions themselves: how to write the rule files, not the project.

A project's instruction documents (Cursor rule files, Copilot instructions, CLAUDE.md,
AGENTS.md) are what bootstrap reads; some of what they say is about those documents: where
a rule file goes, what its front matter holds, that each rule governs one concern, that
rules must not repeat each other. Such a rule is kept by whoever edits the instructions,
and the host already shows it to them then (a rule file that applies to ``**/*.mdc`` is
attached when a rule file is edited); as a note of the project's memory it is served at
prompts about the code, where it says nothing. Two places tell it:

- **The document's role**: a rule file whose globs all name instruction documents
  (``**/*.mdc``, ``.cursor/rules/**``, ``.github/instructions/**``, ``CLAUDE.md`` ...)
  applies only while instructions are edited; every rule in it is about them.
- **The rule's subject**: in a rule file (which calls itself a rule), a rule that names
  rules ("Never repeat content across rules", "Each rule should govern exactly one area of
  concern", "Ensure the rule is precise") speaks of the rule files. A qualified rule of
  the code ("business rules", "lint rules") is the project's and stays.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

_INSTRUCTION_GLOB = re.compile(
    r"(?:^|/|\*)(?:[^/]*\.mdc|\.cursor/rules(?:/.*)?|\.github/instructions(?:/.*)?"
    r"|[^/]*\.instructions\.md|copilot-instructions\.md|CLAUDE\.md|AGENTS\.md|GEMINI\.md"
    r"|\.cursorrules)$",
    re.IGNORECASE,
)
_RULE_WORD = re.compile(r"\b(\w+)?(\W+)?\brules?\b(?!\s+of\s+thumb)", re.IGNORECASE)
RULE_QUALIFIERS = frozenset(
    {
        "business",
        "domain",
        "validation",
        "lint",
        "linting",
        "linter",
        "eslint",
        "ruff",
        "biome",
        "pylint",
        "firewall",
        "routing",
        "css",
        "security",
        "access",
        "naming",
        "formatting",
        "parsing",
        "matching",
        "golden",
    }
)
"""A word before *rule* that says which rule of the code it is: that rule is the project's."""


def instruction_globs(globs: Sequence[str]) -> bool:
    """True when every glob (one at least) names instruction documents only.

    >>> instruction_globs(["**/*.mdc"]), instruction_globs(["src/**/*.ts", "**/*.mdc"])
    (True, False)
    """
    return bool(globs) and all(_INSTRUCTION_GLOB.search(g.strip()) for g in globs)


def names_rules(title: str) -> bool:
    """True when a rule file's rule speaks of rules, the documents, not of the code.

    >>> names_rules("Never repeat content across rules"), names_rules("Test core business rules")
    (True, False)
    """
    for match in _RULE_WORD.finditer(title):
        before = (match.group(1) or "").lower()
        if match.group(2) and match.group(2).strip() not in {"", "-"}:
            before = ""  # punctuation between: the word before qualifies nothing
        if before not in RULE_QUALIFIERS:
            return True
    return False


__all__ = ["RULE_QUALIFIERS", "instruction_globs", "names_rules"]
