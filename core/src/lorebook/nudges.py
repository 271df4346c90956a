"""Nudges for the person, said through the model at session start, and the lint tick.

Session start speaks to the model. Two things are for the person, and the model is asked to
tell them in one line, at most once an hour each (the time is recorded in
``.state/nudges.json`` only when a nudge is given):

* the captured sessions that wait for extraction or curation, once there are at least
  ``nudges.waiting_sessions`` of them (config.yaml; below it nothing is said), naming
  ``lorebook extract`` then ``lorebook curate`` (or ``lorebook curate`` alone);
* a failing lint found by the lint tick.

The lint tick rides the session-boundary hook (stop, session end): each new session adds
one to a counter in ``.state/lint-tick.json``, and every ``nudges.lint_every_sessions``-th
starts ``lorebook lint`` in a detached process, which records its result in
``.cache/lint-tick.json`` (and ``.cache/lint.json``, as ``lorebook lint`` does).

Counting the waiting sessions costs one directory listing while there are fewer staged
logs than the threshold, or while the hour since the last nudge is not over. Past both, the
status near the top of each log's header is read (2 KB of each), and the counts are cached
in ``.cache/waiting-sessions.json`` keyed by the folder's modification time (a log is
written by renaming a new header over it, which changes that time).

Standard library only: the hook's fast path imports it. Every write goes through
:func:`lorebook.safeopen.write_atomic` (atomic, no symbolic link followed), and every file
read here is opened without following a link.
"""

from __future__ import annotations

import json
import os
import sys
import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

NUDGE_EVERY_S = 3600
"""At most one nudge of each kind an hour."""
RECENT_SESSIONS = 32
"""Session ids the lint tick remembers, so a session's many stops count it once."""
HEAD_BYTES = 2048
"""A staged log's header carries its status among its first fields."""
SETTLED_NS = 2_000_000_000
"""A count of a folder changed this recently is not cached (a write may land in the same
tick of the clock)."""
MAX_STATE_BYTES = 64 * 1024
WAITING = ("pending", "extracted")

_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


def _path(kb_root: str, *names: str) -> str:
    return os.path.join(kb_root, *names)


def nudged_file(kb_root: str) -> str:
    """``.state/nudges.json``: when each nudge was last given (``{"sessions": t, "lint": t}``)."""
    return _path(kb_root, ".state", "nudges.json")


def tick_file(kb_root: str) -> str:
    """``.state/lint-tick.json``: the sessions counted and the last few counted."""
    return _path(kb_root, ".state", "lint-tick.json")


def result_file(kb_root: str) -> str:
    """``.cache/lint-tick.json``: what the last lint the tick started found."""
    return _path(kb_root, ".cache", "lint-tick.json")


def waiting_file(kb_root: str) -> str:
    """``.cache/waiting-sessions.json``: the waiting sessions counted, and when."""
    return _path(kb_root, ".cache", "waiting-sessions.json")


def _read(path: str, limit: int) -> bytes | None:
    """At most ``limit`` bytes of a regular file, never through a link (None: cannot)."""
    import stat

    try:
        fd = os.open(path, os.O_RDONLY | _NOFOLLOW | _NONBLOCK)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        return os.read(fd, limit)
    except OSError:
        return None
    finally:
        os.close(fd)


def read_json(path: str) -> dict[str, object]:
    """A small JSON object lorebook wrote; empty when missing, a link or malformed."""
    raw = _read(path, MAX_STATE_BYTES)
    try:
        data = json.loads(raw) if raw else None
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def _write(path: str, data: Mapping[str, object], *, sync: bool = True) -> None:
    from lorebook.safeopen import write_atomic

    write_atomic(path, (json.dumps(data, sort_keys=True) + "\n").encode(), sync=sync)


def _number(value: object) -> float:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0.0


def _count(value: object) -> int:
    return value if type(value) is int and value >= 0 else 0


# Waiting sessions -------------------------------------------------------------------


def _log_status(path: str) -> str | None:
    head = _read(path, HEAD_BYTES)
    if head is None:
        return None
    at = head.find(b'"status":')
    if at < 0:
        return None
    value = head[at + 9 :].lstrip()
    end = value.find(b'"', 1)
    return value[1:end].decode("ascii", "replace") if value[:1] == b'"' and end > 0 else None


def waiting_sessions(kb_root: str, threshold: int) -> dict[str, int]:
    """``{"pending": p, "extracted": e}``: staged sessions not curated yet.

    Nothing is read but the folder's listing while it holds fewer logs than ``threshold``
    (they cannot reach it): both counts are then 0.
    """
    folder = _path(kb_root, "_sessions")
    none = {"pending": 0, "extracted": 0}
    try:
        mtime = os.stat(folder).st_mtime_ns
        names = [n for n in os.listdir(folder) if n.endswith(".json") and n[:1] != "."]
    except OSError:
        return none
    if threshold <= 0 or len(names) < threshold:
        return none
    cached = read_json(waiting_file(kb_root))
    if cached.get("mtime_ns") == mtime and cached.get("logs") == len(names):
        return {status: _count(cached.get(status)) for status in WAITING}
    counts = dict(none)
    for name in names:
        status = _log_status(os.path.join(folder, name))
        if status in counts:
            counts[status] += 1
    if time.time_ns() - mtime > SETTLED_NS:
        cache = {**counts, "mtime_ns": mtime, "logs": len(names)}
        try:  # noqa: SIM105 (a cache: a failed write costs a recount; no contextlib here)
            _write(waiting_file(kb_root), cache, sync=False)
        except OSError:
            pass
    return counts


def sessions_message(counts: dict[str, int]) -> str:
    """What to tell the person about the waiting sessions (one sentence, the commands)."""
    waiting = counts["pending"] + counts["extracted"]
    noun = "session waits" if waiting == 1 else "sessions wait"
    run = "`lorebook extract`, then `lorebook curate`" if counts["pending"] else "`lorebook curate`"
    return f"{waiting} captured {noun} to become notes: run {run}"


# Lint -------------------------------------------------------------------------------


def failing_lint(kb_root: str) -> dict[str, object] | None:
    """The tick's last lint result when it found errors and no lint since was clean."""
    found = read_json(result_file(kb_root))
    if _count(found.get("errors")) == 0:
        return None
    latest = read_json(_path(kb_root, ".cache", "lint.json"))  # every lint writes it
    if "errors" in latest and _count(latest.get("errors")) == 0:
        return None  # a lint since (`lorebook lint`, `lorebook status`) found none
    return found


def lint_message(found: dict[str, object]) -> str:
    """What to tell the person about a failing lint."""
    errors = _count(found.get("errors"))
    noun = "error" if errors == 1 else "errors"
    return f"`lorebook lint` found {errors} {noun} in the knowledge base: run it to see them"


# Session start ----------------------------------------------------------------------


def session_start_nudge(
    kb_root: str, threshold: int, problems: list[str], now: float | None = None
) -> str:
    """The request to the model to tell the person something, in one line; or "".

    Each kind of nudge is given at most once an hour: its time is recorded before it is
    said, and when that cannot be written (a read-only knowledge base) nothing is said
    rather than the same line at every start.
    """
    now = time.time() if now is None else now
    last = read_json(nudged_file(kb_root))

    def due(kind: str) -> bool:
        return not 0 <= now - _number(last.get(kind)) < NUDGE_EVERY_S

    said: dict[str, str] = {}
    if threshold > 0 and due("sessions"):
        counts = waiting_sessions(kb_root, threshold)
        if counts["pending"] + counts["extracted"] >= threshold:
            said["sessions"] = sessions_message(counts)
    if due("lint"):
        found = failing_lint(kb_root)
        if found is not None:
            said["lint"] = lint_message(found)
    if not said:
        return ""
    try:
        _write(nudged_file(kb_root), {**last, **dict.fromkeys(said, now)})
    except OSError as exc:
        problems.append(f"nudge not given (its time cannot be recorded): {exc}")
        return ""
    return (
        "lorebook asks you to tell the person, in one line of your first reply, and then "
        f'to carry on: "{"; ".join(said.values())}."'
    )


# The lint tick ----------------------------------------------------------------------


def lint_argv(repo: str) -> list[str]:
    """The detached lint the tick starts (run as the launcher runs hooks: ``-I -S``)."""
    code = (
        f"import sys; sys.path[:0] = {[p for p in sys.path if p]!r}; "
        "from lorebook.nudges import lint_main; raise SystemExit(lint_main(sys.argv[1:]))"
    )
    return [sys.executable, "-I", "-S", "-c", code, repo]


def lint_tick(kb_root: str, repo: str, session_id: str, every: int) -> bool:
    """Count this session once; at every ``every``-th, start the lint detached.

    Returns True when a lint was started. A session's many stops count it once (the last
    :data:`RECENT_SESSIONS` counted are remembered).

    Raises:
        OSError: the counter could not be written (nothing is started then).
    """
    if every <= 0 or not session_id:
        return False
    state = read_json(tick_file(kb_root))
    listed = state.get("recent")
    recent = [s for s in listed if isinstance(s, str)] if isinstance(listed, list) else []
    if session_id in recent:
        return False
    count = _count(state.get("sessions")) + 1
    recent = [*recent, session_id][-RECENT_SESSIONS:]
    _write(tick_file(kb_root), {"sessions": count, "recent": recent}, sync=False)
    if count % every:
        return False
    from lorebook import detached

    detached.start(lint_argv(repo), repo)
    return True


def run_lint(repo: str, now: float | None = None) -> dict[str, object]:
    """Lint the knowledge base of ``repo`` and record the result; return it."""
    from lorebook.config import load_config
    from lorebook.kb.lint import lint, remember_lint
    from lorebook.kb.paths import KBPaths

    paths = KBPaths.for_repo(repo)
    config = load_config(paths)
    report = lint(paths, config.budgets.entry_chars)
    remember_lint(paths, report)
    first = report.errors[0].message.splitlines()[0][:300] if report.errors else ""
    result: dict[str, object] = {
        "at": time.time() if now is None else now,
        "errors": len(report.errors),
        "warnings": len(report.warnings),
        "nodes_hash": report.nodes_hash,
        "first_error": first,
    }
    _write(result_file(str(paths.root)), result)
    return result


def lint_main(argv: list[str]) -> int:
    """The detached lint's entry: ``REPO``. Always 0 (a failure is one line in the error log)."""
    repo = argv[0] if argv else os.getcwd()
    try:
        if len(argv) != 1:
            raise ValueError(f"expected the repository, got {argv!r}")
        run_lint(repo)
    except BaseException as exc:
        from lorebook.appendlog import log_failure

        log_failure(os.path.join(repo, ".lorebook"), "lint-tick", "lint",
                    f"{type(exc).__name__}: {exc}")  # fmt: skip
    return 0
