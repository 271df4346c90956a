"""A curate run killed at random points leaves every note valid, and a rerun completes the
batch without duplicates: the end state is byte for byte that of an uninterrupted run."""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from lorebook.capture.stage import load_log
from lorebook.curate.conflicts import list_conflicts
from lorebook.kb.paths import KBPaths
from tests.conftest import run_lorebook
from tests.core.test_curate import add_note, notes_of, proposal, stage, tree

KILLS = 15
STEPS = 80
"""Steps of the scenario's batch (8 sessions of 10 proposals)."""
SEED = 20251130
JOURNAL = ".lorebook/.state/curate-journal.json"
PROGRESS = ".lorebook/.state/curate-journal.progress.jsonl"


def _scenario(repo: Path) -> list[str]:
    """Existing notes and 8 staged sessions of 10 proposals; return every proposal origin.

    Per session: 6 new claims, 2 near-duplicates (of an existing note, of an earlier
    proposal), 2 contradictions of existing notes.
    """
    for k in range(8):
        add_note(repo, f"Always run check{k} before a release", tags=("release",), folder="release")
        add_note(repo, f"Use tool{k} for task{k}", kind="tooling", tags=(f"area{k}",))
    origins = []
    for s in range(8):
        session = f"sess{s}"
        items = [
            proposal(session, n, f"Use tool{s}x{n} for task{s}x{n}", kind="tooling",
                     tags=(f"area{n % 4}",), body=f"Run `tool{s}x{n} --fast` in `dir{n}/`.")
            for n in range(6)
        ]  # fmt: skip
        items.append(proposal(session, 6, f"Manage task{s} with tool{s}", kind="tooling",
                              body=f"It caches results in `.cache/tool{s}`."))  # fmt: skip
        items.append(proposal(session, 7, f"Handle task{s}x0 with tool{s}x0", kind="tooling"))
        items.append(proposal(session, 8, f"Never run check{s} before a release",
                              kind="prohibition", body=f"check{s} is flaky on release branches."))  # fmt: skip
        items.append(proposal(session, 9, f"Skip check{s} before a release", kind="convention"))
        stage(repo, session, items)
        origins += [p.origin for p in items]
    return origins


def _make(tmp_path: Path, name: str) -> Path:
    repo = tmp_path / name
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    run_lorebook("init", cwd=repo)
    return repo


def _timed_run(repo: Path) -> float:
    started = time.monotonic()
    run_lorebook("curate", cwd=repo)
    return time.monotonic() - started


def _assert_whole(repo: Path) -> None:
    """Every note and conflict file parses; no id is used twice."""
    notes_of(repo)
    assert list_conflicts(KBPaths(repo), include_decided=True).problems == []


def _start(repo: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "lorebook", "curate"],
        cwd=repo,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def _kill(proc: subprocess.Popen[bytes]) -> bool:
    """SIGKILL the run if it is still going; True if it was."""
    running = proc.poll() is None
    if running:
        os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    return running


def _kill_after(repo: Path, delay: float) -> bool:
    """Start `lorebook curate` and SIGKILL it after ``delay`` s, wherever it is."""
    proc = _start(repo)
    time.sleep(delay)
    return _kill(proc)


def _kill_inside_step(repo: Path, steps: int, extra: float) -> bool:
    """Start `lorebook curate`, SIGKILL it ``extra`` s after its journal holds ``steps`` steps.

    The kill lands somewhere inside the next step(s): a note half written, a conflict file,
    a summary, the progress line itself.
    """
    proc = _start(repo)
    deadline = time.monotonic() + 120
    while proc.poll() is None and time.monotonic() < deadline:
        done = _steps_done(repo)
        if done is not None and done >= steps:
            time.sleep(extra)
            break
        time.sleep(0.002)
    return _kill(proc)


def _steps_done(repo: Path) -> int | None:
    """Steps recorded as done in the journal's progress (None: no journal)."""
    if not (repo / JOURNAL).exists():
        return None
    progress = repo / PROGRESS
    return len(progress.read_bytes().splitlines()) if progress.exists() else 0


@pytest.mark.slow
@pytest.mark.skipif(os.name != "posix", reason="SIGKILL is POSIX")
def test_killed_runs_leave_valid_notes_and_a_rerun_completes_the_batch(
    tmp_path: Path, lorebook_home: Path
) -> None:
    reference = _make(tmp_path, "reference")
    origins = _scenario(reference)
    seed_state = tmp_path / "seed"
    shutil.copytree(reference, seed_state, symlinks=True)
    full = _timed_run(reference)  # an uninterrupted run: the expected end state
    idle = _timed_run(reference)  # start-up and a look at the sessions: nothing to do

    killed = seed_state
    rng = random.Random(SEED)
    interrupted, progress = 0, []
    # Ten kills inside the batch at random steps spread over all of it (the last one once
    # every step is done: inside stamping or the rebuild), five at random times in between.
    targets = iter([*sorted(rng.sample(range(1, STEPS), 9)), STEPS])
    for i in range(KILLS):
        if i % 3 == 2:  # anywhere: start-up, planning, a step, stamping, the rebuild
            stopped = _kill_after(killed, rng.uniform(0.3 * idle, 1.1 * idle))
        else:
            target = max(next(targets), (_steps_done(killed) or 0) + 1)
            stopped = _kill_inside_step(killed, min(target, STEPS), rng.uniform(0, 0.03))
        interrupted += stopped
        _assert_whole(killed)
        progress.append(_steps_done(killed))
    final = run_lorebook("curate", "--json", cwd=killed)
    assert json.loads(final.stdout)["ok"] is True
    assert not (killed / JOURNAL).exists()

    # Numbers a reader can check: how many kills landed mid-run, how far each journal got.
    print(f"\nclean run {full:.2f} s, idle run {idle:.2f} s; {interrupted}/{KILLS} killed; "
          f"steps in the journal after each kill: {progress}")  # fmt: skip
    assert interrupted >= 10
    inside = [p for p in progress if p is not None and 0 < p <= STEPS]
    assert len(inside) >= 8, "too few kills landed inside the batch"

    skip = (".git/", ".lorebook/.cache/", ".lorebook/.state/", ".lorebook/_logs/")
    assert tree(killed, skip=skip) == tree(reference, skip=skip)
    notes = notes_of(killed)
    conflicts = list_conflicts(KBPaths(killed), include_decided=True).conflicts
    cited = [o for note in notes.values() for o in note.derived_from]
    cited += [c.conflict.proposal.origin for c in conflicts]
    assert sorted(cited) == sorted(origins)  # every proposal accounted for exactly once
    assert len(conflicts) == 16
    for log in sorted((killed / ".lorebook/_sessions").glob("*.json")):
        assert load_log(log).status == "curated"  # type: ignore[union-attr]
    assert list((killed / ".lorebook").rglob(".*.tmp")) == []
