"""Symlinks refused on every write under .lorebook/, bounded hook input, clean write faults."""

from __future__ import annotations

import errno
import os
import subprocess
from pathlib import Path

import pytest

from lorebook.appendlog import append
from lorebook.hookinput import StdinTimeout, read_stdin
from lorebook.kb.fsutil import WriteError, atomic_write_text
from tests.conftest import CliRunner, fire_raw


def test_a_symlinked_logs_folder_is_never_written_through(
    kb_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    logs = kb_repo / ".lorebook/_logs"
    if logs.exists():
        for child in logs.iterdir():
            child.unlink()
        logs.rmdir()
    logs.symlink_to(outside, target_is_directory=True)
    fire_raw(
        kb_repo, monkeypatch, ["fake", "Prompt"], {"cwd": str(kb_repo)}
    )  # no session id: fails, logs
    assert list(outside.iterdir()) == []
    assert append(str(logs / "x.log"), b"line\n") is False
    with pytest.raises(WriteError, match="is a symbolic link"):
        atomic_write_text(logs / "x.json", "{}")
    assert list(outside.iterdir()) == []


@pytest.mark.parametrize("folder", ["_sessions", ".state", ".cache"])
def test_atomic_writes_refuse_symlinked_folders(kb_repo: Path, tmp_path: Path, folder: str) -> None:
    outside = tmp_path / f"outside-{folder}"
    outside.mkdir()
    link = kb_repo / ".lorebook" / folder
    subprocess.run(["rm", "-rf", str(link)], check=True)
    link.symlink_to(outside, target_is_directory=True)
    with pytest.raises(WriteError, match=f"{folder} is a symbolic link"):
        atomic_write_text(link / "sub" / "state.json", "{}")
    assert list(outside.iterdir()) == []


def test_a_symlinked_target_file_is_refused(kb_repo: Path, tmp_path: Path) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("mine")
    target = kb_repo / ".lorebook/.cache/config.json"
    target.unlink(missing_ok=True)
    target.symlink_to(victim)
    with pytest.raises(WriteError):
        atomic_write_text(target, "{}")
    assert victim.read_text() == "mine"


@pytest.mark.parametrize(
    ("code", "says"),
    [(errno.ENOSPC, "the disk is full"), (errno.EROFS, "the file system is read-only")],
    ids=["ENOSPC", "EROFS"],
)
def test_a_failed_write_says_why_in_one_line_and_leaves_nothing(
    kb_repo: Path, monkeypatch: pytest.MonkeyPatch, code: int, says: str
) -> None:
    target = kb_repo / ".lorebook/nodes/kept.md"
    target.write_text("old content")
    before = sorted(p.name for p in target.parent.iterdir())

    def full(fd: int) -> None:
        raise OSError(code, os.strerror(code))

    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(WriteError) as err:
        atomic_write_text(target, "new content")
    assert str(err.value).splitlines()[0] == f"cannot write {target}: {os.strerror(code)}"
    assert err.value.hint is not None
    assert err.value.hint.startswith(says)
    assert isinstance(err.value, OSError)
    assert target.read_text() == "old content"
    assert sorted(p.name for p in target.parent.iterdir()) == before  # no temporary file


def test_the_cli_reports_a_full_disk_as_one_line(
    kb_repo: Path, cli: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    def full(fd: int) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)
    result = cli(
        "note", "add", "--title", "Use uv", "--description", "D", "--kind", "tooling", cwd=kb_repo
    )
    assert result.exit_code == 1
    assert "the disk is full" in result.stderr
    assert "Traceback" not in result.stderr
    leftovers = [p for p in (kb_repo / ".lorebook").rglob("*.tmp")]
    assert leftovers == []
    assert not list((kb_repo / ".lorebook/nodes").rglob("practice-use-uv.md"))


def test_stdin_that_never_closes_is_cut_at_the_deadline() -> None:
    import time

    read, write = os.pipe()
    os.write(write, b'{"session_id": ')
    try:
        with os.fdopen(read, "rb") as stream, pytest.raises(StdinTimeout, match="15 bytes read"):
            read_stdin(stream, time.monotonic() + 0.05)
    finally:
        os.close(write)


def test_an_oversized_session_id_is_refused_and_writes_nothing(
    kb_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    huge = "s" * 300_000
    before = {p for p in (kb_repo / ".lorebook").rglob("*")}
    out = fire_raw(
        kb_repo,
        monkeypatch,
        ["fake", "Prompt"],
        {"session_id": huge, "cwd": str(kb_repo), "prompt": "hi"},
    )
    assert out == ""
    log = (kb_repo / ".lorebook/_logs/hook-errors.log").read_text()
    assert "session_id is 300,000 characters (limit 256)" in log
    assert len(log) < 1000
    after = {p for p in (kb_repo / ".lorebook").rglob("*")} - before
    assert all(p.stat().st_size < 10_000 for p in after if p.is_file())


def test_a_fifo_transcript_is_refused_without_blocking(tmp_path: Path) -> None:
    from lorebook.capture.hook import refuse_special_file

    fifo = tmp_path / "t.jsonl"
    os.mkfifo(fifo)
    with pytest.raises(ValueError, match="is not a regular file"):
        refuse_special_file(str(fifo))
    refuse_special_file(str(tmp_path / "opencode.db#ses_1"))  # no such file: left to the harness
    regular = tmp_path / "real.jsonl"
    regular.write_text("{}\n")
    refuse_special_file(str(regular))


def test_a_session_id_or_path_holding_a_token_is_refused_before_any_log(
    kb_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    token = "ghp_" + "Fz9Qx8Wv7Ut6Sr5Qp4On3Ml2Kj1Ih0GfEdCbA"
    for payload in (
        {"session_id": token, "cwd": str(kb_repo), "prompt": "hi"},
        {"session_id": "a b", "cwd": str(kb_repo), "prompt": "hi"},
    ):
        assert fire_raw(kb_repo, monkeypatch, ["fake", "Prompt"], payload) == ""
    written = b"".join(p.read_bytes() for p in (kb_repo / ".lorebook").rglob("*") if p.is_file())
    assert token.encode() not in written
    log = (kb_repo / ".lorebook/_logs/hook-errors.log").read_text()
    assert "session_id holds what looks like a token" in log
    assert "session_id holds characters no host uses" in log
