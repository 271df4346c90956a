"""A repository removed while lorebook's detached work still runs stays removed.

A session's last stop hook starts a detached capture, which starts a follow-up: both can
run after the user (or a test) deleted the repository. Nothing they write may bring back
the repository or its ``.lorebook/`` folder; folders below ``.lorebook/`` are still made
as needed while it exists.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from lorebook.appendlog import append
from lorebook.capture.worker import main as worker
from lorebook.kb.fsutil import kb_lock
from lorebook.kb.paths import KBPaths
from lorebook.safeopen import write_atomic


def removed(repo: Path) -> KBPaths:
    """The paths of ``repo``'s knowledge base, once the whole repository is deleted."""
    paths = KBPaths(repo)
    shutil.rmtree(repo)
    return paths


def test_the_capture_and_its_follow_up_do_not_bring_a_removed_repository_back(
    kb_repo: Path, tmp_path: Path
) -> None:
    transcript = tmp_path / "host" / "gone.jsonl"  # the host keeps it outside the repository
    transcript.parent.mkdir()
    transcript.write_text("")
    paths = removed(kb_repo)
    log = paths.sessions / "claude-gone.json"
    assert worker(["capture", str(kb_repo), "claude", "gone", str(transcript), ""]) == 0
    assert worker(["follow", str(kb_repo), str(log)]) == 0
    assert not kb_repo.exists()


def test_no_write_brings_a_removed_knowledge_base_back(kb_repo: Path) -> None:
    paths = removed(kb_repo)
    with pytest.raises(FileNotFoundError):
        write_atomic(str(paths.cache / "usage.json"), b"{}")
    with pytest.raises(OSError, match=r"usage\.lock"), kb_lock(paths.cache / "usage.lock"):
        pass
    assert append(str(paths.logs / "hook-errors.log"), b"line\n") is False
    assert not kb_repo.exists()
    kb_repo.mkdir()  # the repository is back, without its knowledge base
    with pytest.raises(FileNotFoundError):
        write_atomic(str(paths.state / "sessions" / "s.json"), b"{}")
    assert list(kb_repo.iterdir()) == []


def test_folders_below_the_knowledge_base_are_still_made(kb_repo: Path) -> None:
    paths = KBPaths(kb_repo)
    shutil.rmtree(paths.state, ignore_errors=True)
    write_atomic(str(paths.state / "sessions" / "s.json"), b"{}")
    assert (paths.state / "sessions" / "s.json").read_bytes() == b"{}"
