"""The ``lorebook`` application: global options, command registration, error handling."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from lorebook import __version__

if TYPE_CHECKING:
    from typer.models import CommandInfo, TyperInfo

    from lorebook.plugins import Plugins

EPILOG = (
    "Exit codes: 0 success; 1 the command failed or found errors (the message names the "
    "file, field and value); 2 the command line itself is wrong."
)

_SETTINGS = dict(
    name="lorebook",
    help=(
        "Project memory for AI coding assistants. lorebook keeps what a human taught the "
        "agent as markdown notes in .lorebook/, reviewed with git, and serves the relevant "
        "ones back to later sessions of any harness."
    ),
    epilog=EPILOG,
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


def installed_distributions() -> list[tuple[str, str]]:
    """Every installed lorebook distribution: core first, then plugins by name.

    A plugin counts when its name starts with ``lorebook-`` or it declares an entry point
    in one of lorebook's groups (a third party's ``acme-lorebook-store``).
    """
    from importlib import metadata

    from lorebook.constants import ENTRY_POINT_GROUPS

    found: dict[str, str] = {}
    for dist in metadata.distributions():
        name = dist.metadata["Name"] or ""
        groups = {ep.group for ep in dist.entry_points}
        if name == "lorebook" or name.startswith("lorebook-") or groups & set(ENTRY_POINT_GROUPS):
            found.setdefault(name, dist.version)
    found.pop("lorebook", None)
    return [("lorebook", __version__), *sorted(found.items())]


def _version(value: bool) -> None:
    if value:
        for name, version in installed_distributions():
            typer.echo(f"{name} {version}")
        raise typer.Exit()


def main_options(
    ctx: typer.Context,
    repo: Annotated[
        Path | None,
        typer.Option(
            "--repo",
            "-C",
            help="Work on the repository at this path instead of the current folder.",
            file_okay=False,
        ),
    ] = None,
    version: Annotated[
        bool,
        typer.Option(
            "--version",
            callback=_version,
            is_eager=True,
            help="Print the version of lorebook and of every installed lorebook plugin.",
        ),
    ] = False,
    debug: Annotated[
        bool,
        typer.Option("--debug", help="On a failure, show the traceback instead of one message."),
    ] = False,
) -> None:
    """Global options."""
    if repo is not None and not repo.exists():
        # Said here, or the search for a knowledge base would climb out of the missing
        # folder into whatever encloses it.
        from lorebook.errors import LorebookError

        raise LorebookError(f"-C {repo}: no such folder")
    ctx.obj = {"repo": repo}


def _new_app() -> typer.Typer:
    """The application with its global options and no command yet."""
    new = typer.Typer(**_SETTINGS)  # type: ignore[arg-type]
    new.callback()(main_options)
    return new


_COMMANDS = (
    "init", "capture", "extract", "curate", "conflict", "note", "index", "folder", "review",
    "checks", "plugins", "schema", "recall", "mark", "premise", "rebalance", "migrate",
)  # fmt: skip
"""The command modules of the core, registered before the plugins'."""
BUILTIN_COMMANDS = (
    "init", "uninstall", "capture", "import", "forget-session", "prune", "scan", "extract",
    "curate", "review", "lint", "doctor", "status", "plugins", "schema", "recall", "mcp",
    "bootstrap", "harvest", "stats", "mark", "rebalance",
    "conflict", "note", "index", "folder", "eval", "pack", "premise", "migrate",
)  # fmt: skip
"""Every command lorebook ships, in the order ``lorebook --help`` lists them (commands, then
groups); the features' ones (``import``, ``mcp``, ``bootstrap``, ``harvest``, ``stats``,
``eval``, ``pack``) come from built-in plugins (``lorebook.builtin.commands``). Plugins'
commands follow, in the order the plugins loaded."""
ALONE = frozenset({"note", "index"})
"""Command groups run from an application holding only them: ``note add`` and ``index
rebuild`` then import their own modules, not every command's (about 0.15 s)."""
_REPORT_PLUGINS = frozenset({"plugins", "doctor"})
"""Commands run from the application with every installed plugin's commands, so a plugin
whose ``register_commands`` failed is reported as failed."""
_OPTIONS_WITH_VALUE = frozenset({"--repo", "-C"})
_FULL: dict[bool, typer.Typer] = {}


def build_app(plugins: Plugins) -> typer.Typer:
    """The application with core's commands and every plugin's (``register_commands``)."""
    import importlib

    from lorebook.plugins import command_name

    built = _new_app()
    for name in _COMMANDS:
        importlib.import_module(f"lorebook.cli.{name}").register(built)
    plugins.register_commands(built)
    place = {name: at for at, name in enumerate(BUILTIN_COMMANDS)}

    def order(info: CommandInfo | TyperInfo) -> int:
        return place.get(command_name(info) or "", len(place))

    built.registered_commands.sort(key=order)
    built.registered_groups.sort(key=order)
    return built


def full_app(*, installed: bool = True) -> typer.Typer:
    """The application with every command (built once).

    Core's commands, the built-in plugins' and, with ``installed``, those of the installed
    plugins (their entry-point scan and imports cost a command about 20 ms).
    """
    if installed not in _FULL:
        from lorebook.plugins import get_plugins, make_plugins

        plugins = get_plugins() if installed else make_plugins(load_external=False)
        _FULL[installed] = build_app(plugins)
    return _FULL[installed]


def __getattr__(name: str) -> typer.Typer:
    """``app`` is the application with every command, built when first asked for."""
    if name == "app":
        return full_app()
    raise AttributeError(name)


def _command(args: list[str]) -> str | None:
    """The command named on the command line (after the global options), if any."""
    skip = False
    for arg in args:
        if skip:
            skip = False
        elif arg in _OPTIONS_WITH_VALUE:
            skip = True
        elif not arg.startswith("-"):
            return arg
    return None


def _app_for(args: list[str]) -> typer.Typer:
    """The smallest application that runs the command line.

    A command lorebook ships needs no installed plugin's; ``--help``, ``--version``, the
    commands that report on plugins and any other command need them all.
    """
    name = _command(args)
    if name not in BUILTIN_COMMANDS or name in _REPORT_PLUGINS or "--version" in args:
        return full_app()
    if name not in ALONE:
        return full_app(installed=False)
    import importlib

    alone = _new_app()
    importlib.import_module(f"lorebook.cli.{name}").register(alone)
    return alone


def main(*, collector_paused: bool = False) -> None:
    """Run the CLI; a failure becomes one message on stderr and exit code 1 (2: usage).

    ``--debug`` (before the command) lets the exception through with its traceback.
    ``collector_paused``: the console script (:func:`lorebook.cli.main`) paused the garbage
    collector for the imports; it is resumed once the command's module is loaded, with
    every object made so far frozen.
    """
    args = sys.argv[1:]
    app = _app_for(args)
    if collector_paused:
        import gc

        gc.freeze()
        gc.enable()
    if "--debug" in args:
        app()
        return
    try:
        app()
    except KeyboardInterrupt:
        sys.stderr.write("lorebook: interrupted\n")
        sys.exit(130)
    except Exception as exc:
        from lorebook.cli.failures import report
        from lorebook.errors import UsageError

        code = report(exc, json_mode="--json" in args)
        sys.exit(2 if isinstance(exc, UsageError) else code)
