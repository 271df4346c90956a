"""Capture from a hook: at stop, session end and pre-compact, stage what is new.

This runs inside the hook process (the slow path: it may import pydantic and the plugin
manager). Small increments are captured inline; a large one, or anything at session end
(whose host timeout is short), is handed to a detached ``lorebook capture`` process, which
redacts before it writes, like the inline path.
"""

from __future__ import annotations

import os
import subprocess
import sys

from lorebook.events import HookEvent
from lorebook.inject.stages import Context

INLINE_LIMIT = 2 * 1024 * 1024
"""New transcript bytes captured inline; more goes to a detached process."""


def spawn_capture(repo: str, harness: str, session_id: str, ref: str) -> None:
    """Start ``lorebook capture`` detached from the hook (it outlives the host's timeout)."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    argv = [sys.executable, "-m", "lorebook", "-C", repo, "capture",
            "--harness", harness, "--session", session_id, "--transcript", ref]  # fmt: skip
    subprocess.Popen(
        argv,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
        env=env,
        cwd=repo,
    )


def refuse_special_file(ref: str) -> None:
    """Refuse a transcript that is a FIFO, a device or a folder (reading it could hang).

    A ref that names no file as it is (OpenCode's ``<db>#<session>``) is checked by its
    file part; one that names nothing is left to the harness to report.

    Raises:
        ValueError: the transcript exists and is not a regular file.
    """
    import stat

    for candidate in (ref, ref.split("#", 1)[0]):
        try:
            mode = os.stat(candidate).st_mode
        except (OSError, ValueError):
            continue
        if not stat.S_ISREG(mode):
            raise ValueError(f"the transcript {candidate[:200]} is not a regular file")
        return


def capture_event(event: HookEvent, ctx: Context) -> None:
    """Stage the session of a capture event (inline or detached)."""
    if not event.transcript_ref:
        raise ValueError(f"{event.host_event} payload names no transcript; nothing to capture")
    refuse_special_file(event.transcript_ref)
    from lorebook.capture.retention import prune_if_due
    from lorebook.capture.stage import capture_session, pending_bytes
    from lorebook.kb.paths import KBPaths
    from lorebook.plugins import get_plugins

    spec = get_plugins().harness(event.harness)
    if spec.factory is None:
        raise ValueError(f"harness {event.harness!r} cannot read transcripts in this version")
    harness = spec.factory()
    paths = KBPaths.for_repo(ctx.repo)
    todo = pending_bytes(harness, paths, event.harness, event.session_id, event.transcript_ref)
    if todo:
        if todo > INLINE_LIMIT or event.name == "session_end":
            spawn_capture(ctx.repo, event.harness, event.session_id, event.transcript_ref)
        else:
            capture_session(paths, harness, event.harness, event.session_id, event.transcript_ref)
    ctx.deadline.check("capturing the session")
    prune_if_due(paths)
