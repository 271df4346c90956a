"""Capture of Claude Code transcripts: staged, redacted, incremental, race-safe."""

from __future__ import annotations

import json
import shutil
import threading
from pathlib import Path

from lorebook.capture.retention import forget_session, prune
from lorebook.capture.stage import capture_session, load_log, log_files, log_path
from lorebook.kb.paths import KBPaths
from lorebook_claude.harness import ClaudeHarness
from tests.conftest import CliRunner

FIXTURES = Path(__file__).parent / "fixtures" / "transcripts"
SID = "11111111-2222-4333-8444-555555555555"


def _user_line(text: str, uuid: str) -> str:
    return (
        json.dumps(
            {
                "type": "user",
                "message": {"role": "user", "content": text},
                "uuid": uuid,
                "sessionId": SID,
            }
        )
        + "\n"
    )


def _transcript(tmp_path: Path) -> Path:
    target = tmp_path / "t.jsonl"
    shutil.copy(FIXTURES / f"{SID}.jsonl", target)
    return target


def test_capture_stages_human_turns_and_drops_injected_text(kb_repo: Path, tmp_path: Path) -> None:
    ref = _transcript(tmp_path)
    paths = KBPaths(kb_repo)
    result = capture_session(paths, ClaudeHarness(), "claude", SID, str(ref))
    assert result.changed
    log = load_log(result.path)
    assert log is not None
    assert log.status == "pending"
    assert log.origin == f"claude:{SID}"
    users = [t.text for t in log.turns if t.role == "user"]
    assert users == ["say hi", "PROBE_TOOL please print hello.txt", "/compact", "say hi again"]
    assert not any("PROBEINJECT" in t.text for t in log.turns)  # hook-injected text never staged
    assert log.transcript_length == ref.stat().st_size


def test_unchanged_transcript_changes_nothing_and_growth_reads_only_new_turns(
    kb_repo: Path, tmp_path: Path
) -> None:
    ref = _transcript(tmp_path)
    paths = KBPaths(kb_repo)
    first = capture_session(paths, ClaudeHarness(), "claude", SID, str(ref))
    before = first.path.read_bytes()
    mtime = first.path.stat().st_mtime_ns
    again = capture_session(paths, ClaudeHarness(), "claude", SID, str(ref))
    assert not again.changed
    assert first.path.read_bytes() == before
    assert first.path.stat().st_mtime_ns == mtime
    with ref.open("a") as handle:
        handle.write(
            _user_line("no, we always use `uv run pytest` here, never bare pytest", "u-new")
        )
        handle.write(
            '{"type": "user", "message": {"role": "user", "content": "half a li'
        )  # still being written
    grown = capture_session(paths, ClaudeHarness(), "claude", SID, str(ref))
    assert grown.new_turns == 1
    log = load_log(grown.path)
    assert log is not None
    assert log.turns[-1].text == "no, we always use `uv run pytest` here, never bare pytest"
    assert log.transcript_hash != json.loads(before)["transcript_hash"]


def test_a_transcript_with_no_turn_stages_no_log_and_a_later_turn_is_read(
    kb_repo: Path, tmp_path: Path, cli: CliRunner
) -> None:
    # A Stop pointed at a file that holds no session (damaged, or not a transcript) left an
    # empty log that `status` counted as a pending session and `extract` then read.
    ref = tmp_path / "t.jsonl"
    ref.write_text('not json at all\n{"broken": \n')
    paths = KBPaths(kb_repo)
    result = capture_session(paths, ClaudeHarness(), "claude", SID, str(ref))
    assert not result.changed
    assert not any(path.exists() for path in log_files(result.path))
    assert "sessions: 0 pending" in cli("status", cwd=kb_repo).stdout
    with ref.open("a") as handle:
        handle.write(_user_line("always run the linter before you commit", "u-1"))
    later = capture_session(paths, ClaudeHarness(), "claude", SID, str(ref))
    log = load_log(later.path)
    assert log is not None
    assert [t.text for t in log.turns] == ["always run the linter before you commit"]
    assert "sessions: 1 pending" in cli("status", cwd=kb_repo).stdout


def test_secrets_and_private_blocks_never_reach_disk(kb_repo: Path, tmp_path: Path) -> None:
    ref = tmp_path / "s.jsonl"
    secret_id, secret_key = "AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
    ref.write_text(
        _user_line(
            f"use these: AWS_ACCESS_KEY_ID={secret_id}\nAWS_SECRET_ACCESS_KEY={secret_key}", "u1"
        )
        + _user_line("before <private>my medical appointment is at 3pm</private> after", "u2")
        + _user_line(
            "session 11111111-2222-4333-8444-555555555555 commit 4b825dc642cb6eb9a060e54bf8d69288fbee4904",
            "u3",
        )
    )
    result = capture_session(KBPaths(kb_repo), ClaudeHarness(), "claude", "s-secret", str(ref))
    everything = "".join(
        p.read_text(errors="replace") for p in (kb_repo / ".lorebook").rglob("*") if p.is_file()
    )
    assert secret_id not in everything
    assert secret_key not in everything
    assert "medical appointment" not in everything
    log = load_log(result.path)
    assert log is not None
    assert log.turns[1].text == "before  after"
    # Ids and hashes are not secrets: they survive untouched.
    assert "11111111-2222-4333-8444-555555555555" in log.turns[2].text
    assert "4b825dc642cb6eb9a060e54bf8d69288fbee4904" in log.turns[2].text


def test_racing_captures_never_lose_turns(kb_repo: Path, tmp_path: Path) -> None:
    ref = _transcript(tmp_path)
    paths = KBPaths(kb_repo)
    errors: list[BaseException] = []

    def grow_and_capture(n: int) -> None:
        try:
            capture_session(paths, ClaudeHarness(), "claude", SID, str(ref))
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=grow_and_capture, args=(n,)) for n in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    log = load_log(log_path(paths, "claude", SID))
    assert log is not None
    assert [t.text for t in log.turns if t.role == "user"].count("say hi") == 1


def test_forget_session_removes_every_trace(kb_repo: Path, tmp_path: Path, cli: CliRunner) -> None:
    ref = _transcript(tmp_path)
    paths = KBPaths(kb_repo)
    result = capture_session(paths, ClaudeHarness(), "claude", SID, str(ref))
    llm = paths.logs / "llm"
    llm.mkdir(parents=True)
    trace = llm / f"{result.path.stem}-1.json"
    trace.write_text("{}")
    curation_trace = llm / "curate-1.json"
    curation_trace.write_text(json.dumps({"proposals": [{"origin": f"claude:{SID}:3"}]}))
    other_trace = llm / "curate-2.json"
    other_trace.write_text(json.dumps({"proposals": [{"origin": "claude:someone-else:1"}]}))
    conflicts = paths.conflicts
    conflicts.mkdir()
    (conflicts / "run-1.md").write_text(f"---\nstatus: open\n---\nquoting claude:{SID}:3\n")
    doc = cli("forget-session", SID, "--json", cwd=kb_repo).json()
    assert paths.rel(result.path) in doc["removed"]
    assert paths.rel(trace) in doc["removed"]
    assert paths.rel(curation_trace) in doc["removed"]
    assert other_trace.exists()
    assert doc["conflicts_quoting"] == [".lorebook/conflicts/run-1.md"]
    assert not result.path.exists()
    assert (conflicts / "run-1.md").exists()  # never rewritten or deleted silently


def test_prune_removes_old_files_only(kb_repo: Path, tmp_path: Path) -> None:
    import os
    import time

    paths = KBPaths(kb_repo)
    paths.sessions.mkdir(parents=True)
    old = paths.sessions / "old.json"
    new = paths.sessions / "new.json"
    old.write_text("{}")
    new.write_text("{}")
    past = time.time() - 40 * 86400
    os.utime(old, (past, past))
    assert prune(paths, 30, 14) == [".lorebook/_sessions/old.json"]
    assert new.exists()


def test_scan_finds_secrets_in_the_knowledge_base(kb_repo: Path, cli: CliRunner) -> None:
    assert cli("scan", cwd=kb_repo).exit_code == 0
    cli("note", "add", "--title", "Deploy key", "--description", "D", "--kind", "gotcha",
        "--body", "use DEPLOY_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123456789", cwd=kb_repo)  # fmt: skip
    result = cli("scan", "--json", cwd=kb_repo)
    assert result.exit_code == 1
    files = {Path(h["file"]).name for h in result.json()["secrets"]}
    assert files == {"gotcha-deploy-key.md", "index.sqlite"}  # the note, and the hook index
    assert "ghp_" not in result.stdout


def test_session_log_is_forgotten_even_if_the_id_holds_odd_characters(
    kb_repo: Path, tmp_path: Path
) -> None:
    ref = _transcript(tmp_path)
    paths = KBPaths(kb_repo)
    odd = "../../etc/passwd"
    result = capture_session(paths, ClaudeHarness(), "claude", odd, str(ref))
    assert result.path.parent == paths.sessions
    assert forget_session(paths, odd).removed


def test_hooks_capture_inline_at_stop_and_detached_at_session_end(
    kb_repo: Path, tmp_path: Path
) -> None:
    import time

    from lorebook.initialize import init_repo
    from lorebook.testing import FakeHost

    init_repo(kb_repo, ["claude"])
    ref = _transcript(tmp_path)
    host = FakeHost(kb_repo, ClaudeHarness())
    base = {"session_id": SID, "transcript_path": str(ref), "cwd": str(kb_repo)}
    stop = host.fire("Stop", {**base, "hook_event_name": "Stop", "stop_hook_active": False})
    assert (stop.exit_code, stop.stdout) == (0, "")
    staged = log_path(KBPaths(kb_repo), "claude", SID)
    assert staged.exists()  # inline: done before the hook returned
    with ref.open("a") as handle:
        handle.write(_user_line("one more thing: the cache tags gotcha", "u-end"))
    end = host.fire("SessionEnd", {**base, "hook_event_name": "SessionEnd", "reason": "other"})
    assert (end.exit_code, end.stdout) == (0, "")
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        log = load_log(staged)
        if log is not None and log.turns[-1].text == "one more thing: the cache tags gotcha":
            break
        time.sleep(0.2)
    else:
        raise AssertionError("the detached capture did not stage the new turn within 30 s")
    assert not (kb_repo / ".lorebook/_logs/hook-errors.log").exists()


def test_a_capture_plugin_can_redact_more_but_never_less(kb_repo: Path, tmp_path: Path) -> None:
    from collections.abc import Generator

    from lorebook import hookimpl
    from lorebook.models.session import SessionLog
    from lorebook.plugins import get_plugins

    class Scrubber:
        @hookimpl(wrapper=True)
        def capture(self, log: SessionLog) -> Generator[None, SessionLog, SessionLog]:
            staged = yield
            turns = [
                t.model_copy(update={"text": t.text.replace("hello", "[CUSTOMER]")})
                for t in staged.turns
            ]
            return staged.model_copy(update={"turns": turns})

    class Leaker:
        @hookimpl(tryfirst=True)
        def capture(self, log: SessionLog) -> SessionLog:
            turns = [
                t.model_copy(update={"text": t.text + " AKIAIOSFODNN7EXAMPLE"}) for t in log.turns
            ]
            return log.model_copy(update={"turns": turns})

    pm = get_plugins().pm
    scrubber, leaker = Scrubber(), Leaker()
    pm.register(scrubber)
    pm.register(leaker)
    try:
        ref = _transcript(tmp_path)
        result = capture_session(KBPaths(kb_repo), ClaudeHarness(), "claude", SID, str(ref))
    finally:
        pm.unregister(scrubber)
        pm.unregister(leaker)
    text = "".join(p.read_text() for p in log_files(result.path))
    assert "AKIAIOSFODNN7EXAMPLE" not in text  # what a plugin adds is redacted again
    assert "[CUSTOMER]" in text
