"""Bootstrap reads a docs site's MDX pages written for contributors, not its user manual."""

from __future__ import annotations

from pathlib import Path

from lorebook.bootstrap.documents import find_documents
from tests.conftest import CliRunner

CONTRIBUTING = """---
title: "Contributing"
description: "Development workflow for contributors"
---

## Development standards

Never use bare `except` clauses in the library code.

## Tests

Every test must create its own setup and leave nothing behind.
"""

USER_GUIDE = """---
title: "Progress"
---

import { Tip } from "/snippets/tip.mdx"

Clients must send a `progressToken` in the initial request to receive progress updates.
"""


def _site(repo: Path) -> None:
    for rel, text in {
        "docs/development/contributing.mdx": CONTRIBUTING,
        "docs/servers/progress.mdx": USER_GUIDE,
        "docs/coding-style.mdx": "# Style\n\nAlways name fixtures after what they hold.\n",
    }.items():
        path = repo / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def test_a_docs_sites_pages_for_contributors_are_read_by_default(kb_repo: Path) -> None:
    _site(kb_repo)
    found = [str(rel) for rel in find_documents(kb_repo) if str(rel).startswith("docs/")]
    assert found == ["docs/coding-style.mdx", "docs/development/contributing.mdx"]
    # a folder named on the command line is read whole, its MDX pages too
    named = [str(rel) for rel in find_documents(kb_repo, ["docs/servers"])]
    assert named == ["docs/servers/progress.mdx"]


def test_the_rules_of_a_contributor_page_become_notes(kb_repo: Path, cli: CliRunner) -> None:
    _site(kb_repo)
    result = cli("-C", str(kb_repo), "bootstrap", "--dry-run")
    assert result.exit_code == 0, result.stderr
    assert "Never use bare `except` clauses in the library code" in result.stdout
    assert "Every test must create its own setup" in result.stdout
    assert "from docs/development/contributing.mdx#development-standards" in result.stdout
    assert "progressToken" not in result.stdout  # the user guide is not read


def test_a_page_copied_into_a_second_folder_is_one_quote_said_in_both(
    kb_repo: Path, cli: CliRunner
) -> None:
    # docs sites keep the previous version's pages (docs/v2/...) word for word
    for rel in ("docs/development/contributing.mdx", "docs/v2/development/contributing.mdx"):
        path = kb_repo / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(CONTRIBUTING, encoding="utf-8")
    assert cli("-C", str(kb_repo), "bootstrap").exit_code == 0
    [note] = [
        p
        for p in (kb_repo / ".lorebook" / "nodes").rglob("*.md")
        if "bare" in p.name and p.name != "index.md"
    ]
    body = note.read_text(encoding="utf-8").split("\n---\n", 1)[1]
    assert body.count("Never use bare `except` clauses") == 1, body
    assert "From `docs/development/contributing.mdx`, under Development standards." in body
    assert "From `docs/v2/development/contributing.mdx`, under Development standards." in body


def test_a_document_an_instruction_file_sends_the_agent_to_is_read(
    kb_repo: Path, cli: CliRunner
) -> None:
    # seen on a real project: AGENTS.md says "always read [agent_docs/index.md] and follow
    # those guidelines"; bootstrap never opened that file, the project's main coding rules
    (kb_repo / "AGENTS.md").write_text(
        "# Agents\n\nAlways read [the guidelines](agent_docs/index.md) and follow them. "
        "See @notes/extra.md too, and [the site](https://example.invalid/x.md).\n"
    )
    (kb_repo / "agent_docs").mkdir()
    (kb_repo / "agent_docs/index.md").write_text(
        "# Coding Guidelines\n\n## Types\n\n"
        "Never use `hasattr()` for type checks; always use `isinstance()`.\n"
    )
    (kb_repo / "notes").mkdir()
    (kb_repo / "notes/extra.md").write_text("# Extra\n\nNever commit `.env` files.\n")
    (kb_repo / "notes/unlinked.md").write_text("# Other\n\nNever push on Fridays.\n")
    (kb_repo / "private").mkdir()
    (kb_repo / "private/p.md").write_text("# Private\n\nNever tell anyone.\n")
    (kb_repo / "alias.md").symlink_to(kb_repo / "private/p.md")
    agents = (kb_repo / "AGENTS.md").read_text()
    (kb_repo / "AGENTS.md").write_text(agents + "Also [this](alias.md).\n")
    found = {str(p) for p in find_documents(kb_repo)}
    assert {"AGENTS.md", "agent_docs/index.md", "notes/extra.md"} <= found
    assert "notes/unlinked.md" not in found
    assert "private/p.md" not in found  # reached through a link: not followed
    done = cli("bootstrap", cwd=kb_repo)
    assert done.exit_code == 0, done.stderr
    notes = "\n".join(p.read_text() for p in (kb_repo / ".lorebook/nodes").rglob("*-*.md"))
    assert "agent_docs/index.md#types" in notes
    assert "Never commit `.env` files" in notes
