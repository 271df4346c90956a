"""The hook fast path: what makes a hook cost little more than a Python that does nothing.

Every mechanism lives here, and docs/fastpath.md says what each saves (measured with
``benchmarks/hook_latency.py``) and how to turn the warm process off:

- :mod:`~lorebook.fastpath.launcher`: the per-machine ``.lorebook/bin/hook`` (``python -I
  -S``, exact ``sys.path``, the cyclic garbage collector off for the event);
- :mod:`~lorebook.fastpath.finder`: lorebook's modules found and loaded without importlib's
  search;
- :mod:`~lorebook.fastpath.client`: the launcher's side of the warm hook process (offer the
  event, pass the payload, print the answer);
- :mod:`~lorebook.fastpath.server` and :mod:`~lorebook.fastpath.child`: the warm hook
  process, a forked child per event, a spare ready ahead of it;
- :mod:`~lorebook.fastpath.rehearse`: what a spare runs before its event;
- :mod:`~lorebook.fastpath.status`: whether the warm process runs, as ``lorebook doctor``
  says it.

Outside this package the hook entry (:func:`lorebook.hook.run`) knows nothing of the warm
process: the launcher passes it :func:`after_event`, the one call that starts the process
for the next event. This module imports nothing: the launcher imports it on every event.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from lorebook.events import HookEvent
    from lorebook.inject.stages import Context


def after_event(launcher: str) -> Callable[[Context, HookEvent], None]:
    """What :func:`lorebook.hook.run` calls once it answered an event in its own process.

    It starts the repository's warm hook process from ``launcher`` (the launcher's file),
    for the next event, where the settings allow one: not after a capture event, not with
    ``budgets.hook_server_minutes: 0`` or ``LOREBOOK_HOOK_SERVER=0``, not where the platform
    cannot serve. A failure to start is one line in the hook's error log.
    """

    def start(ctx: Context, event: HookEvent) -> None:
        from lorebook.events import CAPTURE_EVENTS
        from lorebook.fastpath.client import enabled

        if event.name in CAPTURE_EVENTS or ctx.config.hook_server_minutes <= 0 or not enabled():
            return
        try:
            from lorebook.fastpath.server import start_server

            start_server(ctx.kb_root, launcher)
        except Exception as exc:
            from lorebook.appendlog import log_failure

            log_failure(
                ctx.kb_root,
                event.harness,
                event.host_event,
                f"starting the warm hook process: {exc}",
            )

    return start
