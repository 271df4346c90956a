"""The plugin manager: built-in plugins, entry-point loading, fail-open, the typed facade.

Core calls provider hooks through :class:`Plugins` methods, and pipeline hooks through its
``hook`` relay (:mod:`lorebook.hookplugins` adds the modules ``hook_plugins`` names).
Loading is deterministic (groups in :data:`~lorebook.constants.ENTRY_POINT_GROUPS` order,
then entry-point name, then distribution) and fails open: a plugin that cannot be imported,
registered or called is recorded as failed with the reason, logged, and skipped.
"""

from __future__ import annotations

import functools
import logging
import os
import sys
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from importlib import import_module, metadata
from typing import TYPE_CHECKING, Any, Literal, TypeVar

import pluggy

from lorebook import hookplugins
from lorebook.constants import (
    ENTRY_POINT_GROUPS,
    ENV_DISABLE_PLUGINS,
    ENV_LOAD_PLUGINS,
    ENV_TRACE_PLUGINS,
    PROJECT_NAME,
)
from lorebook.errors import DuplicateProviderError, UnknownProviderError
from lorebook.providers import CuratorSpec, ExtractorSpec, HarnessSpec, StoreSpec

if TYPE_CHECKING:
    import typer
    from typer.models import CommandInfo, TyperInfo

    from lorebook.events import Hit, RecallQuery
    from lorebook.kb.paths import KBPaths

log = logging.getLogger(__name__)

DEFAULT_PLUGINS: tuple[str, ...] = (
    "lorebook.builtin.capture",
    "lorebook.builtin.markdown_store",
    "lorebook.builtin.personal_store",
    "lorebook.builtin.extractors",
    "lorebook.builtin.curators",
    "lorebook.builtin.inject",
    "lorebook.builtin.commands.importers",
    "lorebook.builtin.commands.evaluation",
    "lorebook.builtin.commands.mcp",
    "lorebook.builtin.commands.bootstrap",
    "lorebook.builtin.commands.harvest",
    "lorebook.builtin.commands.packs",
    "lorebook.builtin.commands.stats",
)
"""Built-in plugins, registered first (their impls are ``trylast``)."""

PluginStatus = Literal["loaded", "failed", "disabled"]
SpecT = TypeVar("SpecT", HarnessSpec, StoreSpec, ExtractorSpec, CuratorSpec)


@dataclass(slots=True)
class PluginRecord:
    """One plugin as ``lorebook plugins`` lists it."""

    name: str
    distribution: str
    version: str
    group: str
    status: PluginStatus = "loaded"
    error: str | None = None
    hooks: list[str] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        """Return the record as a JSON-ready dict."""
        return {
            "name": self.name,
            "distribution": self.distribution,
            "version": self.version,
            "group": self.group,
            "status": self.status,
            "error": self.error,
            "hooks": self.hooks,
        }


def _env_names(env: Mapping[str, str], key: str) -> set[str] | None:
    raw = env.get(key)
    if raw is None:
        return None
    return {part.strip() for part in raw.split(",") if part.strip()}


def _dist_of(ep: metadata.EntryPoint) -> tuple[str, str]:
    dist = ep.dist
    if dist is None:
        return ("unknown", "unknown")
    return (dist.metadata["Name"] or "unknown", dist.version)


def _error_text(exc: BaseException) -> str:
    """The reason on one line: the exception's type and the first line of its message."""
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    first = lines[0] if lines else "(no message)"
    more = f" (+{len(lines) - 1} more lines)" if len(lines) > 1 else ""
    return f"{type(exc).__name__}: {first}{more}"


class Plugins:
    """The typed facade over the plugin manager. Build it with :func:`make_plugins`."""

    def __init__(self, pm: pluggy.PluginManager, records: list[PluginRecord]) -> None:
        self.pm = pm
        self.records = records

    # --- loading ---------------------------------------------------------------------

    def _register(self, plugin: object, record: PluginRecord) -> None:
        try:
            self.pm.register(plugin, name=record.name)
            self.pm.check_pending()
        except Exception as exc:  # fail open: a broken plugin never breaks lorebook
            if self.pm.is_registered(plugin):
                self.pm.unregister(plugin)
            self._fail(record, exc)
            return
        record.hooks = sorted({impl.__name__ for impl in self._impls_of(plugin)})
        self.records.append(record)

    def _impls_of(self, plugin: object) -> Iterable[Callable[..., Any]]:
        for caller in self.pm.get_hookcallers(plugin) or []:
            yield from (impl.function for impl in caller.get_hookimpls() if impl.plugin is plugin)

    def _fail(self, record: PluginRecord, exc: BaseException) -> None:
        record.status = "failed"
        record.error = _error_text(exc)
        log.warning(
            "lorebook: plugin %s (%s) failed and is skipped: %s: %s",
            record.name,
            record.distribution,
            type(exc).__name__,
            exc,
        )
        if record not in self.records:
            self.records.append(record)

    def _disable(self, record: PluginRecord, why: str) -> None:
        record.status = "disabled"
        record.error = why
        self.records.append(record)

    # --- providers -------------------------------------------------------------------

    def _collect(self, hook_name: str, kind: str, spec_type: type[SpecT]) -> dict[str, SpecT]:
        """Call one provider hook impl at a time so a raising plugin fails alone."""
        caller = getattr(self.pm.hook, hook_name)
        table: dict[str, SpecT] = {}
        owners: dict[str, str] = {}
        for impl in caller.get_hookimpls():
            owner = self._distribution_of(impl.plugin_name)
            try:
                specs = impl.function() or []
                bad = [s for s in specs if not isinstance(s, spec_type)]
                if bad:
                    raise TypeError(f"{hook_name} returned {bad[0]!r}, not a {spec_type.__name__}")
            except Exception as exc:
                self._fail_loaded(impl.plugin_name, exc)
                continue
            for spec in specs:
                if spec.name in table:
                    raise DuplicateProviderError(
                        f"{kind} {spec.name!r} is registered by both {owners[spec.name]} "
                        f"and {owner}",
                        hint=f"uninstall one of them, or set {ENV_DISABLE_PLUGINS}",
                    )
                table[spec.name] = spec
                owners[spec.name] = owner
        return dict(sorted(table.items()))

    def _distribution_of(self, plugin_name: str) -> str:
        for record in self.records:
            if record.name == plugin_name:
                return record.distribution
        return plugin_name

    def _fail_loaded(self, plugin_name: str, exc: BaseException) -> None:
        for record in self.records:
            if record.name == plugin_name:
                self._fail(record, exc)
        plugin = self.pm.get_plugin(plugin_name)
        if plugin is not None:
            self.pm.unregister(plugin)

    def harnesses(self) -> dict[str, HarnessSpec]:
        """Return every registered harness by name, sorted."""
        return self._collect("register_harnesses", "harness", HarnessSpec)

    def stores(self) -> dict[str, StoreSpec]:
        """Return every registered store by name, sorted."""
        return self._collect("register_stores", "store", StoreSpec)

    def extractors(self) -> dict[str, ExtractorSpec]:
        """Return every registered extractor by name, sorted."""
        return self._collect("register_extractors", "extractor", ExtractorSpec)

    def curators(self) -> dict[str, CuratorSpec]:
        """Return every registered curator by name, sorted."""
        return self._collect("register_curators", "curator", CuratorSpec)

    def check(self) -> list[str]:
        """Call every provider hook once; return the conflicts found (two plugins, one name).

        Loading a plugin only registers it: a provider hook that raises fails its plugin
        when it is first called. ``lorebook plugins`` calls this first, so such a plugin is
        listed as failed with the reason, not as loaded.
        """
        problems: list[str] = []
        for collect in (self.harnesses, self.stores, self.extractors, self.curators):
            try:
                collect()
            except DuplicateProviderError as exc:
                problems.append(exc.message)
        return problems

    def harness(self, name: str) -> HarnessSpec:
        """Return the harness called ``name``, or fail listing the valid names."""
        return _pick(self.harnesses(), name, "harness")

    def store(self, name: str, *, named_in: str | None = None) -> StoreSpec:
        """Return the store called ``name``, or fail listing the valid names.

        ``named_in`` says where the name was read (a file and key), for the error.
        """
        return _pick(self.stores(), name, "store", named_in)

    def extractor(self, name: str, *, named_in: str | None = None) -> ExtractorSpec:
        """Return the extractor called ``name``, or fail listing the valid names.

        ``named_in`` says where the name was read (a file and key), for the error.
        """
        return _pick(self.extractors(), name, "extractor", named_in)

    def curator(self, name: str) -> CuratorSpec:
        """Return the curator called ``name``, or fail listing the valid names."""
        return _pick(self.curators(), name, "curator")

    # --- commands ---------------------------------------------------------------------

    def register_commands(self, cli: typer.Typer) -> None:
        """Let every plugin add its commands to ``cli``, one implementation at a time.

        Called by :func:`lorebook.cli.app.build_app`. A plugin that raises, or that adds a
        command whose name core or an earlier plugin has taken, fails alone: what it added
        is taken back, and ``lorebook plugins`` lists it as failed with the reason.
        """
        owners = dict.fromkeys(command_names(cli), PROJECT_NAME)
        for impl in self.pm.hook.register_commands.get_hookimpls():
            owner = self._distribution_of(impl.plugin_name)
            commands, groups = len(cli.registered_commands), len(cli.registered_groups)
            try:
                impl.function(**{arg: cli for arg in impl.argnames if arg == "cli"})
                added = command_names(cli, commands, groups)
                taken = [n for i, n in enumerate(added) if n in owners or n in added[:i]]
                if taken:
                    raise DuplicateProviderError(
                        f"command {taken[0]!r} is registered by both "
                        f"{owners.get(taken[0], owner)} and {owner}"
                    )
            except Exception as exc:
                del cli.registered_commands[commands:]
                del cli.registered_groups[groups:]
                self._fail_loaded(impl.plugin_name, exc)
                continue
            owners.update(dict.fromkeys(added, owner))

    # --- pipeline ---------------------------------------------------------------------

    def recall_hits(self, paths: KBPaths, query: RecallQuery) -> list[Hit]:
        """Every plugin's ``recall`` hits: entry-point plugins and the ``hook_plugins`` modules.

        Called by ``lorebook recall`` and the MCP server's ``recall`` tool (the hooks call
        the configured modules alone, :func:`lorebook.recall.pipeline.call_recall`). The
        configured modules join this manager, as they join the hooks' (pluggy's semantics
        in both); a plugin that raises is skipped.
        """
        from lorebook.events import Hit
        from lorebook.hookconfig import load_hook_config

        problems: list[str] = []
        names = load_hook_config(str(paths.root)).hook_plugins
        pm = hookplugins.manager(hookplugins.load(names, problems), problems, base=self.pm)
        found = hookplugins.call(pm, "recall", problems, query=query) or []
        hits = [h for part in found if isinstance(part, list | tuple) for h in part]
        hits = [h for h in hits if isinstance(h, Hit)]
        for problem in problems:
            log.warning("lorebook: %s", problem)
        return hits

    @property
    def hook(self) -> pluggy.HookRelay:
        """The raw relay, for the pipeline stages' own typed wrappers."""
        return self.pm.hook


def command_name(info: CommandInfo | TyperInfo) -> str | None:
    """The name a command or a group of ``lorebook`` is called by, as typer resolves it."""
    from typer.models import CommandInfo, DefaultPlaceholder

    if isinstance(info, CommandInfo):
        if info.name:
            return info.name
        return info.callback.__name__.lower().replace("_", "-") if info.callback else None
    group = info.typer_instance
    candidates = [info.name]
    if group is not None:
        candidates += [getattr(group.registered_callback, "name", None), group.info.name]
    for name in candidates:
        if name is not None and not isinstance(name, DefaultPlaceholder):
            return str(name)
    return None


def command_names(cli: typer.Typer, commands: int = 0, groups: int = 0) -> list[str]:
    """The names of the commands, then the groups, ``cli`` holds from these positions on."""
    infos: list[CommandInfo | TyperInfo] = [
        *cli.registered_commands[commands:],
        *cli.registered_groups[groups:],
    ]
    return [name for name in map(command_name, infos) if name]


# The only host names core keeps, on purpose: a harness name that is not installed has no
# plugin to ask, so the hint saying which package to install can only come from core, and it
# names only packages that exist (another name gets the generic hint). Everything else core
# knows of a host comes from its plugin (HarnessSpec fields, lorebook.hostkit protocols).
FIRST_PARTY_HARNESSES = ("claude", "codex", "copilot", "cursor", "opencode")
"""Harnesses with a first-party plugin, each its own distribution ``lorebook-<name>``."""


def _install_hint(name: str, kind: str) -> str:
    """What to install for an unknown provider: only a package that exists is named."""
    if kind == "harness" and name in FIRST_PARTY_HARNESSES:
        return (
            f"install its plugin: pip install lorebook-{name} "
            f"(or pipx inject lorebook lorebook-{name})"
        )
    article = "an" if kind[0] in "aeiou" else "a"
    return (
        f"no plugin of ours provides {article} {kind} named {name!r}; check the spelling, or "
        "install the third-party plugin that does (`lorebook plugins` lists what is installed)"
    )


def _pick(table: Mapping[str, SpecT], name: str, kind: str, named_in: str | None = None) -> SpecT:
    try:
        return table[name]
    except KeyError:
        valid = ", ".join(table) or "none installed"
        where = f" ({named_in})" if named_in else ""
        raise UnknownProviderError(
            f"unknown {kind} {name!r}{where}; valid names: {valid}",
            hint=_install_hint(name, kind),
        ) from None


def _load_builtins(plugins: Plugins) -> None:
    from lorebook import __version__

    for module_name in DEFAULT_PLUGINS:
        record = PluginRecord(
            name=module_name, distribution=PROJECT_NAME, version=__version__, group="builtin"
        )
        try:
            module = import_module(module_name)
        except Exception as exc:
            plugins._fail(record, exc)
            continue
        plugins._register(module, record)


def _entry_points() -> list[metadata.EntryPoint]:
    found: list[metadata.EntryPoint] = []
    for group in ENTRY_POINT_GROUPS:
        eps = metadata.entry_points(group=group)
        found.extend(sorted(eps, key=lambda ep: (ep.name, _dist_of(ep))))
    # The same distribution may be visible twice (editable install and a copy on sys.path).
    unique: dict[tuple[str, str, str], metadata.EntryPoint] = {}
    for ep in found:
        unique.setdefault((ep.group, ep.name, ep.value), ep)
    return list(unique.values())


def _site_paths() -> None:
    """Without site (the hook launcher's ``-I -S``), read the ``.pth`` files site would.

    The launcher puts site-packages on ``sys.path`` but no ``.pth`` is read, so a plugin
    installed in editable mode (its folder named by a ``.pth``) is listed by its entry
    point yet cannot be imported: a session start that loads the store plugins failed
    with "unknown store". Done only when plugins load, never on a prompt's path.
    """
    if not sys.flags.no_site:
        return
    import site

    for folder in [p for p in sys.path if os.path.basename(p) == "site-packages"]:
        site.addsitedir(folder)


def _load_external(plugins: Plugins, env: Mapping[str, str]) -> None:
    _site_paths()
    only = _env_names(env, ENV_LOAD_PLUGINS)
    disabled = _env_names(env, ENV_DISABLE_PLUGINS) or set()
    for ep in _entry_points():
        dist, version = _dist_of(ep)
        record = PluginRecord(name=ep.name, distribution=dist, version=version, group=ep.group)
        if ep.name in disabled:
            plugins._disable(record, f"disabled by {ENV_DISABLE_PLUGINS}")
            continue
        if only is not None and ep.name not in only:
            plugins._disable(record, f"not named in {ENV_LOAD_PLUGINS}")
            continue
        if plugins.pm.has_plugin(ep.name):
            plugins._fail(record, RuntimeError(f"a plugin named {ep.name!r} is already loaded"))
            continue
        try:
            plugin = ep.load()
        except Exception as exc:
            plugins._fail(record, exc)
            continue
        plugins._register(plugin, record)


def make_plugins(*, load_external: bool = True, env: Mapping[str, str] | None = None) -> Plugins:
    """Build a fresh plugin host: built-ins, then (optionally) entry-point plugins.

    Args:
        load_external: Scan entry points (tests pass False for an isolated manager).
        env: The environment knobs are read from (default ``os.environ``).

    Returns:
        The typed facade, with every plugin's record (loaded, failed or disabled).
    """
    env = os.environ if env is None else env
    pm = hookplugins.new_manager()
    if env.get(ENV_TRACE_PLUGINS):
        pm.trace.root.setwriter(lambda msg: sys.stderr.write(f"lorebook trace: {msg}"))
        pm.enable_tracing()
    plugins = Plugins(pm, [])
    _load_builtins(plugins)
    if load_external:
        _load_external(plugins, env)
    return plugins


@functools.cache
def get_plugins() -> Plugins:
    """Return the process-wide plugin host, built on first use."""
    return make_plugins()
