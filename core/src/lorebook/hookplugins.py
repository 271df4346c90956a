"""The plugins ``config.yaml`` names in ``hook_plugins``, called through pluggy.

One plugin mechanism for the hooks and the commands: the modules ``hook_plugins`` names are
registered in a pluggy plugin manager with lorebook's specs, so ``capture``, ``recall`` and
``inject`` run with pluggy's semantics everywhere (wrappers, ``tryfirst``/``trylast``,
first result, the arguments an implementation names). On the hook path the manager holds
only those modules and the built-in implementations (no entry point is scanned); commands
register the same modules beside the entry-point plugins (:func:`manager` with ``base``).

A function of such a module named like a pipeline hook is an implementation even when it
is not marked with ``@hookimpl`` (the plain functions :doc:`hooks` shows); mark it to give
options (``@hookimpl(wrapper=True)``, ``tryfirst=True``).

Nothing here imports pluggy until a module is named: a hook with no ``hook_plugins`` pays
nothing. A module that fails to import or register, or an implementation that raises, is
skipped with one line in the hook's problems: a plugin never breaks the session.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Mapping
    from types import ModuleType, TracebackType
    from typing import Any

    import pluggy

LENIENT_HOOKS = frozenset({"capture", "recall", "inject"})
"""Hooks a configured module implements by a plain function of the hook's name."""

BUILTINS = ("lorebook.builtin.capture", "lorebook.builtin.inject")
"""The built-in (``trylast``) implementations a hook-path manager starts with."""


def load(names: Iterable[str], problems: list[str]) -> list[ModuleType]:
    """Import the modules ``hook_plugins`` names; one that fails is reported and skipped."""
    modules = []
    for name in (n for n in names if n):
        try:
            __import__(name)  # not importlib: it costs the hook path its import
            modules.append(sys.modules[name])
        except Exception as exc:  # fail open: a broken plugin never breaks the session
            problems.append(f"plugin {name} failed to import and is skipped: {exc!r}")
    return modules


def new_manager() -> pluggy.PluginManager:
    """A plugin manager with every lorebook spec, which takes configured modules as plugins.

    A plugin registered through :func:`manager` may leave its pipeline functions unmarked;
    every other plugin (entry points, built-ins) marks them with ``@hookimpl``.
    """
    import pluggy

    from lorebook import hookspecs
    from lorebook.constants import PROJECT_NAME

    class Manager(pluggy.PluginManager):
        def __init__(self, project_name: str) -> None:
            super().__init__(project_name)
            self.lenient: set[int] = set()
            """Ids of the configured modules being registered (their functions need no mark)."""

        def parse_hookimpl_opts(self, plugin: object, name: str) -> pluggy.HookimplOpts | None:
            opts = super().parse_hookimpl_opts(plugin, name)
            if opts is not None or id(plugin) not in self.lenient or name not in LENIENT_HOOKS:
                return opts
            if not callable(getattr(plugin, name, None)):
                return None
            return {
                "wrapper": False,
                "hookwrapper": False,
                "optionalhook": False,
                "tryfirst": False,
                "trylast": False,
                "specname": None,
            }

    pm = Manager(PROJECT_NAME)
    pm.add_hookspecs(hookspecs)
    return pm


def register(pm: pluggy.PluginManager, modules: Iterable[object], problems: list[str]) -> None:
    """Register ``modules`` (configured plugins) in ``pm``; one that fails is skipped."""
    lenient: set[int] = getattr(pm, "lenient", set())
    for module in modules:
        name = getattr(module, "__name__", repr(module))
        if pm.is_registered(module):
            continue  # also an entry-point plugin: registered once
        lenient.add(id(module))
        try:
            pm.register(module, name=name)
        except Exception as exc:  # fail open: a plugin pluggy refuses is skipped
            problems.append(f"plugin {name} is skipped: {exc}")
        finally:
            lenient.discard(id(module))


def manager(
    modules: Iterable[object], problems: list[str], base: pluggy.PluginManager | None = None
) -> pluggy.PluginManager:
    """``base`` (default: a new manager with the built-ins) with ``modules`` registered.

    Example:
        >>> import types
        >>> from lorebook.events import Hit, RecallQuery
        >>> plugin = types.ModuleType("myplugin")
        >>> plugin.recall = lambda query: [Hit("practice-x", 1.0, "markdown")]
        >>> pm = manager([plugin], [])
        >>> [h.note_id for hits in pm.hook.recall(query=RecallQuery(text="uv")) for h in hits]
        ['practice-x']
    """
    if base is None:
        base = new_manager()
        for name in BUILTINS:
            __import__(name)
            base.register(sys.modules[name], name=name)
    register(base, modules, problems)
    return base


def call_named(func: Callable[..., Any], offered: Mapping[str, Any]) -> Any:
    """Call ``func`` with those of ``offered`` it names, by keyword, as pluggy calls a hook.

    All of them when it takes ``**kwargs``; none when its signature cannot be read. The one
    place core passes a function only the arguments it names (provider factories: a
    curator's or an extractor's gets ``config``, ``paths``, ``plugins`` as it names them).

    Example:
        >>> call_named(lambda paths: paths, {"config": 1, "paths": 2})
        2
    """
    import inspect

    try:
        params = list(inspect.signature(func).parameters.values())
    except (TypeError, ValueError):  # no signature to read: pass nothing
        params = []
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params):
        return func(**offered)
    return func(**{p.name: offered[p.name] for p in params if p.name in offered})


def manager_for(names: Iterable[str], problems: list[str]) -> pluggy.PluginManager | None:
    """The hook path's manager: the built-ins and the modules ``names`` lists (None: none)."""
    names = [n for n in names if n]
    return manager(load(names, problems), problems) if names else None


def _culprit(pm: pluggy.PluginManager, tb: TracebackType | None) -> object | None:
    """The plugin whose implementation the failing call was running (outermost frame)."""
    codes: dict[object, object] = {}
    for plugin in pm.get_plugins():
        for caller in pm.get_hookcallers(plugin) or []:
            for impl in caller.get_hookimpls():
                if impl.plugin is plugin:
                    codes[getattr(impl.function, "__code__", None)] = plugin
    while tb is not None:
        plugin = codes.get(tb.tb_frame.f_code)
        if plugin is not None:
            return plugin
        tb = tb.tb_next
    return None


def call(pm: pluggy.PluginManager, hook: str, problems: list[str], **kwargs: Any) -> Any:
    """``pm.hook.<hook>(**kwargs)``, fail-open: a plugin that raises is dropped, and the rest run.

    The plugin is unregistered (for this manager's life) and the call made again without
    it; an error no plugin can be blamed for gives None. Either way one line goes to
    ``problems``.
    """
    caller = getattr(pm.hook, hook)
    for _ in range(len(pm.get_plugins()) + 1):
        try:
            return caller(**kwargs)
        except Exception as exc:  # fail open: a plugin never breaks the session
            plugin = _culprit(pm, exc.__traceback__)
            if plugin is None or pm.get_name(plugin) in BUILTINS:
                problems.append(f"the {hook} hook raised {exc!r}; plugins skipped")
                return None
            problems.append(f"plugin {pm.get_name(plugin)}: {hook} raised {exc!r}; skipped")
            pm.unregister(plugin)
    return None
