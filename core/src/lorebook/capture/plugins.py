"""The ``capture`` pipeline hook, as capture calls it on each batch of new turns.

Hooks (and the detached capture they start) scan no entry point: the plugin manager holds
the built-in implementation and the modules ``config.yaml`` names in ``hook_plugins``
(:mod:`lorebook.hookplugins`), called with pluggy's semantics (wrappers, ``tryfirst``,
first result). Commands (``lorebook capture``, ``import``) register those modules beside
the entry-point plugins. A plugin that fails to import or raises is skipped with one line
in ``_logs/hook-errors.log``: it never breaks capture.
"""

from __future__ import annotations

import os
import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    import pluggy

    from lorebook.models.session import SessionLog


def _report(kb_root: str, problems: list[str]) -> None:
    from lorebook.appendlog import append

    stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    for message in problems:
        line = " ".join(message.split())[:500]
        append(os.path.join(kb_root, "_logs", "hook-errors.log"),
               f"{stamp} capture plugin {line}\n".encode())  # fmt: skip
    problems.clear()


def capture_hook(kb_root: str, entry_points: bool) -> Callable[[SessionLog], SessionLog] | None:
    """A function passing a log of new turns through the ``capture`` hook, or None.

    None when no plugin implements it (no entry points asked for, no configured module
    with a ``capture`` implementation): capture then never builds a pydantic model.
    """
    from lorebook import hookplugins
    from lorebook.hookconfig import load_hook_config

    problems: list[str] = []
    names = load_hook_config(kb_root).hook_plugins
    pm: pluggy.PluginManager | None
    if entry_points:
        from lorebook.plugins import get_plugins

        modules = hookplugins.load(names, problems)
        pm = hookplugins.manager(modules, problems, base=get_plugins().pm)
    else:
        pm = hookplugins.manager_for(names, problems)
    _report(kb_root, problems)
    if pm is None:
        return None
    if all(i.plugin_name in hookplugins.BUILTINS for i in pm.hook.capture.get_hookimpls()):
        return None

    def finish(log: SessionLog) -> SessionLog:
        from lorebook.models.session import SessionLog

        result = hookplugins.call(pm, "capture", problems, log=log)
        _report(kb_root, problems)  # fail open: the log as core redacted it is staged
        return result if isinstance(result, SessionLog) else log

    return finish
