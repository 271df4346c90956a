"""Commands come through ``register_commands``: the features' built-in plugins and a third
party's, the same way; a plugin that raises or takes a name fails alone."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from lorebook import hookimpl
from lorebook.cli.app import BUILTIN_COMMANDS, build_app
from lorebook.plugins import PluginRecord, command_names, make_plugins
from tests.conftest import run_lorebook
from tests.core.test_plugins import _fake_distribution

SHIPPED = [
    "init", "uninstall", "capture", "import", "forget-session", "prune", "scan", "extract",
    "curate", "review", "lint", "doctor", "status", "plugins", "schema", "recall", "mcp",
    "bootstrap", "harvest", "stats", "mark", "rebalance",
    "conflict", "note", "index", "folder", "eval", "pack", "premise", "migrate",
]  # fmt: skip
"""What ``lorebook --help`` listed before the features became plugins, in its order."""
FEATURES = {
    "lorebook.builtin.commands.importers": ["import"],
    "lorebook.builtin.commands.evaluation": ["eval"],
    "lorebook.builtin.commands.mcp": ["mcp"],
    "lorebook.builtin.commands.bootstrap": ["bootstrap"],
    "lorebook.builtin.commands.harvest": ["harvest"],
    "lorebook.builtin.commands.packs": ["pack"],
    "lorebook.builtin.commands.stats": ["stats"],
}

HELLO = """
import typer
from lorebook import hookimpl


@hookimpl
def register_commands(cli):
    @cli.command("hello")
    def hello(name: str = "world") -> None:
        \"\"\"Say hello from a third-party plugin.\"\"\"
        typer.echo(f"hello {name}")
"""


def test_every_shipped_command_is_there_in_the_order_help_lists_it() -> None:
    app = build_app(make_plugins(load_external=False))
    assert command_names(app) == SHIPPED
    assert list(BUILTIN_COMMANDS) == SHIPPED


@pytest.mark.parametrize("module", sorted(FEATURES))
def test_each_feature_adds_its_commands_through_its_built_in_plugin(module: str) -> None:
    """Without its plugin a feature's command is gone: no other code path adds it."""
    plugins = make_plugins(load_external=False)
    record = next(r for r in plugins.records if r.name == module)
    assert (record.status, record.hooks) == ("loaded", ["register_commands"])
    plugins.pm.unregister(name=module)
    names = command_names(build_app(plugins))
    assert names == [n for n in SHIPPED if n not in FEATURES[module]]


def test_a_third_party_plugin_adds_a_command_that_runs(tmp_path: Path, kb_repo: Path) -> None:
    site = tmp_path / "site"
    site.mkdir()
    _fake_distribution(site, "lorebook-hello", "lorebook_hello", HELLO)
    env = {"PYTHONPATH": os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")])}
    done = run_lorebook("hello", "--name", "team", cwd=kb_repo, env=env)
    assert done.stdout == "hello team\n"
    listed = run_lorebook("--help", cwd=kb_repo, env=env).stdout
    section = listed.split("Commands:")[1].split("Exit codes")[0]
    commands = re.findall(r"^  ([a-z][\w-]*) ", section, re.M)
    # typer lists commands, then groups: the plugin's command after the built-in ones
    assert commands == [*SHIPPED[:22], "hello", *SHIPPED[22:]]
    assert "Say hello from a third-party plugin." in listed
    doc = json.loads(run_lorebook("plugins", "--json", cwd=kb_repo, env=env).stdout)
    hello = next(p for p in doc["plugins"] if p["name"] == "lorebook-hello")
    assert (hello["status"], hello["hooks"]) == ("loaded", ["register_commands"])


class Raising:
    @hookimpl
    def register_commands(self, cli: typer.Typer) -> None:
        cli.command("half")(lambda: None)
        raise RuntimeError("cannot add my commands")


class Clashing:
    @hookimpl
    def register_commands(self, cli: typer.Typer) -> None:
        cli.command("mine")(lambda: None)
        cli.command("stats")(lambda: None)


class Fine:
    @hookimpl
    def register_commands(self, cli: typer.Typer) -> None:
        @cli.command("fine")
        def fine() -> None:
            typer.echo("fine")


def test_a_plugin_that_raises_or_takes_a_name_fails_alone_and_its_commands_go() -> None:
    plugins = make_plugins(load_external=False)
    for plugin, name in ((Raising(), "raising"), (Clashing(), "clashing"), (Fine(), "fine")):
        record = PluginRecord(name, f"acme-{name}", "1.0", "lorebook.plugin")
        plugins._register(plugin, record)
    app = build_app(plugins)
    assert command_names(app) == [*SHIPPED[:22], "fine", *SHIPPED[22:]]  # no half, no mine
    failed = {r.name: r.error for r in plugins.records if r.status == "failed"}
    assert failed == {
        "raising": "RuntimeError: cannot add my commands",
        "clashing": "DuplicateProviderError: command 'stats' is registered by both lorebook "
        "and acme-clashing",
    }
    assert not plugins.pm.has_plugin("raising")
    assert not plugins.pm.has_plugin("clashing")
    assert CliRunner().invoke(app, ["fine"]).output == "fine\n"
    stats = CliRunner().invoke(app, ["stats", "--help"]).output
    assert "Per event and per note" in stats  # still the built-in one
