"""Nudges for the person: past a threshold, once an hour, the model is asked to tell them.

Session start speaks to the model; what a person should do (extract and curate the waiting
sessions, fix a failing lint) is asked of the model as one line to tell the person, at most
once an hour, and only past ``nudges.waiting_sessions`` (config.yaml). The lint tick rides
the session-boundary hook: every ``nudges.lint_every_sessions`` sessions it lints detached.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from lorebook import nudges
from lorebook.capture.stage import log_path, write_log
from lorebook.config import parse_config
from lorebook.errors import ConfigError
from lorebook.hookconfig import load_hook_config
from lorebook.kb.paths import KBPaths
from lorebook.models.session import SessionLog, SessionStatus
from tests.conftest import CliRunner
from tests.core.test_session_start_fast import start

TELL = "lorebook asks you to tell the person, in one line"


def stage(repo: Path, count: int, status: SessionStatus = "pending", prefix: str = "s") -> None:
    """Stage ``count`` session logs with ``status``, as capture and extraction write them."""
    paths = KBPaths.for_repo(repo)
    for i in range(count):
        session = f"{prefix}{i}"
        log = SessionLog(harness="claude", session_id=session, origin=f"claude:{session}",
                         transcript_hash=f"sha256:{i:064x}", transcript_length=10, status=status)  # fmt: skip
        write_log(log_path(paths, "claude", session), log)


def settle(repo: Path) -> None:
    """Date the staged logs' folder back, as a folder not written in the last seconds."""
    folder = repo / ".lorebook" / "_sessions"
    old = time.time() - 60
    os.utime(folder, (old, old))


@pytest.fixture
def repo(kb_repo: Path, cli: CliRunner) -> Path:
    """A repository wired for Claude Code with one note."""
    assert cli("init", "--harnesses", "claude", cwd=kb_repo).exit_code == 0
    added = cli("note", "add", "--title", "Money is integer cents", "--kind", "convention",
                "--description", "Floats drift.", cwd=kb_repo)  # fmt: skip
    assert added.exit_code == 0, added.stderr
    return kb_repo


def nudge(repo: Path, threshold: int = 20, now: float | None = None) -> str:
    problems: list[str] = []
    said = nudges.session_start_nudge(str(repo / ".lorebook"), threshold, problems, now=now)
    assert problems == []
    return said


# Configuration ----------------------------------------------------------------------


def test_the_keys_have_their_defaults_and_bad_values_name_key_and_value(kb_repo: Path) -> None:
    config = parse_config("lb_schema: 2\n", source="config.yaml")
    assert (config.nudges.waiting_sessions, config.nudges.lint_every_sessions) == (20, 50)
    with pytest.raises(ConfigError) as bad:
        parse_config("nudges:\n  waiting_sessions: -3\n", source=".lorebook/config.yaml")
    assert "'nudges.waiting_sessions'" in str(bad.value)
    assert "-3" in str(bad.value)
    with pytest.raises(ConfigError) as typo:
        parse_config("nudges:\n  lint_every: 5\n", source=".lorebook/config.yaml")
    assert "unknown key 'nudges.lint_every'" in str(typo.value)
    cache = kb_repo / ".lorebook/.cache/config.json"
    cache.parent.mkdir(parents=True, exist_ok=True)
    cache.write_text(json.dumps({"nudges": {"waiting_sessions": 7, "lint_every_sessions": 3}}))
    hook = load_hook_config(str(kb_repo / ".lorebook"))
    assert (hook.waiting_sessions, hook.lint_every_sessions) == (7, 3)


def test_a_configured_threshold_reaches_the_hook(repo: Path, cli: CliRunner) -> None:
    config = repo / ".lorebook" / "config.yaml"
    config.write_text(config.read_text() + "nudges:\n  waiting_sessions: 3\n")
    assert cli("status", cwd=repo).exit_code == 0  # a command compiles the config
    stage(repo, 3)
    context, _ = start(repo, "configured")
    assert "3 captured sessions wait" in context


# The sessions nudge -----------------------------------------------------------------


def test_below_the_threshold_nothing_is_said(repo: Path) -> None:
    stage(repo, 19)
    stage(repo, 30, "curated", prefix="done")  # curated: nothing waits
    assert nudge(repo) == ""
    assert not Path(nudges.nudged_file(str(repo / ".lorebook"))).exists()


def test_past_the_threshold_once_an_hour_naming_the_commands(repo: Path) -> None:
    stage(repo, 12)
    stage(repo, 8, "extracted", prefix="x")
    now = 1_900_000_000.0
    said = nudge(repo, now=now)
    assert said.startswith(TELL)
    assert "20 captured sessions wait to become notes: run `lorebook extract`, then " in said
    assert "`lorebook curate`" in said
    assert len(said.splitlines()) == 1
    assert nudge(repo, now=now + 60) == ""  # within the hour
    assert nudge(repo, now=now + 3599) == ""
    assert "20 captured sessions wait" in nudge(repo, now=now + 3601)


def test_extracted_sessions_only_name_curate(repo: Path) -> None:
    stage(repo, 21, "extracted")
    said = nudge(repo)
    assert "21 captured sessions wait to become notes: run `lorebook curate`." in said
    assert "lorebook extract" not in said


def test_counting_reads_no_log_below_the_threshold_and_each_log_once(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    read: list[str] = []
    real = nudges._log_status

    def spy(path: str) -> str | None:
        read.append(path)
        return real(path)

    monkeypatch.setattr(nudges, "_log_status", spy)
    stage(repo, 15)
    assert nudge(repo) == ""
    assert read == []  # 15 files cannot reach 20: only the folder was listed
    stage(repo, 10, "curated", prefix="done")
    settle(repo)
    assert nudge(repo) == ""  # 25 files, 15 waiting: each header's head read once
    assert len(read) == 25
    assert nudge(repo) == ""
    assert len(read) == 25  # the folder did not change: the cached counts
    stage(repo, 5, prefix="late")
    settle(repo)
    assert "20 captured sessions wait" in nudge(repo)
    assert len(read) == 55


def test_a_nudge_that_cannot_be_recorded_is_not_said(repo: Path) -> None:
    stage(repo, 20)
    kb = repo / ".lorebook"
    target = repo / "elsewhere.json"
    target.write_text("{}\n")
    state = Path(nudges.nudged_file(str(kb)))
    state.parent.mkdir(parents=True, exist_ok=True)
    state.symlink_to(target)  # a committed link where the time goes
    problems: list[str] = []
    assert nudges.session_start_nudge(str(kb), 20, problems) == ""
    assert problems
    assert "symbolic link" in problems[0]
    assert target.read_text() == "{}\n"  # never written through the link


def test_the_real_session_start_asks_once_and_stays_light(repo: Path) -> None:
    stage(repo, 25)
    first, heavy = start(repo, "one")
    assert heavy == set()  # no YAML, no pydantic to count the sessions
    nudge_lines = [line for line in first.splitlines() if line.startswith(TELL)]
    assert len(nudge_lines) == 1
    assert "25 captured sessions wait" in nudge_lines[0]
    assert "`lorebook extract`, then `lorebook curate`" in nudge_lines[0]
    second, _ = start(repo, "two")
    assert "lorebook status: 1 note." in second
    assert TELL not in second
    assert "`lorebook" not in second


# The lint tick ----------------------------------------------------------------------


def stop(repo: Path, session: str) -> None:
    """Fire Claude Code's Stop for ``session`` through the installed launcher."""
    transcript = repo / f"{session}.jsonl"
    transcript.write_text(
        json.dumps({"type": "user", "message": {"role": "user", "content": "hi"}}) + "\n"
    )
    payload = {"session_id": session, "cwd": str(repo), "hook_event_name": "Stop",
               "transcript_path": str(transcript)}  # fmt: skip
    subprocess.run(
        [sys.executable, "-I", "-S", str(repo / ".lorebook/bin/hook"), "claude", "Stop"],
        input=json.dumps(payload).encode(), capture_output=True, cwd=repo, check=True,
    )  # fmt: skip


def wait_for(path: Path, seconds: float = 60) -> dict[str, object]:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        found = nudges.read_json(str(path))
        if found:
            return found
        time.sleep(0.1)
    raise AssertionError(f"{path} was not written")


def test_every_nth_session_lints_detached_and_the_next_start_says_it_fails(
    repo: Path, cli: CliRunner
) -> None:
    kb = repo / ".lorebook"
    config = kb / "config.yaml"
    config.write_text(config.read_text() + "nudges:\n  lint_every_sessions: 2\n")
    assert cli("lint", cwd=repo).exit_code == 0  # clean; compiles the config
    broken = next((kb / "nodes").rglob("*.md"))
    broken = broken.parent / "convention-broken.md"
    broken.write_text("not a note\n")  # an invalid note: lint fails
    result = Path(nudges.result_file(str(kb)))
    stop(repo, "a")
    stop(repo, "a")  # the same session's next stop: not counted again
    time.sleep(0.5)
    assert not result.exists()
    assert nudges.read_json(nudges.tick_file(str(kb)))["sessions"] == 1
    stop(repo, "b")  # the second session: lint runs, detached
    found = wait_for(result)
    errors = found["errors"]
    assert isinstance(errors, int)
    assert errors >= 1
    noun = "error" if errors == 1 else "errors"
    assert found["first_error"]  # the first error, one line
    context, _ = start(repo, "after")
    lines = [line for line in context.splitlines() if line.startswith(TELL)]
    assert lines == [
        f'{TELL} of your first reply, and then to carry on: "`lorebook lint` found {errors} '
        f'{noun} in the knowledge base: run it to see them."'
    ]
    assert TELL not in start(repo, "within the hour")[0]


def test_a_clean_lint_since_silences_the_failing_one(repo: Path, cli: CliRunner) -> None:
    kb = repo / ".lorebook"
    result = Path(nudges.result_file(str(kb)))
    result.parent.mkdir(parents=True, exist_ok=True)
    result.write_text(json.dumps({"at": 1, "errors": 3, "warnings": 0}))
    assert "found 3 errors" in nudge(repo, now=1_900_000_000.0)
    assert cli("lint", cwd=repo).exit_code == 0  # the person fixed it and linted
    assert nudge(repo, now=1_900_000_000.0 + 7200) == ""


def test_the_tick_counts_sessions_and_zero_turns_it_off(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    kb = str(repo / ".lorebook")
    started: list[list[str]] = []
    monkeypatch.setattr("lorebook.detached.start", lambda argv, _cwd: started.append(argv))
    assert not nudges.lint_tick(kb, str(repo), "s1", 0)
    assert not Path(nudges.tick_file(kb)).exists()
    for i in range(1, 7):
        nudges.lint_tick(kb, str(repo), f"s{i}", 3)
        nudges.lint_tick(kb, str(repo), f"s{i}", 3)  # a stop per turn: one session
    assert len(started) == 2
    assert started[0][-1] == str(repo)
    assert nudges.read_json(nudges.tick_file(kb))["sessions"] == 6
