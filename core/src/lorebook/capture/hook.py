"""Capture from a hook: at stop, session end and pre-compact, stage what is new.

This runs inside the hook process and stays on the standard library and light lorebook
modules: the transcript is read by the harness's own transcript module (found beside the
event translator the launcher names, so no entry point is scanned and no plugin manager is
built), new turns are redacted and appended (:mod:`lorebook.capture.stage`), and capture
plugins are the modules ``hook_plugins`` names. Small increments are captured inline; a
large one, or anything at session end (whose host timeout is short), is handed to a
detached process (:mod:`lorebook.capture.worker`), which redacts before it writes, like the
inline path. Updating the session's usage counts and resume summary imports pydantic and
the note index, so it too runs detached, after anything was staged.
"""

from __future__ import annotations

import importlib
import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from lorebook.capture.stage import TranscriptReader
    from lorebook.events import HookEvent
    from lorebook.inject.stages import Context

INLINE_LIMIT = 2 * 1024 * 1024
"""New transcript bytes captured inline; more goes to a detached process."""


def worker_argv(*args: str) -> list[str]:
    """The command of a detached capture process (``lorebook.capture.worker``).

    Run as the launcher runs hooks (``-I -S``, this process's ``sys.path``), so it starts as
    fast and imports what the hook would.
    """
    code = (
        f"import sys; sys.path[:0] = {[p for p in sys.path if p]!r}; "
        "from lorebook.capture.worker import main; raise SystemExit(main(sys.argv[1:]))"
    )
    return [sys.executable, "-I", "-S", "-c", code, *args]


def capture_argv(repo: str, harness: str, session_id: str, ref: str, reader: str = "") -> list[str]:
    """The detached capture of one session's transcript (then its follow-up)."""
    return worker_argv("capture", repo, harness, session_id, ref, reader)


def spawn_capture(argv: list[str], repo: str) -> None:
    """Start ``argv`` detached from the hook (it outlives the host's timeout)."""
    from lorebook import detached

    detached.start(argv, repo)


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


def transcript_module(translator: str) -> str:
    """The transcript module beside an event translator (``pkg.events`` -> ``pkg.transcript``)."""
    package = translator.rpartition(".")[0]
    return f"{package}.transcript" if package else ""


def transcript_reader(harness: str, reader: str) -> TranscriptReader:
    """The harness's transcript reader: the module ``reader`` names, else its plugin's.

    A plugin without a separate transcript module is reached through the plugin manager
    (pluggy and an entry-point scan: slower, still correct).
    """
    if reader:
        try:
            module = importlib.import_module(reader)
        except ImportError:
            module = None
        if callable(getattr(module, "read_transcript", None)) and callable(
            getattr(module, "transcript_end", None)
        ):
            return module  # type: ignore[return-value]
    from lorebook.plugins import get_plugins

    found: TranscriptReader = get_plugins().harness(harness).factory()
    return found


def capture_event(event: HookEvent, ctx: Context, translator: str = "") -> None:
    """Stage the session of a capture event (inline or detached).

    ``translator`` is the event translator module the launcher named for the harness.
    """
    if not event.transcript_ref:
        raise ValueError(f"{event.host_event} payload names no transcript; nothing to capture")
    refuse_special_file(event.transcript_ref)
    from lorebook.capture.retention import prune_if_due
    from lorebook.capture.stage import capture_session, pending_bytes
    from lorebook.kb.paths import KBPaths

    module = transcript_module(translator)
    reader = transcript_reader(event.harness, module)
    paths = KBPaths.for_repo(ctx.repo)
    ref = event.transcript_ref
    try:
        todo = pending_bytes(reader, paths, event.harness, event.session_id, ref)
    except FileNotFoundError:
        # Not written yet: Copilot CLI writes its event log after its hooks ran. The
        # detached capture at session end waits for it; a stop leaves it to session end.
        todo = INLINE_LIMIT + 1 if event.name == "session_end" else 0
    if todo:
        if todo > INLINE_LIMIT or event.name == "session_end":
            argv = capture_argv(ctx.repo, event.harness, event.session_id, ref, module)
            spawn_capture(argv, ctx.repo)
        else:
            result = capture_session(paths, reader, event.harness, event.session_id, ref,
                                     entry_points=False, follow=False)  # fmt: skip
            if result.changed:
                spawn_capture(worker_argv("follow", ctx.repo, str(result.path)), ctx.repo)
    ctx.deadline.check("capturing the session")
    prune_if_due(paths)
