"""Ctrl-C during a long writer: one line saying what to run to finish, and exit code 130.

Each run is a real ``lorebook`` process that receives SIGINT while it writes (sent by the
process itself at a chosen point, so the test does not race the machine's speed).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import git, run_lorebook

INTERRUPTED = """
import os, signal, sys, importlib
module, name = sys.argv[1].rsplit(".", 1)
target = importlib.import_module(module)
real = getattr(target, name)

def interrupted(*args, **kwargs):
    os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C, delivered while this step runs
    return real(*args, **kwargs)

setattr(target, name, interrupted)
from lorebook.cli.app import main
sys.argv = ["lorebook", *sys.argv[2:]]
main()
"""

RULES = """# Contributing

## Rules

- Never commit generated files under dist/; the release job builds them.
- Always run the test suite before pushing to main.
- Use uv for dependencies; do not edit requirements.txt by hand.
"""


def _interrupted(repo: Path, at: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", INTERRUPTED, at, *args],
        cwd=repo, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip


@pytest.fixture
def rules_repo(kb_repo: Path) -> Path:
    (kb_repo / "CONTRIBUTING.md").write_text(RULES, encoding="utf-8")
    git(kb_repo, "add", "-A")
    git(kb_repo, "-c", "user.name=t", "-c", "user.email=t@example.invalid", "commit", "-qm", "x")
    return kb_repo


@pytest.mark.skipif(os.name != "posix", reason="SIGINT to a process is POSIX")
def test_bootstrap_interrupted_says_what_finishes_it_and_the_rerun_does(rules_repo: Path) -> None:
    run = _interrupted(rules_repo, "lorebook.curate.run.curate_pending", "bootstrap")
    assert run.returncode == 130, run.stderr
    assert run.stderr.strip().splitlines() == [
        "lorebook: interrupted; run `lorebook bootstrap` to finish (it resumes where it stopped)"
    ]
    rerun = run_lorebook("bootstrap", "--json", cwd=rules_repo)
    assert rerun.returncode == 0
    assert list((rules_repo / ".lorebook" / "nodes").rglob("*dist*.md"))
    run_lorebook("index", "rebuild", "--check", cwd=rules_repo)  # nothing left stale


@pytest.mark.skipif(os.name != "posix", reason="SIGINT to a process is POSIX")
def test_index_rebuild_interrupted_says_what_finishes_it(rules_repo: Path) -> None:
    run = _interrupted(rules_repo, "lorebook.cli.index.rebuild_indexes", "index", "rebuild")
    assert run.returncode == 130, run.stderr
    assert run.stderr.strip().splitlines() == [
        "lorebook: interrupted; run `lorebook index rebuild` to finish "
        "(it writes only what is stale)"
    ]


@pytest.mark.skipif(os.name != "posix", reason="SIGINT to a process is POSIX")
def test_curate_interrupted_says_what_finishes_it(rules_repo: Path) -> None:
    run = _interrupted(rules_repo, "lorebook.curate.run.curate_pending", "curate")
    assert run.returncode == 130, run.stderr
    assert run.stderr.strip().splitlines() == [
        "lorebook: interrupted; run `lorebook curate` to finish "
        "(it completes the interrupted batch first)"
    ]
