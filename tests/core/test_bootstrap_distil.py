"""Bootstrap distils rules from documentation: the notes a user sees after one run.

The made-up repository below has what real documentation has: generic headings
("Overview", "Notes", "Files", "Context"), a click-through setup procedure (with a
"Don't select any options" step), the same rules written in CLAUDE.md and in AGENTS.md
in other words, and a handful of real rules, a definition and a decision.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from lorebook.kb.notes import parse_note
from tests.conftest import CliRunner, fire

DOCS = {
    "CLAUDE.md": """\
# CLAUDE.md

## Overview

This repository holds the Acme billing service. It is written in Python and deployed
to three machines.

## Testing

- Always run `uv run pytest` before committing.
- Never mock the database in integration tests; use the `pg_tmp` fixture instead.

## Notes

- Keep every function under 40 lines so that a reviewer can read it at a glance.
""",
    "AGENTS.md": """\
# Instructions for agents

## Workflow

Never mock the database in an integration test: use the `pg_tmp` fixture.

Always run `uv run pytest` before you commit.
""",
    "docs/setup.md": """\
# Setup

## Installation

1. Clone the repository to your machine.
2. Run `uv sync` in the repository's root.
3. Open the repository's settings on GitHub and click **New secret**.
4. Don't select any options.
5. Click **Save** and wait for the page to reload.

## Context

The service was started in 2021 to replace the old invoicing scripts. It has grown
since then and now serves every region.
""",
    "docs/architecture.md": """\
# Architecture

## Overview

The API layer talks to the ledger through a queue, and the ledger writes to the
database. Each part is deployed on its own.

## Decisions

We chose PostgreSQL over MongoDB because invoices need multi-row transactions.

## Glossary

- A **ledger entry** means one immutable line of the ledger; a correction is a new entry.

## Files

- `src/api/` - the HTTP handlers of the service
- `src/ledger/` - the ledger and its storage code
""",
    "README.md": """\
# Acme billing

## Getting started

Install the package with `pip install acme-billing` and run `acme serve` to start it
on your machine.

## Contributing

Do not commit secrets to the repository; put them in the `.env` file, which git ignores.
""",
}

HEADINGS = {
    line.lstrip("#").strip()
    for text in DOCS.values()
    for line in text.splitlines()
    if line.startswith("#")
}


def _notes(repo: Path) -> list[Any]:
    found = []
    for path in sorted((repo / ".lorebook" / "nodes").rglob("*.md")):
        if path.name != "index.md":
            found.append(parse_note(path.read_text(encoding="utf-8"), source=path.name)[0])
    return found


def _tree(repo: Path) -> dict[str, bytes]:
    return {
        p.relative_to(repo).as_posix(): p.read_bytes()
        for p in sorted(repo.rglob("*"))
        if p.is_file() and ".git" not in p.relative_to(repo).parts
    }


@pytest.fixture
def docs_repo(kb_repo: Path) -> Path:
    """The knowledge base's repository with the made-up documentation written in."""
    for rel, text in DOCS.items():
        path = kb_repo / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return kb_repo


def _title_with(notes: list[Any], *words: str) -> Any:
    matching = [n for n in notes if all(w.lower() in n.title.lower() for w in words)]
    assert len(matching) == 1, (words, [n.title for n in notes])
    return matching[0]


def test_bootstrap_writes_one_note_per_rule_titled_by_the_rule(
    docs_repo: Path, cli: CliRunner
) -> None:
    result = cli("bootstrap", "--json", cwd=docs_repo)
    assert result.exit_code == 0, result.stderr
    notes = _notes(docs_repo)
    titles = sorted(n.title for n in notes)
    # the rules the documents state, each once: the test run, the database mocks, function
    # length, secrets, the database choice, and what a ledger entry is
    assert len(notes) == 6, titles
    assert not HEADINGS & set(titles), "a heading became a title"
    assert not [t for t in titles if t.lower() in {"notes", "overview", "files", "context"}]
    _title_with(notes, "run", "uv run pytest", "before")
    _title_with(notes, "never mock the database")
    _title_with(notes, "keep every function under 40 lines")
    _title_with(notes, "do not commit secrets")
    _title_with(notes, "postgresql", "mongodb")
    _title_with(notes, "ledger entry")


def test_status_counts_a_note_accepted_on_this_machine_as_reviewed(
    docs_repo: Path, cli: CliRunner
) -> None:
    # status counted what git sees as changed; `review` what no person reviewed: after
    # `review --accept`, the two disagreed (seen on a real project: 15 vs 14).
    assert cli("bootstrap", cwd=docs_repo).exit_code == 0
    left = cli("status", "--json", cwd=docs_repo).json()["left_for_review"]["bootstrap"]
    assert left["unreviewed"] == len(_notes(docs_repo)) == 6
    one = _title_with(_notes(docs_repo), "never mock the database").id
    assert cli("review", "--accept", one, cwd=docs_repo).exit_code == 0
    left = cli("status", "--json", cwd=docs_repo).json()["left_for_review"]["bootstrap"]
    assert left["unreviewed"] == 5
    groups = cli("review", "--json", cwd=docs_repo).json()["unreviewed"]
    assert sum(len(group["notes"]) for group in groups) == 5  # what review says


def test_a_note_whose_documents_no_longer_say_it_is_stale_and_served_marked(
    docs_repo: Path, cli: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A sentence deleted from the documentation left its note served as the team's rule,
    # with lint, status and the hooks silent (seen on a real project's AGENTS.md).
    assert cli("bootstrap", cwd=docs_repo).exit_code == 0
    mocks = _title_with(_notes(docs_repo), "never mock the database")
    assert len(mocks.derived_from) == 2  # CLAUDE.md and AGENTS.md both say it
    claude, agents = docs_repo / "CLAUDE.md", docs_repo / "AGENTS.md"
    claude.write_text(claude.read_text().replace("- Never mock the database", "- Mock freely"))
    assert "source-gone" not in cli("lint", cwd=docs_repo).stdout  # AGENTS.md still says it
    agents.write_text(agents.read_text().replace("Never mock the database", "Mock the database"))
    lint = cli("lint", cwd=docs_repo).stdout
    (gone,) = [line for line in lint.splitlines() if "[source-gone]" in line]
    assert f"/{mocks.id}.md: recheck: " in gone
    assert "no longer says what it quotes" in gone
    stale = cli("status", "--json", cwd=docs_repo).json()["stale_notes"]
    assert [s["id"] for s in stale] == [mocks.id]
    fire(docs_repo, monkeypatch, "Start", source="startup")
    served = fire(docs_repo, monkeypatch, "Prompt", prompt="can I mock the database in tests?")
    assert "no longer says what it quotes" in served["context"]


def test_the_run_lists_every_note_it_added_and_counts_documents(
    docs_repo: Path, cli: CliRunner
) -> None:
    result = cli("bootstrap", cwd=docs_repo)
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    added = [line for line in lines if line.startswith("added ")]
    listed = {line.rpartition("/")[2].removesuffix(".md") for line in added}
    assert listed == {n.id for n in _notes(docs_repo)}  # each one, not only the last
    curated = [line for line in lines if line.endswith(" curated: 4 of 4")]
    assert curated == ["documents curated: 4 of 4"], lines  # documents, not sessions


def test_setup_and_click_through_steps_are_not_rules(docs_repo: Path, cli: CliRunner) -> None:
    assert cli("bootstrap", cwd=docs_repo).exit_code == 0
    notes = _notes(docs_repo)
    said = " ".join(f"{n.title} {n.description}" for n in notes).lower()
    for step in ("select any options", "click", "uv sync", "clone the repository"):
        assert step not in said, step
    assert not [n for n in notes if any(o.startswith("docs/setup.md") for o in n.derived_from)]


def test_a_rule_in_two_documents_is_one_note_citing_both(docs_repo: Path, cli: CliRunner) -> None:
    assert cli("bootstrap", cwd=docs_repo).exit_code == 0
    notes = _notes(docs_repo)
    mocks = _title_with(notes, "never mock the database")
    assert mocks.kind == "prohibition"
    assert {o.split("#")[0] for o in mocks.derived_from} == {"AGENTS.md", "CLAUDE.md"}
    tests = _title_with(notes, "uv run pytest")
    assert {o.split("#")[0] for o in tests.derived_from} == {"AGENTS.md", "CLAUDE.md"}


def test_each_note_records_the_file_and_section_and_keeps_the_quote(
    docs_repo: Path, cli: CliRunner
) -> None:
    assert cli("bootstrap", cwd=docs_repo).exit_code == 0
    notes = _notes(docs_repo)
    for note in notes:
        assert note.derived_from, note.id
        for origin in note.derived_from:
            path, _, section = origin.partition("#")
            assert path in DOCS, origin
            assert section, f"{origin}: no section"
    secrets = _title_with(notes, "do not commit secrets")
    assert secrets.derived_from == ["README.md#contributing"]
    quote = "Do not commit secrets to the repository; put them in the `.env` file"
    assert quote in secrets.body
    decision = _title_with(notes, "postgresql")
    assert decision.kind == "decision"
    assert decision.derived_from == ["docs/architecture.md#decisions"]
    assert _title_with(notes, "ledger entry").kind == "vocabulary"


def test_dry_run_prints_the_notes_and_counts_and_writes_nothing(
    docs_repo: Path, cli: CliRunner
) -> None:
    before = _tree(docs_repo)
    result = cli("bootstrap", "--dry-run", cwd=docs_repo)
    assert result.exit_code == 0, result.stderr
    assert _tree(docs_repo) == before
    out = result.stdout
    assert "dry run: nothing written" in out
    assert "documents: 5 found" in out
    assert "6 notes would be written" in out
    assert "Never mock the database" in out
    assert "CLAUDE.md#testing" in out
    assert "AGENTS.md#workflow" in out

    report = cli("bootstrap", "--dry-run", "--json", cwd=docs_repo).json()
    assert _tree(docs_repo) == before
    assert report["dry_run"] is True
    assert report["notes"]["add"] == 6
    assert len(report["would_write"]) == 6
    assert report["statements"]["duplicates"] >= 2
    # the real run writes what the dry run announced
    assert cli("bootstrap", cwd=docs_repo).exit_code == 0
    written = sorted(n.title for n in _notes(docs_repo))
    assert written == sorted(n["title"] for n in report["would_write"])


def test_a_changed_section_drafts_only_the_rules_it_did_not_state_before(
    docs_repo: Path, cli: CliRunner
) -> None:
    assert cli("bootstrap", cwd=docs_repo).exit_code == 0
    before = {n.id: n for n in _notes(docs_repo)}
    path = docs_repo / "CLAUDE.md"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("## Notes", "- Never log access tokens.\n\n## Notes"))
    report = cli("bootstrap", "--json", cwd=docs_repo).json()
    assert report["proposals"] == 1
    assert report["documents"]["unchanged"] == 4
    notes = _notes(docs_repo)
    assert len(notes) == len(before) + 1
    tokens = _title_with(notes, "never log access tokens")
    assert tokens.derived_from == ["CLAUDE.md#testing"]
    assert all(before[n.id] == n for n in notes if n.id != tokens.id)  # the others untouched


LEAD_INS = """\
# Contributing

## Releasing

Before a release, always open a pull request that includes:

- **The changelog**:
    - Things that **must** go in the changelog: features and bug fixes.
- **A version bump**: see `__version__.py`.

## Migrations

A schema migration must always come with a pull request which adds:

- **A migration guide for every breaking change, with before and after code**: one section.
- **A downgrade script**.

A breaking change must always be announced first in an issue containing:

- the reason for the change, with the code it breaks and the code that replaces it;
- a timeline.

## Connection pool

The pool takes these limits:

- `max_connections`, the most connections allowed, or `None` to always allow more.
- `keepalive`, how long an idle connection is kept. (Default 5)
"""


def test_a_lead_in_is_completed_by_its_items_and_a_parameter_list_is_no_rule(
    kb_repo: Path, cli: CliRunner
) -> None:
    """A title never stops at "that includes"; "`name`, what it is" describes a parameter."""
    (kb_repo / "CONTRIBUTING.md").write_text(LEAD_INS, encoding="utf-8")
    result = cli("bootstrap", cwd=kb_repo)
    assert result.exit_code == 0, result.stderr
    titles = sorted(n.title for n in _notes(kb_repo))
    assert titles == [
        "A breaking change must always be announced first in an issue",
        "A schema migration must always come with a pull request",
        "Before a release, always open a pull request that includes: the changelog and a version"
        " bump",
    ]


def test_a_tutorial_gives_no_notes_its_example_s_rules_are_not_the_project_s(
    kb_repo: Path, cli: CliRunner
) -> None:
    (kb_repo / "docs").mkdir(exist_ok=True)
    (kb_repo / "docs" / "model-plugin.md").write_text(
        "# Tutorial: writing a model plugin\n\n## Adding options\n\n"
        "Let's add validation rules to our options. Length must be at least 2. "
        "Duration must never exceed 10.\n",
        encoding="utf-8",
    )
    (kb_repo / "docs" / "quickstart.md").write_text(
        "# Installing\n\nThe `-e` stands for editable. You must always install into a venv.\n",
        encoding="utf-8",
    )
    (kb_repo / "CONTRIBUTING.md").write_text(
        "# Contributing\n\n## Tests\n\nNever mock the database in integration tests.\n",
        encoding="utf-8",
    )
    result = cli("bootstrap", cwd=kb_repo)
    assert result.exit_code == 0, result.stderr
    assert [n.title for n in _notes(kb_repo)] == ["Never mock the database in integration tests"]
    assert "left out: 5 tutorial" in result.stdout  # the sentences of both, not read


RELEASE_NOTES = """\
# Release Notes

## 0.2.0 (2026-08-03)

### Features

* Don't truncate code lines in tracebacks.

### Internal

* Do not use the cache for dependencies when publishing.

## 0.1.0 (2026-07-15)

### Breaking Changes

* Never accept a bare string as a command.
"""


def test_release_notes_a_tutorial_folder_and_a_rule_about_the_changelog(
    kb_repo: Path, cli: CliRunner
) -> None:
    """A changelog is known by its name or its outermost headings; a tutorial by its folder."""
    (kb_repo / "docs" / "tutorial" / "options").mkdir(parents=True)
    (kb_repo / "docs" / "release-notes.md").write_text(RELEASE_NOTES, encoding="utf-8")
    (kb_repo / "docs" / "updates.md").write_text(
        RELEASE_NOTES.replace("# Release Notes", "# Updates"), encoding="utf-8"
    )
    (kb_repo / "docs" / "announce").mkdir()
    (kb_repo / "docs" / "announce" / "release-2.0.3.md").write_text(
        "# pytest 2.0.3: bug fixes\n\nNever consider a fixture function for collection.\n",
        encoding="utf-8",
    )
    (kb_repo / "docs" / "historical-notes.md").write_text(
        "# Old features\n\nWith conditions as booleans you must always give a reason.\n",
        encoding="utf-8",
    )
    (kb_repo / "docs" / "tutorial" / "options" / "required.md").write_text(
        "# Required options\n\nCLI options must be declared with a default.\n", encoding="utf-8"
    )
    rules = kb_repo / ".cursor" / "rules"
    rules.mkdir(parents=True)
    (rules / "changelog.mdc").write_text(
        "---\nalwaysApply: true\n---\n# Changelog\n\n"
        "Never update more than one changelog for a single change.\n",
        encoding="utf-8",
    )
    result = cli("bootstrap", cwd=kb_repo)
    assert result.exit_code == 0, result.stderr
    titles = [n.title for n in _notes(kb_repo)]
    assert titles == ["Never update more than one changelog for a single change"]
