"""``lorebook init --pre-commit``: a real git commit of a staged secret is stopped; a
user's own hook keeps its content; ``uninstall`` removes exactly what was added."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.conftest import CliRunner

pytestmark = pytest.mark.skipif(os.name != "posix", reason="git runs the hook with sh")
GIT = ["git", "-c", "user.email=t@example.com", "-c", "user.name=T"]
SECRET_TITLE = "The staging db password is hunter2"


def _commit(repo: Path) -> subprocess.CompletedProcess[str]:
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True)
    return subprocess.run([*GIT, "commit", "-qm", "notes"], cwd=repo, capture_output=True,
                          text=True, check=False)  # fmt: skip


def _hook(repo: Path) -> Path:
    return repo / ".git" / "hooks" / "pre-commit"


def test_a_staged_secret_stops_the_commit_and_a_clean_note_commits(
    kb_repo: Path, cli: CliRunner
) -> None:
    assert cli("init", "--pre-commit", cwd=kb_repo).exit_code == 0
    assert os.access(_hook(kb_repo), os.X_OK)
    assert cli("init", "--pre-commit", "--json", cwd=kb_repo).json()["changed"] == []
    assert _commit(kb_repo).returncode == 0  # the generated files alone are clean
    add = ("note", "add", "--kind", "gotcha", "--description", "Staging")
    assert cli(*add, "--title", SECRET_TITLE, cwd=kb_repo).exit_code == 0
    stopped = _commit(kb_repo)
    assert stopped.returncode == 1
    assert "looks like a secret" in stopped.stdout + stopped.stderr
    assert "the commit is stopped" in stopped.stderr
    # What is scanned is what is staged: fixing only the working tree does not pass.
    note = next((kb_repo / ".lorebook" / "nodes").rglob("*hunter2*.md"))
    staged = note.read_text()
    note.write_text(staged.replace("hunter2", "in the vault"))
    again = subprocess.run([*GIT, "commit", "-qm", "x"], cwd=kb_repo, capture_output=True,
                           text=True, check=False)  # fmt: skip
    assert again.returncode == 1
    log = subprocess.run(["git", "log", "--oneline"], cwd=kb_repo, capture_output=True,
                         text=True, check=True)  # fmt: skip
    assert len(log.stdout.splitlines()) == 1


def test_a_users_shell_hook_is_kept_runs_and_is_restored_exactly(
    kb_repo: Path, cli: CliRunner
) -> None:
    hook = _hook(kb_repo)
    own = '#!/usr/bin/env bash\necho "own hook ran" > own-hook-ran.txt\nexit 0\n'
    hook.write_text(own)
    hook.chmod(0o755)
    assert cli("init", "--pre-commit", cwd=kb_repo).exit_code == 0
    text = hook.read_text()
    assert text.startswith("#!/usr/bin/env bash\n# >>> lorebook pre-commit")
    assert text.endswith('echo "own hook ran" > own-hook-ran.txt\nexit 0\n')
    assert _commit(kb_repo).returncode == 0
    assert (kb_repo / "own-hook-ran.txt").exists()
    removed = cli("uninstall", "--pre-commit", "--json", cwd=kb_repo).json()
    assert removed["notes"] == ["removed lorebook's block from .git/hooks/pre-commit"]
    assert hook.read_text() == own


def test_a_hook_that_is_not_a_shell_script_is_refused_untouched(
    kb_repo: Path, cli: CliRunner
) -> None:
    hook = _hook(kb_repo)
    own = "#!/usr/bin/env python3\nprint('mine')\n"
    hook.write_text(own)
    result = cli("init", "--pre-commit", cwd=kb_repo)
    assert result.exit_code == 1
    assert "is a pre-commit hook of your own and not a shell script" in result.stderr
    assert "`lorebook scan`" in result.stderr
    assert hook.read_text() == own


def test_uninstall_of_every_harness_removes_the_hook_lorebook_created(
    kb_repo: Path, cli: CliRunner
) -> None:
    assert cli("init", "--pre-commit", "--harnesses", "claude", cwd=kb_repo).exit_code == 0
    assert _hook(kb_repo).exists()
    assert cli("uninstall", cwd=kb_repo).exit_code == 0
    assert not _hook(kb_repo).exists()


def test_outside_git_pre_commit_is_refused_before_any_write(
    tmp_path: Path, lorebook_home: Path, cli: CliRunner
) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    result = cli("init", "--pre-commit", cwd=plain)
    assert result.exit_code == 1
    assert "not a git repository" in result.stderr
    assert not (plain / ".lorebook").exists()
