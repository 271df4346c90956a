"""Codex memories as the codex plugin reads them for harvest and doctor."""

from __future__ import annotations

from pathlib import Path

from lorebook.hostkit.memory import HostMemory
from lorebook_codex.harness import CodexHarness

HANDBOOK = """# Task Group: {repo} api

applies_to: cwd={repo}/api; reuse_rule=safe

## Reusable knowledge

- The API reads its settings from config/api.toml, never from the environment [Task 1]

## Failures and how to do differently

- Tests hung on the port -> free 8080 before running
  them again [Task 2]

# Task Group: everywhere

## Reusable knowledge

- Use ripgrep rather than grep.
"""


def test_the_harness_reads_the_codex_home_it_was_given(tmp_path: Path) -> None:
    home = tmp_path / "codex-home"
    (home / "memories").mkdir(parents=True)
    repo = tmp_path / "repo"
    (repo / "api").mkdir(parents=True)
    text = HANDBOOK.format(repo=repo.resolve())
    (home / "memories" / "MEMORY.md").write_text(text, encoding="utf-8")
    harness = CodexHarness(env={"CODEX_HOME": str(home)})
    assert isinstance(harness, HostMemory)
    assert harness.memory_store(repo) == home / "memories"
    listing = harness.memory_entries(repo)
    assert listing.store == home / "memories"
    assert [e.slot.split("/")[1] for e in listing.entries] == [
        "reusable-knowledge",
        "failures-and-how-to-do-differently",
    ]
    assert listing.entries[0].text.endswith("never from the environment")  # no [Task 1]
    assert (
        listing.entries[1].text == "Tests hung on the port -> free 8080 before running them again"
    )
    assert listing.skipped == {"global (names no working directory)": 1}
    assert (
        CodexHarness(env={"CODEX_HOME": str(tmp_path / "none")}).memory_entries(repo).store is None
    )
