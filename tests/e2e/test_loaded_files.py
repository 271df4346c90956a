"""What each harness declares its host loads by itself (``loaded_files``) is what the real
client put in the model's request: a file is declared exactly when its text reached the model.

Each candidate instruction file holds a unique marker; the client runs once in a repository
holding all of them, and the request the mock model received is searched for every marker.
A file declared but not sent would cost the model the notes derived from it; a file sent but
not declared costs only a repeat.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from lorebook_claude import events as claude_events
from lorebook_codex import events as codex_events
from tests.e2e.codex_cli import CodexRunner, describe
from tests.e2e.conftest import ClaudeRunner
from tests.e2e.mock_anthropic import MockAnthropic, all_text
from tests.e2e.mock_responses import MockResponses, all_text as codex_text

pytestmark = pytest.mark.e2e

CANDIDATES = (
    "CLAUDE.md",
    ".claude/CLAUDE.md",
    "CLAUDE.local.md",
    "docs/imported.md",
    "docs/imported-twice.md",
    "docs/in-code.md",
    "docs/not-imported.md",
    "AGENTS.md",
    "AGENTS.override.md",
    "sub/AGENTS.md",
    "sub/CLAUDE.md",
    "sub/local.md",
    "other/AGENTS.md",
)


def marker(rel: str) -> str:
    return "LOADED_MARKER_" + "".join(c if c.isalnum() else "_" for c in rel).upper()


def write_candidates(repo: Path, *, override: bool) -> None:
    """Every candidate, holding its marker; CLAUDE.md imports two files, one in code."""
    for rel in CANDIDATES:
        if rel == "AGENTS.override.md" and not override:
            continue
        path = repo / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        text = f"# {rel}\n\n{marker(rel)}\n"
        if rel == "CLAUDE.md":
            text += "\nSee @docs/imported.md for more, and `@docs/in-code.md` is code.\n"
        if rel == "docs/imported.md":
            text += "\nAnd @imported-twice.md too.\n"
        if rel == "sub/CLAUDE.md":
            text += "\nSee @local.md and @../docs/not-imported.md.\n"
        path.write_text(text, encoding="utf-8")


def sent(text: str) -> set[str]:
    return {rel for rel in CANDIDATES if marker(rel) in text}


def test_claude_code_loads_exactly_what_the_claude_plugin_declares(
    e2e_repo: Path, mock_anthropic: MockAnthropic, run_claude: ClaudeRunner
) -> None:
    write_candidates(e2e_repo, override=False)
    proc = run_claude(e2e_repo, "say hi")
    (request,) = mock_anthropic.main_requests()
    declared = claude_events.loaded_files(str(e2e_repo), str(e2e_repo))
    assert sent(all_text(request)) == declared & set(CANDIDATES), describe(proc)
    assert {"CLAUDE.md", "docs/imported.md", "docs/imported-twice.md"} <= declared


def test_claude_code_in_a_subfolder_loads_that_folders_claude_md(
    e2e_repo: Path, mock_anthropic: MockAnthropic, run_claude: ClaudeRunner
) -> None:
    """Run in ``sub/``: an import of a file outside ``sub/`` is not loaded (it waits for the
    user's approval), one inside is."""
    write_candidates(e2e_repo, override=False)
    proc = run_claude(e2e_repo / "sub", "say hi")
    (request,) = mock_anthropic.main_requests()
    declared = claude_events.loaded_files(str(e2e_repo), str(e2e_repo / "sub"))
    assert {"sub/CLAUDE.md", "sub/local.md"} <= declared
    assert "docs/imported.md" not in declared
    assert sent(all_text(request)) == declared & set(CANDIDATES), describe(proc)


@pytest.mark.parametrize("override", [False, True], ids=["agents", "override"])
def test_codex_loads_exactly_what_the_codex_plugin_declares(
    e2e_repo: Path,
    mock_responses: MockResponses,
    run_codex: CodexRunner,
    override: bool,
) -> None:
    write_candidates(e2e_repo, override=override)
    proc = run_codex(e2e_repo / "sub", "say hi")
    requests = mock_responses.main_requests()
    assert requests, describe(proc)
    declared = codex_events.loaded_files(str(e2e_repo), str(e2e_repo / "sub"))
    assert "CLAUDE.md" not in declared
    assert sent(codex_text(requests[0])) == declared & set(CANDIDATES), describe(proc)
