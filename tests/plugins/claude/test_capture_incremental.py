"""Capture costs only what is new: appended, redacted once, durable before it is committed.

The staged log is a header and an append-only body (lorebook.capture.staged); these tests
hold capture to that: nothing staged is rewritten or re-redacted, a crash or a torn tail
is re-captured exactly once, old single-file logs stay readable and are migrated on first
touch, and the Stop hook stays off pydantic, YAML and pluggy.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from lorebook.capture import records, retention, staged
from lorebook.capture.stage import capture_session, load_log, log_files, log_path, write_log
from lorebook.kb.paths import KBPaths
from lorebook_claude import transcript as claude_transcript
from lorebook_claude.harness import ClaudeHarness

FIXTURES = Path(__file__).parent / "fixtures" / "transcripts"
SID = "11111111-2222-4333-8444-555555555555"


def _user_line(text: str, uuid: str) -> str:
    record = {"type": "user", "message": {"role": "user", "content": text}, "uuid": uuid}
    return json.dumps(record) + "\n"


def _transcript(tmp_path: Path) -> Path:
    target = tmp_path / "t.jsonl"
    shutil.copy(FIXTURES / f"{SID}.jsonl", target)
    return target


def _capture(repo: Path, ref: Path, session: str = SID) -> int:
    result = capture_session(KBPaths(repo), ClaudeHarness(), "claude", session, str(ref))
    return result.new_turns


def _users(repo: Path, session: str = SID) -> list[str]:
    log = load_log(log_path(KBPaths(repo), "claude", session))
    assert log is not None
    return [t.text for t in log.turns if t.role == "user"]


def test_growth_appends_and_never_rewrites_or_re_redacts_what_is_staged(
    kb_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ref = _transcript(tmp_path)
    _capture(kb_repo, ref)
    body = staged.body_path(log_path(KBPaths(kb_repo), "claude", SID))
    before = body.read_bytes()
    redacted: list[str] = []
    real: Callable[[list[str]], list[str]] = getattr(records, "redact_many")  # noqa: B009

    def counting(texts: list[str]) -> list[str]:
        redacted.extend(texts)
        return real(texts)

    monkeypatch.setattr(records, "redact_many", counting)
    with ref.open("a") as handle:
        handle.write(_user_line("we deploy with `make ship`, never by hand", "u-new"))
    assert _capture(kb_repo, ref) == 1
    assert body.read_bytes().startswith(before)  # the staged part is byte for byte the same
    assert redacted == ["we deploy with `make ship`, never by hand"]  # only the new turn
    assert _users(kb_repo)[-1] == "we deploy with `make ship`, never by hand"


def test_a_crash_before_the_header_is_replaced_is_recaptured_exactly_once(
    kb_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from lorebook.capture import stage

    ref = _transcript(tmp_path)
    _capture(kb_repo, ref)
    header = log_path(KBPaths(kb_repo), "claude", SID)
    committed = header.read_bytes()
    with ref.open("a") as handle:
        handle.write(_user_line("the cache tags gotcha", "u-crash"))
    real = getattr(stage, "atomic_write_bytes")  # noqa: B009 (mypy: not re-exported)

    def crash(path: Path, data: bytes) -> None:
        raise OSError("killed before the header was replaced")

    monkeypatch.setattr(stage, "atomic_write_bytes", crash)
    with pytest.raises(OSError, match="killed"):
        _capture(kb_repo, ref)
    monkeypatch.setattr(stage, "atomic_write_bytes", real)
    assert header.read_bytes() == committed  # offset and hash did not advance
    assert "the cache tags gotcha" not in _users(kb_repo)  # appended, not yet part of the log
    assert staged.body_path(header).stat().st_size > staged.body_counts(json.loads(committed))[0]
    assert _capture(kb_repo, ref) == 1
    assert _users(kb_repo).count("the cache tags gotcha") == 1


def test_a_torn_tail_of_the_body_is_ignored_and_cut_off(kb_repo: Path, tmp_path: Path) -> None:
    ref = _transcript(tmp_path)
    _capture(kb_repo, ref)
    header = log_path(KBPaths(kb_repo), "claude", SID)
    before = load_log(header)
    with staged.body_path(header).open("ab") as handle:
        handle.write(b'{"turn": {"index": 99, "role": "user", "text": "half a li')
    assert load_log(header) == before
    with ref.open("a") as handle:
        handle.write(_user_line("one more", "u-more"))
    assert _capture(kb_repo, ref) == 1
    lines = staged.body_path(header).read_bytes().splitlines()
    assert all(json.loads(line) for line in lines)  # the torn line is gone
    assert _users(kb_repo)[-1] == "one more"


def _capture_in_process(repo: str, ref: str) -> None:
    capture_session(KBPaths(Path(repo)), ClaudeHarness(), "claude", SID, ref)


def test_concurrent_captures_in_processes_stage_each_turn_once(
    kb_repo: Path, tmp_path: Path
) -> None:
    ref = _transcript(tmp_path)
    context = multiprocessing.get_context("spawn")
    procs = [
        context.Process(target=_capture_in_process, args=(str(kb_repo), str(ref))) for _ in range(4)
    ]
    for proc in procs:
        proc.start()
    for proc in procs:
        proc.join(60)
        assert proc.exitcode == 0
    log = load_log(log_path(KBPaths(kb_repo), "claude", SID))
    assert log is not None
    indexes = [t.index for t in log.turns]
    assert indexes == sorted(set(indexes))
    assert _users(kb_repo).count("say hi") == 1


def test_an_old_single_file_log_is_read_and_migrated_on_first_capture(
    kb_repo: Path, tmp_path: Path
) -> None:
    ref = _transcript(tmp_path)
    _capture(kb_repo, ref)
    header = log_path(KBPaths(kb_repo), "claude", SID)
    log = load_log(header)
    assert log is not None
    # What lorebook wrote before: one JSON file, lb_schema 1, turns inline, no body.
    legacy = log.model_copy(update={"lb_schema": 1}).model_dump_json(indent=1)
    for part in log_files(header):
        part.unlink()
    header.write_text(legacy)
    assert load_log(header) == log.model_copy(update={"lb_schema": 1})
    with ref.open("a") as handle:
        handle.write(_user_line("after the upgrade", "u-up"))
    assert _capture(kb_repo, ref) == 1
    assert json.loads(header.read_text())["lb_schema"] == 2
    assert staged.body_path(header).exists()
    assert _users(kb_repo) == [
        *(t.text for t in log.turns if t.role == "user"),
        "after the upgrade",
    ]


def test_a_status_change_rewrites_only_the_header(kb_repo: Path, tmp_path: Path) -> None:
    ref = _transcript(tmp_path)
    _capture(kb_repo, ref)
    header = log_path(KBPaths(kb_repo), "claude", SID)
    body = staged.body_path(header)
    inode, mtime = body.stat().st_ino, body.stat().st_mtime_ns
    log = load_log(header)
    assert log is not None
    write_log(header, log.model_copy(update={"status": "extracted", "extracted_turns": 3}))
    assert (body.stat().st_ino, body.stat().st_mtime_ns) == (inode, mtime)
    again = load_log(header)
    assert again is not None
    assert (again.status, again.turns) == ("extracted", log.turns)
    turns = [*log.turns[:-1]]  # a writer that changes the turns gets a new body
    write_log(header, log.model_copy(update={"turns": turns}))
    assert load_log(header).turns == turns  # type: ignore[union-attr]


def test_prune_and_forget_take_the_body_with_the_header(kb_repo: Path, tmp_path: Path) -> None:
    ref = _transcript(tmp_path)
    paths = KBPaths(kb_repo)
    _capture(kb_repo, ref)
    _capture(kb_repo, ref, "other-session")
    header = log_path(paths, "claude", SID)
    body = staged.body_path(header)
    past = time.time() - 40 * 86400
    os.utime(header, (past, past))  # the body is new, the header is not: the log is old
    removed = retention.prune(paths, 30, 14)
    assert removed == [paths.rel(header), paths.rel(body)]
    other = log_path(paths, "claude", "other-session")
    assert other.exists()
    assert staged.body_path(other).exists()
    report = retention.forget_session(paths, "other-session")
    assert paths.rel(staged.body_path(other)) in report.removed
    assert not staged.body_path(other).exists()


def test_retention_defaults_match_the_config_model() -> None:
    from lorebook.models.config import Retention

    assert (
        Retention().sessions_days,
        Retention().logs_days,
    ) == (retention.SESSIONS_DAYS, retention.LOGS_DAYS)


def test_the_stop_hook_capture_path_imports_no_pydantic_yaml_or_pluggy(
    kb_repo: Path, tmp_path: Path
) -> None:
    """What the launcher runs at Stop, inline: no heavy module, and the turns are staged."""
    from lorebook.fastpath.launcher import launcher_paths
    from lorebook.initialize import init_repo

    init_repo(kb_repo, ["claude"])
    ref = _transcript(tmp_path)
    payload = {"session_id": SID, "transcript_path": str(ref), "cwd": str(kb_repo),
               "hook_event_name": "Stop", "stop_hook_active": False}  # fmt: skip
    modules = {"claude": "lorebook_claude.events"}
    code = (
        f"import sys; sys.path[:0] = {launcher_paths(modules)!r}; from lorebook.hook import run; "
        f"run(['claude', 'Stop'], repo={str(kb_repo)!r}, event_modules={modules!r}); "
        "print(sorted({m.split('.')[0] for m in sys.modules} & "
        "{'pydantic', 'yaml', 'pluggy', 'typer', 'anyio'}))"
    )
    out = subprocess.run(
        [sys.executable, "-I", "-S", "-c", code], input=json.dumps(payload), capture_output=True,
        text=True, check=True, cwd=kb_repo,
    )  # fmt: skip
    assert out.stdout.strip() == "[]", out.stderr
    assert not (kb_repo / ".lorebook/_logs/hook-errors.log").exists()
    assert _users(kb_repo)[0] == "say hi"  # staged inline, by the harness's transcript module


def test_the_transcript_is_read_in_bounded_batches(
    kb_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each batch is written before the next is read: memory follows the batch, not the file."""
    monkeypatch.setattr(records, "BATCH_TURNS", 2)
    ref = _transcript(tmp_path)
    header = log_path(KBPaths(kb_repo), "claude", SID)
    seen: list[int] = []
    real = claude_transcript.read_transcript

    def watched(ref: str, since: int | None = None, until: int | None = None):  # type: ignore[no-untyped-def]
        for turn in real(ref, since, until):
            body = staged.body_path(header)  # a first body is written under a temporary name
            parts = [body, *body.parent.glob(f".{body.name}.*.tmp")]
            seen.append(sum(p.stat().st_size for p in parts if p.exists()))
            yield turn

    monkeypatch.setattr(claude_transcript, "read_transcript", watched)
    capture_session(KBPaths(kb_repo), claude_transcript, "claude", SID, str(ref))
    assert seen[0] == 0
    assert seen[-1] > 0


def test_a_first_capture_that_dies_mid_body_leaves_no_body_and_the_next_completes_it(
    kb_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A first body is renamed into place once durable: a capture killed before that leaves
    neither an empty nor a partial body, and the next capture writes the whole log."""
    ref = _transcript(tmp_path)
    header = log_path(KBPaths(kb_repo), "claude", SID)
    real = claude_transcript.read_transcript

    def dies(ref: str, since: int | None = None, until: int | None = None):  # type: ignore[no-untyped-def]
        yield from list(real(ref, since, until))[:1]
        raise KeyboardInterrupt  # as a kill would stop it, after some lines were written

    monkeypatch.setattr(claude_transcript, "read_transcript", dies)
    with pytest.raises(KeyboardInterrupt):
        capture_session(KBPaths(kb_repo), claude_transcript, "claude", SID, str(ref))
    assert not staged.body_path(header).exists()
    assert not list(header.parent.glob(".*.tmp"))
    monkeypatch.setattr(claude_transcript, "read_transcript", real)
    result = capture_session(KBPaths(kb_repo), claude_transcript, "claude", SID, str(ref))
    assert result.new_turns > 0
    assert staged.body_path(header).stat().st_size > 0


def test_a_resumed_capture_numbers_turns_from_the_line_count_it_recorded(
    kb_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The header keeps the lines read; the next capture does not re-read the transcript."""
    from lorebook.hostkit import jsonl

    ref = _transcript(tmp_path)
    paths = KBPaths(kb_repo)
    capture_session(paths, claude_transcript, "claude", SID, str(ref))
    header = log_path(paths, "claude", SID)
    assert json.loads(header.read_bytes())["transcript_lines"] == ref.read_bytes().count(b"\n")
    with ref.open("a") as handle:
        handle.write(_user_line("resume the migration at step three", "u-resume"))

    def counted(*_: object) -> None:
        raise AssertionError("counted the lines of the transcript already staged")

    with monkeypatch.context() as patched:
        patched.setattr(jsonl, "lines_before", counted)
        capture_session(paths, claude_transcript, "claude", SID, str(ref))
    # the same indexes as a reader that counts the lines itself (a fresh capture)
    capture_session(paths, ClaudeHarness(), "claude", "fresh", str(ref))
    resumed, fresh = load_log(header), load_log(log_path(paths, "claude", "fresh"))
    assert resumed is not None
    assert fresh is not None
    assert [(t.index, t.text) for t in resumed.turns] == [(t.index, t.text) for t in fresh.turns]
    assert resumed.turns[-1].text == "resume the migration at step three"
    assert json.loads(header.read_bytes())["transcript_lines"] == ref.read_bytes().count(b"\n")


def test_a_header_without_a_line_count_is_counted_and_given_one(
    kb_repo: Path, tmp_path: Path
) -> None:
    ref = _transcript(tmp_path)
    paths = KBPaths(kb_repo)
    capture_session(paths, claude_transcript, "claude", SID, str(ref))
    header = log_path(paths, "claude", SID)
    data = json.loads(header.read_bytes())
    del data["transcript_lines"]  # as a log staged before the count was kept
    header.write_bytes(staged.encode_header(data))
    lines = ref.read_bytes().count(b"\n")
    with ref.open("a") as handle:
        handle.write(_user_line("the flaky test is the clock", "u-count"))
    capture_session(paths, claude_transcript, "claude", SID, str(ref))
    log = load_log(header)
    assert log is not None
    assert log.turns[-1].index == lines
    assert json.loads(header.read_bytes())["transcript_lines"] == lines + 1
