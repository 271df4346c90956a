"""The loop on recorded sessions from shared/eval: import, extract, curate, review as git."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.conftest import SHARED, CliRunner, git

SESSIONS = SHARED / "eval" / "extraction" / "kenkeep-prompt-eval" / "sessions"


@pytest.mark.skipif(
    not SESSIONS.is_dir(), reason="shared/eval is not present beside the repository"
)
def test_recorded_sessions_become_readable_reviewed_notes(kb_repo: Path, cli: CliRunner) -> None:
    git(kb_repo, "add", "-A")
    git(kb_repo, "commit", "-qm", "lorebook init")
    files = sorted(SESSIONS.glob("admit-*.md"))
    assert cli("import", *map(str, files), cwd=kb_repo).exit_code == 0
    assert cli("extract", cwd=kb_repo).exit_code == 0
    curated = cli("curate", "--json", cwd=kb_repo)
    assert curated.exit_code == 0, curated.stdout + curated.stderr
    assert cli("lint", cwd=kb_repo).exit_code == 0
    status = git(kb_repo, "status", "--porcelain", "--untracked-files=all")
    notes = [
        line[3:]
        for line in status.splitlines()
        if "/nodes/" in line and not line.endswith("index.md")
    ]
    assert len(notes) >= 8
    diff = subprocess.run(
        ["git", "diff", "--no-index", "/dev/null", notes[0]],
        cwd=kb_repo,
        capture_output=True,
        text=True,
        check=False,
    ).stdout
    for key in ("+title: ", "+description: ", "+lb_derived_from: ", "+lb_kind: "):
        assert key in diff
    body = diff.split("\n+---\n", 1)[1]
    assert body.strip("+\n ")  # the knowledge itself, as markdown under the frontmatter
    assert "lb_derived_from: ['claude:10000000-0000-4000-8000-" in diff  # provenance: the session
    review = cli("review", cwd=kb_repo)
    assert review.exit_code == 0
    assert notes[0] in review.stdout
