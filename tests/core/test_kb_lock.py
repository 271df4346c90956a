"""The knowledge base lock: exclusive across processes, released on exit, gone with its holder."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from lorebook.errors import LorebookError
from lorebook.kb.fsutil import kb_lock

HOLD = """
import sys, time
from pathlib import Path
from lorebook.kb.fsutil import kb_lock
with kb_lock(Path(sys.argv[1])):
    print("held", flush=True)
    time.sleep(float(sys.argv[2]))
"""


def _holder(lock: Path, seconds: float) -> subprocess.Popen[str]:
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(lock), str(seconds)], stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None
    assert proc.stdout.readline() == "held\n"
    proc.stdout.close()
    return proc


def test_a_held_lock_times_out_with_one_line_naming_it(tmp_path: Path) -> None:
    lock = tmp_path / ".state" / "kb.lock"
    holder = _holder(lock, 30)
    try:
        started = time.monotonic()
        with pytest.raises(LorebookError) as caught, kb_lock(lock, timeout=0.3):
            pass
        assert 0.3 <= time.monotonic() - started < 5
        assert str(caught.value).splitlines()[0] == (
            f"another lorebook process has held {lock} for 0 s"
        )
    finally:
        holder.kill()
        holder.wait()


def test_the_lock_is_free_once_its_holder_ends_or_is_killed(tmp_path: Path) -> None:
    lock = tmp_path / "kb.lock"
    holder = _holder(lock, 2.0)
    started = time.monotonic()
    with kb_lock(lock, timeout=10):  # waits for the holder to let go
        assert time.monotonic() - started >= 0.5
    holder.wait()
    killed = _holder(lock, 60)
    killed.kill()
    killed.wait()
    started = time.monotonic()
    with kb_lock(lock, timeout=10):
        assert time.monotonic() - started < 2  # a killed holder's lock goes with it
    with kb_lock(lock, timeout=0.1):  # and released after each block
        pass


@pytest.mark.skipif(os.name != "posix", reason="symlinks")
def test_a_link_in_the_lock_files_place_is_refused_in_one_line(tmp_path: Path) -> None:
    lock = tmp_path / "kb.lock"
    lock.symlink_to(tmp_path / "elsewhere")
    with pytest.raises(LorebookError) as caught, kb_lock(lock, timeout=0.1):
        pass
    assert str(lock) in str(caught.value) or "kb.lock" in str(caught.value)
    assert not (tmp_path / "elsewhere").exists()
