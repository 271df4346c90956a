"""A hook whose writes fail (a read-only ``.lorebook/``, a full disk) still answers.

What a prompt or a session start writes is bookkeeping (which notes the session was
given, the logs): when it cannot be written the answer is still printed, and a write that
needs nothing new is not tried at all.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path
from typing import Any

import pytest

from lorebook.kb.store import MarkdownStore
from lorebook.testing import make_note
from tests.conftest import CliRunner, fire_raw

MODULES = {"claude": "lorebook_claude.events"}
PROMPT = "why does pytest miss the workspace packages when I run it bare?"
TITLE = "Run tests with uv run pytest"


@pytest.fixture
def repo(kb_repo: Path, cli: CliRunner) -> Path:
    """A repository wired for Claude Code with one note the prompt matches."""
    MarkdownStore(kb_repo).add(
        make_note(
            "use-uv",
            title=TITLE,
            body="Never bare pytest: it misses the workspace packages.",
            tags=["testing"],
        )
    )
    assert cli("init", "--harnesses", "claude", cwd=kb_repo).exit_code == 0
    assert cli("index", "rebuild", cwd=kb_repo).exit_code == 0
    return kb_repo


def fire(repo: Path, monkeypatch: pytest.MonkeyPatch, host_event: str, session: str) -> str:
    """Run one Claude Code event in this process, as the launcher does; return its stdout."""
    fields = {"prompt": PROMPT} if host_event == "UserPromptSubmit" else {"source": "startup"}
    payload = {"session_id": session, "cwd": str(repo), "hook_event_name": host_event, **fields}
    return fire_raw(repo, monkeypatch, ["claude", host_event], payload, modules=MODULES)


def failing(monkeypatch: pytest.MonkeyPatch, code: int, *names: str) -> None:
    """Make the ``os`` functions ``names`` fail with ``code`` (opens only for writing)."""

    def refuse(name: str) -> Any:
        real = getattr(os, name)

        def call(*args: Any, **kwargs: Any) -> Any:
            writing = os.O_WRONLY | os.O_RDWR | os.O_CREAT
            if name != "open" or args[1] & writing:
                raise OSError(code, os.strerror(code))
            return real(*args, **kwargs)

        return call

    for name in names:
        monkeypatch.setattr(os, name, refuse(name))


def files(repo: Path) -> dict[str, int]:
    """Every file under ``.lorebook/`` and its size."""
    root = repo / ".lorebook"
    return {str(p.relative_to(root)): p.stat().st_size for p in root.rglob("*") if p.is_file()}


def test_a_read_only_knowledge_base_still_answers(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = files(repo)
    failing(monkeypatch, errno.EROFS, "open", "mkdir", "rename", "replace")
    assert "Project knowledge base" in fire(repo, monkeypatch, "SessionStart", "ro")
    assert TITLE in fire(repo, monkeypatch, "UserPromptSubmit", "ro")
    assert TITLE in fire(repo, monkeypatch, "UserPromptSubmit", "ro")  # not recorded: again
    monkeypatch.undo()
    assert files(repo) == before


def test_a_full_disk_still_answers_and_leaves_no_temporary_file(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = files(repo)
    failing(monkeypatch, errno.ENOSPC, "write")
    assert "Project knowledge base" in fire(repo, monkeypatch, "SessionStart", "full")
    assert TITLE in fire(repo, monkeypatch, "UserPromptSubmit", "full")
    monkeypatch.undo()
    after = files(repo)
    assert [name for name in after if name.endswith(".tmp")] == []
    new = {name: size for name, size in after.items() if name not in before}
    assert {name for name, size in new.items() if size == 0} <= {  # a log's first line
        "_logs/hook-errors.log",
        "_logs/hook-timing.log",
    }


def test_an_event_that_adds_nothing_to_the_session_state_writes_none(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from lorebook import safeopen
    from lorebook.inject import state

    writes: list[str] = []
    real = safeopen.write_atomic

    def spy(path: str, data: bytes, *, sync: bool = True) -> None:
        writes.append(os.path.basename(os.path.dirname(path)))
        real(path, data, sync=sync)

    monkeypatch.setattr(state, "write_atomic", spy)
    fire(repo, monkeypatch, "SessionStart", "quiet")
    assert writes == []  # a new session: nothing to forget
    assert TITLE in fire(repo, monkeypatch, "UserPromptSubmit", "quiet")
    assert writes == ["sessions"]
    assert fire(repo, monkeypatch, "UserPromptSubmit", "quiet") == ""  # given already
    assert writes == ["sessions"]
    fire(repo, monkeypatch, "SessionStart", "quiet")  # a new start: the note may come again
    assert writes == ["sessions", "sessions"]
    assert TITLE in fire(repo, monkeypatch, "UserPromptSubmit", "quiet")
