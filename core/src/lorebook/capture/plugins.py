"""The ``capture`` pipeline hook, as capture calls it on each batch of new turns.

Hooks (and the detached capture they start) build no plugin manager: only the modules
``config.yaml`` names in ``hook_plugins`` are imported, and their ``capture(log)`` is called
as pluggy would call it (first result: the first module returning a log decides). Commands
(``lorebook capture``, ``import``) also run the entry-point plugins' ``capture`` hook first.
A plugin that fails to import or raises is skipped with one line in
``_logs/hook-errors.log``: it never breaks capture.
"""

from __future__ import annotations

import os
import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from lorebook.models.session import SessionLog


def _report(kb_root: str, message: str) -> None:
    from lorebook.appendlog import append

    stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    line = " ".join(message.split())[:500]
    append(os.path.join(kb_root, "_logs", "hook-errors.log"),
           f"{stamp} capture plugin {line}\n".encode())  # fmt: skip


def capture_hook(kb_root: str, entry_points: bool) -> Callable[[SessionLog], SessionLog] | None:
    """A function passing a log of new turns through every ``capture`` hook, or None.

    None when there is none to call (no entry points asked for, no configured module with
    a ``capture`` function): capture then never builds a pydantic model.
    """
    from lorebook.hookconfig import load_hook_config
    from lorebook.recall.pipeline import _call, hook_plugins

    problems: list[str] = []
    names = load_hook_config(kb_root).hook_plugins
    modules = [m for m in hook_plugins(names, problems) if callable(getattr(m, "capture", None))]
    for problem in problems:
        _report(kb_root, problem)
    if not modules and not entry_points:
        return None

    def finish(log: SessionLog) -> SessionLog:
        from lorebook.models.session import SessionLog

        if entry_points:
            from lorebook.plugins import get_plugins

            result = get_plugins().hook.capture(log=log)
            log = result if isinstance(result, SessionLog) else log
        for module in modules:
            try:
                result = _call(module.capture, log=log)
            except Exception as exc:  # fail open: the log as core redacted it is staged
                _report(kb_root, f"{module.__name__}: capture raised {exc!r}; skipped")
                continue
            if isinstance(result, SessionLog):
                return result
        return log

    return finish
