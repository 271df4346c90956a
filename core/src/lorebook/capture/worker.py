"""The detached capture process a capture hook starts (see :mod:`lorebook.capture.hook`).

``capture REPO HARNESS SESSION TRANSCRIPT READER`` stages the session as the inline path
would (redacted before anything is written, the modules ``hook_plugins`` names as capture
plugins), then starts ``follow`` for it. ``follow REPO LOG`` updates the session's usage
counts and resume summary from the records staged since its last run
(:mod:`lorebook.stats.tally`; this one imports pydantic).

Failures go to ``_logs/hook-errors.log`` as one line; the exit code is 0 either way, as
for every hook.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from lorebook.capture.stage import TranscriptReader


TRANSCRIPT_WAIT_S = 15.0
"""How long the detached capture waits for a transcript the host has not written yet."""


def _wait_for(reader: TranscriptReader, ref: str) -> None:
    """Return once ``ref`` can be read (a host may write it after its last hook ran)."""
    import time

    deadline = time.monotonic() + TRANSCRIPT_WAIT_S
    while True:
        try:
            reader.transcript_end(ref)
            return
        except FileNotFoundError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)


def _capture(repo: str, harness: str, session_id: str, ref: str, reader: str) -> None:
    from lorebook.capture.hook import spawn_capture, transcript_reader, worker_argv
    from lorebook.capture.stage import capture_session, follow_behind
    from lorebook.kb.paths import KBPaths

    paths = KBPaths.for_repo(repo)
    found = transcript_reader(harness, reader)
    _wait_for(found, ref)
    result = capture_session(paths, found, harness, session_id,
                             ref, entry_points=False, follow=False)  # fmt: skip
    if result.changed or follow_behind(paths, result.path):  # a killed follow-up: again
        spawn_capture(worker_argv("follow", repo, str(result.path)), repo)


def _follow(repo: str, log: str) -> None:
    from pathlib import Path

    from lorebook.capture.stage import follow_up, lock_path
    from lorebook.kb.fsutil import kb_lock
    from lorebook.kb.paths import KBPaths

    paths = KBPaths.for_repo(repo)
    target = Path(log)
    # One follow-up of a session at a time; each reads the log as it is when it runs.
    with kb_lock(lock_path(paths, target.stem + ".follow"), timeout=120):
        follow_up(paths, target)


def main(argv: list[str]) -> int:
    """Run one detached job; always 0 (a failure is one line in the hook error log)."""
    repo = argv[1] if len(argv) > 1 else os.getcwd()
    try:
        if argv[:1] == ["capture"] and len(argv) == 6:
            _capture(*argv[1:])
        elif argv[:1] == ["follow"] and len(argv) == 3:
            _follow(*argv[1:])
        else:
            raise ValueError(f"expected capture or follow with their arguments, got {argv!r}")
    except BaseException as exc:
        from lorebook.appendlog import log_failure

        kb_root = os.path.join(repo, ".lorebook")
        log_failure(kb_root, "capture", argv[0] if argv else "?", f"{type(exc).__name__}: {exc}")
    return 0
