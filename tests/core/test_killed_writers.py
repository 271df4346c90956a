"""What a killed writer leaves is repaired by the next one: its temporary files are swept,
an interrupted note add's indexes are brought up to date by the rerun; and the kill and
concurrency benchmarks run (small) as tests."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from lorebook.kb.fsutil import atomic_write_text
from lorebook.kb.paths import KBPaths
from lorebook.kb.store import MarkdownStore
from lorebook.testing import make_note
from tests.conftest import CliRunner, needs_shared

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


@pytest.mark.skipif(os.name != "posix", reason="dead processes are told apart on POSIX only")
def test_a_write_sweeps_the_temporary_files_a_killed_writer_left(tmp_path: Path) -> None:
    target = tmp_path / ".lorebook" / "_sessions" / "log.json"
    target.parent.mkdir(parents=True)
    dead = target.with_name(f".log.json.{_dead_pid()}.0123abcd.tmp")
    alive = target.with_name(f".log.json.{os.getppid()}.4567cdef.tmp")  # a live writer's
    other = target.with_name(f".other.json.{_dead_pid()}.89abcdef.tmp")  # another file's
    for path in (dead, alive, other):
        path.write_text("half")
    atomic_write_text(target, "{}\n")
    assert target.read_text() == "{}\n"
    assert not dead.exists()
    assert alive.exists()
    assert other.exists()


@pytest.mark.skipif(os.name != "posix", reason="dead processes are told apart on POSIX only")
def test_the_capture_follow_up_sweeps_what_killed_writers_left_anywhere(
    kb_repo: Path, tmp_path: Path
) -> None:
    """Files nothing writes again (a branch's resume summary, the unreviewed list) too."""
    from lorebook.capture.stage import capture_session
    from lorebook_claude.harness import ClaudeHarness

    paths = KBPaths(kb_repo)
    dead, live = _dead_pid(), os.getppid()
    left = [
        paths.state / "resume" / f".other-branch.json.{dead}.0123abcd.tmp",
        paths.cache / f".unreviewed.json.{dead}.4567cdef.tmp",
        paths.nodes / "gotcha" / f".some-note.md.{dead}.89abcdef.tmp",
    ]
    running = paths.cache / f".unreviewed.json.{live}.0123cdef.tmp"  # a live writer's
    for path in [*left, running]:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("half")
    session = "11111111-2222-4333-8444-555555555555"
    transcript = tmp_path / "t.jsonl"
    fixtures = Path(__file__).resolve().parents[1] / "plugins" / "claude" / "fixtures"
    transcript.write_bytes((fixtures / "transcripts" / f"{session}.jsonl").read_bytes())
    assert capture_session(paths, ClaudeHarness(), "claude", session, str(transcript)).changed
    assert [p for p in left if p.exists()] == []
    assert running.read_text() == "half"


def test_a_capture_killed_in_its_follow_up_is_followed_up_by_the_rerun(
    kb_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Killed once the session was staged, while writing the usage file: the rerun has
    nothing new to stage, and still finishes the follow-up and sweeps its litter."""
    from lorebook.capture import stage
    from lorebook.stats.usage import usage_path
    from lorebook_claude.harness import ClaudeHarness

    paths = KBPaths(kb_repo)
    session = "11111111-2222-4333-8444-555555555555"
    transcript = tmp_path / "t.jsonl"
    fixtures = Path(__file__).resolve().parents[1] / "plugins" / "claude" / "fixtures"
    transcript.write_bytes((fixtures / "transcripts" / f"{session}.jsonl").read_bytes())

    def killed(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt  # as SIGKILL would stop it, mid-write

    monkeypatch.setattr(stage, "follow_up", killed)
    with pytest.raises(KeyboardInterrupt):
        stage.capture_session(paths, ClaudeHarness(), "claude", session, str(transcript))
    monkeypatch.undo()
    litter = paths.cache / f".usage.json.{_dead_pid()}.0123abcd.tmp"
    litter.write_text('{"version"')
    rerun = stage.capture_session(paths, ClaudeHarness(), "claude", session, str(transcript))
    assert not rerun.changed  # nothing new to stage
    assert not litter.exists()
    assert Path(usage_path(str(paths.root))).exists()  # the session's usage is counted
    assert not stage.follow_behind(paths, rerun.path)
    followed = stage.tally_path(paths, rerun.path.stem).stat().st_mtime_ns
    stage.capture_session(paths, ClaudeHarness(), "claude", session, str(transcript))
    assert stage.tally_path(paths, rerun.path.stem).stat().st_mtime_ns == followed  # once


def test_rerunning_an_add_killed_after_its_write_refreshes_the_indexes(
    kb_repo: Path, cli: CliRunner
) -> None:
    args = ("note", "add", "--title", "Billing calls go through the fake", "--kind", "gotcha",
            "--description", "Tests never call billing")  # fmt: skip
    # What a kill between the note's write and the regeneration leaves: the note, old indexes.
    MarkdownStore(kb_repo).add(
        make_note(
            "billing-calls-go-through-the-fake",
            title="Billing calls go through the fake",
            description="Tests never call billing",
            lb_kind="gotcha",
            lb_id="gotcha-billing-calls-go-through-the-fake",  # the id the add mints
        ),
        folder="gotcha",
    )
    assert cli("lint", cwd=kb_repo).exit_code == 1  # the generated files are stale
    rerun = cli(*args, cwd=kb_repo)
    assert rerun.exit_code == 1
    assert "exists already" in rerun.stderr
    assert cli("lint", cwd=kb_repo).exit_code == 0
    assert (KBPaths(kb_repo).nodes / "gotcha" / "index.md").exists()


def test_rerunning_an_add_killed_before_its_review_was_recorded_records_it(
    kb_repo: Path, cli: CliRunner
) -> None:
    """A kill between the note's write and the record of its review: the rerun records it.

    Else the note a person wrote stays unreviewed on this machine (a pointer, powerless) and
    the killed writer's temporary file of ``.state/reviewed.json`` stays behind.
    """
    from lorebook.reviewstate import reviews

    args = ("note", "add", "--title", "Billing calls go through the fake", "--kind", "gotcha",
            "--description", "Tests never call billing")  # fmt: skip
    assert cli(*args, cwd=kb_repo).exit_code == 0
    root = KBPaths(kb_repo).root
    (root / ".state/reviewed.json").unlink()  # the kill came before the record
    litter = root / f".state/.reviewed.json.{2**22 + 7}.0badf00d.tmp"  # no such pid
    litter.write_text("{")
    assert cli(*args, cwd=kb_repo).exit_code == 1  # "exists already", as before
    assert "gotcha-billing-calls-go-through-the-fake" in reviews(str(root))
    assert not litter.exists()
    other = ("note", "add", "--title", "Billing calls go through the fake", "--kind", "gotcha",
             "--description", "Something else")  # fmt: skip
    (root / ".state/reviewed.json").unlink()
    assert cli(*other, cwd=kb_repo).exit_code == 1  # another note of that id: no review
    assert not reviews(str(root))


def _benchmark(name: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(BENCHMARKS / name), *args],
        capture_output=True, text=True, timeout=900, check=False,
    )  # fmt: skip


@pytest.mark.slow
@needs_shared  # the notes it writes are real text from ../shared/eval
@pytest.mark.skipif(os.name != "posix", reason="SIGKILL is POSIX")
def test_kill_run_small() -> None:
    """One SIGKILL per writer (the long run is `benchmarks/kill_writers.py --kills 210`)."""
    run = _benchmark("kill_writers.py", "--kills", "7", "--notes", "40", "--seed", "3")
    assert run.returncode == 0, run.stdout + run.stderr
    total = run.stdout.splitlines()[-1]
    clean = "kills    7 torn 0 zero-byte 0 lost 0 temporary 0 rerun 0 tree 0"
    assert total.startswith(f"total          {clean}"), total


@pytest.mark.slow
@needs_shared  # the notes it writes are real text from ../shared/eval
def test_concurrency_run_small() -> None:
    """Every worker does three rounds (the long run is `benchmarks/concurrency.py`, 60 s)."""
    run = _benchmark("concurrency.py", "--ops", "3", "--seconds", "600")
    assert run.returncode == 0, run.stdout + run.stderr
    assert "note add 9 (9 landed)" in run.stdout
    assert "problems 0" in run.stdout
