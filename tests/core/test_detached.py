"""Commands started and not waited for: collected once finished, without a warning."""

from __future__ import annotations

import gc
import os
import sys
import warnings
from pathlib import Path

import pytest

from lorebook import detached


@pytest.mark.skipif(not hasattr(os, "waitid"), reason="os.waitid is POSIX only")
def test_a_finished_child_is_collected_when_the_next_starts(tmp_path: Path) -> None:
    detached.start([sys.executable, "-c", "pass"], str(tmp_path))
    first = detached._RUNNING[-1]
    os.waitid(os.P_PID, first.pid, os.WEXITED | os.WNOWAIT)  # exited; status not read
    assert first.returncode is None
    detached.start([sys.executable, "-c", "import time; time.sleep(0.2)"], str(tmp_path))
    assert first not in detached._RUNNING
    assert first.returncode == 0
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        del first
        gc.collect()
    assert not [w for w in caught if issubclass(w.category, ResourceWarning)]


def test_a_command_that_cannot_start_raises_oserror(tmp_path: Path) -> None:
    before = len(detached._RUNNING)
    with pytest.raises(OSError, match="no-such-command"):
        detached.start([str(tmp_path / "no-such-command")], str(tmp_path))
    assert len(detached._RUNNING) <= before
