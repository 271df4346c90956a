"""The hook fast path: what a host runs, through ``.lorebook/bin/hook``, for every event.

The launcher (written per machine by ``lorebook init``) starts the interpreter with
``-I -S`` and calls :func:`run` with the repository and the event translator module of each
wired harness, so no entry point is scanned and no plugin manager is built. This module
imports only the standard library and light lorebook modules.

Whatever happens, :func:`run` returns 0: an error, a bad payload or a blown budget means
"inject nothing" and one line in ``.lorebook/_logs/hook-errors.log``, never a broken
session. A session with ``LOREBOOK_INTERNAL=1`` (lorebook's own headless runs) is left
alone.
"""

from __future__ import annotations

import json
import os
import sys
import time

from lorebook.appendlog import ERROR_LOG, log_failure

__all__ = ["ERROR_LOG", "answer_event", "for_model", "log_failure", "run"]

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

    from lorebook.events import HookAnswer, HookEvent
    from lorebook.hookconfig import HookConfig
    from lorebook.inject.stages import Context


def _budget_ms(name: str, ctx_config: object) -> int:
    key = {
        "session_start": "session_start_ms",
        "prompt": "prompt_ms",
        "stop": "capture_ms",
        "session_end": "capture_ms",
        "pre_compact": "capture_ms",
    }.get(name, "tool_ms")
    return int(getattr(ctx_config, key))


def _recompiled(repo: str, kb_root: str, config: HookConfig, problems: list[str]) -> HookConfig:
    """``config``, or the settings of a ``config.yaml`` edited since it was compiled.

    An edit during a session (``recall.unreviewed: none``, say) applies from the next
    event, not only from the next session start: the compiled copy is refreshed here once
    (about 0.1 s). An edit that does not validate is logged, and the settings compiled
    before stay.
    """
    try:
        stale = os.path.getmtime(os.path.join(kb_root, "config.yaml")) > os.path.getmtime(
            os.path.join(kb_root, ".cache", "config.json")
        )
    except OSError:
        return config
    if not stale:
        return config
    from lorebook.config import load_config
    from lorebook.errors import LorebookError
    from lorebook.hookconfig import load_hook_config
    from lorebook.kb.paths import KBPaths

    try:
        load_config(KBPaths.for_repo(repo))
    except LorebookError as exc:
        problems.append(
            f"config.yaml is invalid, the settings compiled before apply: {exc.message}"
        )
        return config
    return load_hook_config(kb_root)


def answer_event(event: HookEvent, ctx: Context, translator: str = "") -> HookAnswer:
    """Dispatch one normalised event to its stage (``translator``: the harness's module)."""
    from lorebook.events import CAPTURE_EVENTS, HookAnswer
    from lorebook.inject import stages

    if event.name not in CAPTURE_EVENTS:
        from lorebook.kb.version import version_problem

        problem = version_problem(ctx.kb_root)
        if problem is not None:  # inject nothing; run() logs the one line
            raise ValueError(problem)
    if event.name == "prompt":
        return stages.prompt_answer(event, ctx)
    if event.name == "pre_tool":
        return stages.tool_answer(event, ctx)
    if event.name == "post_tool":
        return stages.error_answer(event, ctx)
    if event.name == "session_start":
        from lorebook.inject.session import session_start_answer

        return session_start_answer(event, ctx)
    if event.name in CAPTURE_EVENTS:
        import gc

        gc.enable()  # the launcher turns it off for the fast path; a transcript may be large
        from lorebook.capture.hook import capture_event

        try:
            capture_event(event, ctx, translator)
        finally:
            _lint_tick(event, ctx)
    return HookAnswer()


def _lint_tick(event: HookEvent, ctx: Context) -> None:
    """Count a session at its boundary (stop, session end); every N-th, lint detached."""
    if event.name not in ("stop", "session_end"):
        return
    from lorebook.nudges import lint_tick

    try:
        lint_tick(ctx.kb_root, ctx.repo, event.session_id, ctx.config.lint_every_sessions)
    except Exception as exc:  # the tick never breaks a capture
        ctx.problems.append(f"lint tick: {type(exc).__name__}: {exc}")


def for_model(answer: HookAnswer) -> HookAnswer:
    """The answer as the host gets it: its context and reason sanitised.

    Whatever composed the text (a stage's render, a refuted note's warning, a plugin's
    ``inject``), nothing the model reads carries host markup, invisible or bidirectional
    characters, or a control character (:func:`lorebook.inject.sanitize.sanitize`). The
    MCP server and ``lorebook recall`` serve the same text through the same function.
    """
    if not answer.context and not answer.reason:
        return answer  # nothing to show: the sanitiser is not even imported
    from lorebook.events import HookAnswer
    from lorebook.inject.sanitize import sanitize

    context = sanitize(answer.context) if answer.context else answer.context
    reason = sanitize(answer.reason) if answer.reason else answer.reason
    return HookAnswer(context=context, decision=answer.decision, reason=reason)


def _once(kb_root: str, event: HookEvent, answer: HookAnswer, translator: object) -> HookAnswer:
    """The answer without its context when this session was already given that context.

    For hosts that re-fire an event within one session (the translator module lists the
    event in ``ANSWER_ONCE``); see :mod:`lorebook.hostkit.once`. After a compaction or a
    clear it is given again (the history no longer holds it), and on a resume when the
    translator says its host replays the history without it (``ANSWER_AGAIN_ON_RESUME``:
    ``copilot --continue``; Codex keeps it in the history it resumes).
    """
    from lorebook.events import HookAnswer
    from lorebook.hostkit.once import first_time

    given = first_time(kb_root, event.session_id, event.name, answer.context or "")
    again = event.source in ("compact", "clear") or (
        event.source == "resume" and getattr(translator, "ANSWER_AGAIN_ON_RESUME", False)
    )
    if given or again:  # the history the model gets lacks the first answer
        return answer
    return HookAnswer(decision=answer.decision, reason=answer.reason)


def _read_payload(deadline: float) -> dict[str, object]:
    from lorebook.hookinput import MAX_PAYLOAD, read_stdin

    raw = read_stdin(sys.stdin.buffer, deadline)
    if len(raw) > MAX_PAYLOAD:
        raise ValueError(f"the payload is larger than {MAX_PAYLOAD >> 20} MiB")
    if not raw.strip():
        raise ValueError("empty stdin: the host sent no payload")
    try:
        payload = json.loads(raw)
    except ValueError as exc:
        raise ValueError(f"the payload is not JSON: {exc}") from None
    if not isinstance(payload, dict):
        raise ValueError(f"the payload is a JSON {type(payload).__name__}, not an object")
    return payload


def run(
    argv: list[str],
    *,
    repo: str,
    event_modules: Mapping[str, str],
    after: Callable[[Context, HookEvent], None] | None = None,
    started: float | None = None,
    warm: bool = False,
) -> int:
    """Answer one host event. Always returns 0.

    Args:
        argv: ``[harness, host_event]`` as the committed host config passes them.
        repo: The repository root (the launcher's own location).
        event_modules: harness name -> module with ``parse_event`` and ``render``.
        after: Called with the context and the event once the event is answered (and its
            timing recorded), when one was parsed: the launcher passes
            :func:`lorebook.fastpath.after_event`, which starts the warm hook process.
        started: When the event's launcher started (``time.monotonic()``): the budget
            and the timing log count from it; default now.
        warm: True in the warm server's child that answers for the launcher (the timing
            log says so).
    """
    if started is None:
        started = time.monotonic()
    kb_root = os.path.join(repo, ".lorebook")
    harness, host_event = [*argv, "?", "?"][:2]
    if os.environ.get("LOREBOOK_INTERNAL") == "1":
        return 0
    from lorebook.hookconfig import load_hook_config
    from lorebook.hookinput import check_event
    from lorebook.inject.stages import Context, Deadline

    ctx: Context | None = None
    event: HookEvent | None = None
    answer: HookAnswer | None = None
    try:
        if len(argv) != 2:
            raise ValueError(f"expected arguments <harness> <event>, got {argv!r}")
        module_name = event_modules.get(harness)
        if module_name is None:
            raise ValueError(
                f"harness {harness!r} is not wired on this machine: run `lorebook init`"
            )
        __import__(module_name)  # not importlib: it costs the hook path its import
        translator = sys.modules[module_name]
        config = load_hook_config(kb_root)
        # stdin is read before the event is known: the longest fast-path budget bounds it.
        wait = max(config.session_start_ms, config.prompt_ms, config.tool_ms) / 1000
        parsed = translator.parse_event(host_event, _read_payload(started + wait))
        check_event(parsed)  # before anything (the timing log too) records its fields
        event = parsed
        problems: list[str] = []
        if event.name != "session_start":  # session start compiles it with the stores
            config = _recompiled(repo, kb_root, config, problems)
        deadline = Deadline(started, _budget_ms(event.name, config))
        ctx = Context(repo, config, deadline, host=translator)
        ctx.problems += problems
        at_once = getattr(translator, "answer_at_once", None)
        answer = at_once(event, kb_root) if at_once is not None else None
        if answer is None:
            answer = answer_event(event, ctx, module_name)
        answer = for_model(answer)
        if answer.context and event.name in getattr(translator, "ANSWER_ONCE", ()):
            answer = _once(kb_root, event, answer, translator)
        output = translator.render(event, answer)
        ctx.deadline.check("rendering the answer")
        if output.stdout:
            sys.stdout.buffer.write(output.stdout)
            sys.stdout.flush()
    except BaseException as exc:
        log_failure(kb_root, harness, host_event, f"{type(exc).__name__}: {exc}")
    finally:
        for problem in ctx.problems if ctx is not None else ():
            log_failure(kb_root, harness, host_event, problem)
        from lorebook.stats.timing import record_timing

        chars = len((answer.context or answer.reason or "") if answer is not None else "")
        record_timing(kb_root, harness, host_event, event, started, chars, warm=warm)
    if after is not None and ctx is not None and event is not None:
        try:
            after(ctx, event)
        except Exception as exc:  # never breaks the session
            log_failure(kb_root, harness, host_event, f"after the event: {exc!r}")
    return 0
