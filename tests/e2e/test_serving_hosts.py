"""Serving with the real clients (serving issue, items 2 and 3), proven from the requests the
mock model received.

- Review before power: a note bootstrap and curation wrote, not committed, reaches Claude
  Code's model only as a pointer labelled unreviewed; after ``git commit`` it is served whole.
- Nothing the host already loads: with a note bootstrap derived from CLAUDE.md, Claude Code
  (which loads CLAUDE.md by itself) is not served it, and Codex (which does not) is.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from lorebook import reviewstate
from lorebook.inject.served import UNREVIEWED_HEADER
from tests.conftest import git
from tests.e2e.codex_cli import CodexRunner, codex_env, describe
from tests.e2e.conftest import ClaudeRunner
from tests.e2e.mock_anthropic import MockAnthropic, all_text
from tests.e2e.mock_responses import MockResponses, all_text as codex_text

pytestmark = pytest.mark.e2e

DEPLOY_DOC = """# Deploying

## Staging

Always deploy the staging stack with `make ship-staging` from the repository root; never run
the deploy script by hand.
"""
DEPLOY_PROMPT = "how do I deploy the staging stack with make ship-staging from the repository root?"
DEPLOY_ID = (
    "prohibition-always-deploy-the-staging-stack-with-make-ship-staging-from-the-repository-root"
)
DEPLOY_WHOLE = "From `docs/deploy.md`, under Staging."
"""The last line of the note's body: only a whole note carries it, a pointer does not."""

CLAUDE_MD = """# Project rules

## Testing

Run the test suite with `tox -p`, never bare pytest, because the suite needs the tox environments.
"""
FIXTURES_DOC = """# Test fixtures

## Where they live

Always keep the test suite's fixtures under `tests/fixtures`; never download them during a test
run.
"""
TEST_PROMPT = "how do I run the test suite, and where do the test suite's fixtures live?"
FROM_CLAUDE_MD = "convention-run-the-test-suite-with-tox-p"
FROM_DOCS = "prohibition-always-keep-the-test-suite-s-fixtures-under-tests-fixtures"


def lorebook(repo: Path, env: dict[str, str] | None, *args: str) -> str:
    proc = subprocess.run([sys.executable, "-m", "lorebook", *args], cwd=repo, env=env,
                          capture_output=True, text=True, check=False)  # fmt: skip
    assert proc.returncode == 0, f"lorebook {' '.join(args)}: {proc.stdout}\n{proc.stderr}"
    return proc.stdout


def note_ids(repo: Path) -> set[str]:
    return {p.stem for p in (repo / ".lorebook/nodes").rglob("*.md") if p.name != "index.md"}


def no_hook_errors(repo: Path) -> None:
    log = repo / ".lorebook/_logs/hook-errors.log"
    assert not log.exists(), log.read_text()


def test_a_curated_uncommitted_note_is_a_labelled_pointer_then_whole_once_committed(
    e2e_repo: Path, mock_anthropic: MockAnthropic, run_claude: ClaudeRunner
) -> None:
    (e2e_repo / "docs").mkdir()
    (e2e_repo / "docs/deploy.md").write_text(DEPLOY_DOC, encoding="utf-8")
    lorebook(e2e_repo, None, "init", "--harnesses", "claude")
    lorebook(e2e_repo, None, "bootstrap", "docs")  # drafted, then curated: nobody reviewed it
    assert DEPLOY_ID in note_ids(e2e_repo)
    assert DEPLOY_ID in reviewstate.unreviewed(str(e2e_repo / ".lorebook"))

    proc = run_claude(e2e_repo, DEPLOY_PROMPT)
    (request,) = mock_anthropic.main_requests()
    seen = all_text(request)
    assert DEPLOY_ID in seen, describe(proc)  # served: as a pointer ...
    assert UNREVIEWED_HEADER in seen  # ... under the heading of unreviewed notes ...
    assert DEPLOY_WHOLE not in seen  # ... never whole
    assert "Follow them unless the user says otherwise" not in seen

    git(e2e_repo, "add", "-A")
    git(e2e_repo, "commit", "-q", "-m", "notes from the docs, reviewed")
    mock_anthropic.clear()
    proc = run_claude(e2e_repo, DEPLOY_PROMPT)
    (request,) = mock_anthropic.main_requests()
    seen = all_text(request)
    assert DEPLOY_WHOLE in seen, describe(proc)  # committed: a person reviewed it, whole
    assert UNREVIEWED_HEADER not in seen
    no_hook_errors(e2e_repo)


def test_a_note_from_claude_md_reaches_codex_and_not_claude_code(
    e2e_repo: Path,
    codex_home: Path,
    mock_anthropic: MockAnthropic,
    run_claude: ClaudeRunner,
    mock_responses: MockResponses,
    run_codex: CodexRunner,
) -> None:
    env = codex_env(codex_home)
    (e2e_repo / "CLAUDE.md").write_text(CLAUDE_MD, encoding="utf-8")
    (e2e_repo / "docs").mkdir()
    (e2e_repo / "docs/fixtures.md").write_text(FIXTURES_DOC, encoding="utf-8")
    lorebook(e2e_repo, env, "init", "--harnesses", "claude,codex")
    lorebook(e2e_repo, env, "bootstrap")
    ids = note_ids(e2e_repo)
    assert any(i.startswith(FROM_CLAUDE_MD) for i in ids), ids
    assert any(i.startswith(FROM_DOCS) for i in ids), ids
    git(e2e_repo, "add", "-A")
    git(e2e_repo, "commit", "-q", "-m", "notes from the docs, reviewed")

    proc = run_claude(e2e_repo, TEST_PROMPT)
    (request,) = mock_anthropic.main_requests()
    claude = all_text(request)
    assert "never bare pytest" in claude, describe(proc)  # Claude loaded CLAUDE.md itself
    assert FROM_DOCS in claude  # the prompt hook served Claude the other note ...
    assert FROM_CLAUDE_MD not in claude  # ... and not the one CLAUDE.md holds already

    proc = run_codex(e2e_repo, TEST_PROMPT)
    requests = mock_responses.main_requests()
    assert requests, describe(proc)
    codex = codex_text(requests[0])
    assert FROM_CLAUDE_MD in codex  # Codex does not load CLAUDE.md: it gets the note
    assert FROM_DOCS in codex
    no_hook_errors(e2e_repo)
