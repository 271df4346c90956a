"""Every hook spec is called by core: its docstring names the callers, and calling each
reaches a plugin implementing the spec through the plugin manager.

And the pipeline hooks work where the docstrings say: ``recall`` and ``inject`` on the hook
fast path for the modules ``hook_plugins`` names, their import cost reported by doctor.
"""

from __future__ import annotations

import doctest
import importlib
import inspect
import re
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pluggy
import pytest
import typer

from lorebook import hookimpl, hookplugins, hookspecs
from lorebook.curate.rules import RulesCurator
from lorebook.events import HookEvent, RecallQuery
from lorebook.kb.paths import KBPaths
from lorebook.models.session import SessionLog
from lorebook.plugins import Plugins, make_plugins
from lorebook.recall.serve import Served
from lorebook.testing import MemoryStore
from tests.conftest import REPO_ROOT, fire, hook_errors

SPECS = sorted(hookspecs.PROVIDER_HOOKS + hookspecs.PIPELINE_HOOKS)
CALLER_RE = re.compile(r":(?:func|meth):`([\w.]+)`")


def _resolve(dotted: str) -> Any:
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj: Any = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attr in parts[cut:]:
            obj = getattr(obj, attr)
        return obj
    raise ImportError(dotted)


def test_every_example_in_the_specs_runs() -> None:
    result = doctest.testmod(hookspecs, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
    assert result.attempted >= 2 * len(SPECS)


class Spy:
    """Implements every spec (``tryfirst``, passing): records which hooks reached it."""

    def __init__(self) -> None:
        self.called: list[str] = []

    def _saw(self, name: str) -> None:
        self.called.append(name)

    @hookimpl(tryfirst=True)
    def register_harnesses(self) -> list[Any]:
        self._saw("register_harnesses")
        return []

    @hookimpl(tryfirst=True)
    def register_stores(self) -> list[Any]:
        self._saw("register_stores")
        return []

    @hookimpl(tryfirst=True)
    def register_extractors(self) -> list[Any]:
        self._saw("register_extractors")
        return []

    @hookimpl(tryfirst=True)
    def register_curators(self) -> list[Any]:
        self._saw("register_curators")
        return []

    @hookimpl(tryfirst=True)
    def register_commands(self) -> None:
        self._saw("register_commands")

    @hookimpl(tryfirst=True)
    def capture(self) -> None:
        self._saw("capture")

    @hookimpl(tryfirst=True)
    def extract(self) -> None:
        self._saw("extract")

    @hookimpl(tryfirst=True)
    def curate(self) -> None:
        self._saw("curate")

    @hookimpl(tryfirst=True)
    def recall(self) -> None:
        self._saw("recall")

    @hookimpl(tryfirst=True)
    def inject(self) -> None:
        self._saw("inject")


def _log() -> SessionLog:
    return SessionLog(
        harness="claude", session_id="s", origin="claude:s", transcript_hash="",
        transcript_length=0,
    )  # fmt: skip


def _event() -> HookEvent:
    return HookEvent(name="prompt", harness="claude", session_id="s", cwd="/r", prompt="uv")


def _on_hook_path(spy: Spy) -> pluggy.PluginManager:
    return hookplugins.manager([spy], [])


# How to call each caller the docstrings name: (plugins, spy, repo) -> the manager the call
# went through. The caller is resolved from its dotted name, then called for real.
DRIVERS: dict[str, Callable[[Any, Plugins, Spy, Path], pluggy.PluginManager]] = {
    "lorebook.plugins.Plugins.harnesses": lambda f, p, s, r: (f(p), p.pm)[1],
    "lorebook.plugins.Plugins.stores": lambda f, p, s, r: (f(p), p.pm)[1],
    "lorebook.plugins.Plugins.extractors": lambda f, p, s, r: (f(p), p.pm)[1],
    "lorebook.plugins.Plugins.curators": lambda f, p, s, r: (f(p), p.pm)[1],
    "lorebook.plugins.Plugins.register_commands": lambda f, p, s, r: (f(p, typer.Typer()), p.pm)[1],
    "lorebook.cli.app.build_app": lambda f, p, s, r: (f(p), p.pm)[1],
    "lorebook.capture.plugins.capture_hook": lambda f, p, s, r: (
        f(str(r / ".lorebook"), True)(_log()),
        p.pm,
    )[1],
    "lorebook.capture.stage.through_capture_hook": lambda f, p, s, r: (f(_log()), p.pm)[1],
    "lorebook.extract.run._plugin_proposals": lambda f, p, s, r: (f(p, _log()), p.pm)[1],
    "lorebook.curate.run.ask_curator": lambda f, p, s, r: (
        f(p, RulesCurator(), [], MemoryStore()),
        p.pm,
    )[1],
    "lorebook.plugins.Plugins.recall_hits": lambda f, p, s, r: (
        f(p, KBPaths(r), RecallQuery(text="uv")),
        p.pm,
    )[1],
    "lorebook.recall.pipeline.call_recall": lambda f, p, s, r: (
        lambda pm: (f(pm, RecallQuery(text="uv"), []), pm)[1]
    )(_on_hook_path(s)),
    "lorebook.recall.pipeline.call_inject": lambda f, p, s, r: (
        lambda pm: (f(pm, _event(), Served([], [], "core's text", []), []), pm)[1]
    )(_on_hook_path(s)),
}


@pytest.mark.parametrize("name", SPECS)
def test_the_named_caller_calls_the_hook_through_the_plugin_manager(
    name: str, kb_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each caller is called for real: a plugin implementing the spec must be reached."""
    doc = inspect.getdoc(getattr(hookspecs, name)) or ""
    caller_line = next((p for p in doc.split("\n\n") if p.startswith("Caller:")), "")
    callers = CALLER_RE.findall(caller_line)
    assert callers, f"{name}: the docstring has no 'Caller:' naming a function"
    for dotted in callers:
        assert dotted in DRIVERS, f"{name}: no driver calls {dotted} (add one to DRIVERS)"
        plugins = make_plugins(load_external=False)
        spy = Spy()
        plugins.pm.register(spy)
        monkeypatch.setattr("lorebook.plugins.get_plugins", lambda plugins=plugins: plugins)
        pm = DRIVERS[dotted](_resolve(dotted), plugins, spy, kb_repo)
        assert spy.called.count(name) == 1, f"{name}: calling {dotted} did not reach a plugin"
        assert pm.is_registered(spy), f"{name}: {dotted} went through another manager"


def test_docs_say_every_hook_is_called() -> None:
    text = (REPO_ROOT / "docs" / "hooks.md").read_text(encoding="utf-8")
    table = [line for line in text.splitlines() if line.startswith("| `")]
    assert len(table) == len(SPECS)
    assert not [line for line in table if "| no" in line]


MODULES = {"fake": "tests.core.fake_host_events"}
PLUGIN = textwrap.dedent(
    """
    from lorebook.events import Hit

    def recall(query):
        if "deploy" in query.text:
            return [Hit(note_id="practice-release-checklist", score=9.0, store="markdown")]
        return None

    def inject(event, hits):
        if "plain" in (event.prompt or ""):
            return None  # core's own rendering
        return "PLUGIN BLOCK: " + ", ".join(h.note_id for h in hits)
    """
)


def _with_plugins(repo: Path, *modules: str) -> None:
    config = repo / ".lorebook/config.yaml"
    names = ", ".join(modules)
    config.write_text(config.read_text() + f"hook_plugins: [{names}]\n", encoding="utf-8")


def test_recall_and_inject_plugins_run_on_the_hook_path(
    kb_repo: Path, cli: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    (kb_repo / "myhooks.py").write_text(PLUGIN, encoding="utf-8")
    monkeypatch.syspath_prepend(str(kb_repo))
    done = cli(
        "note", "add", "--title", "Release checklist", "--description", "Before a release",
        "--body", "Tag, changelog, announce.", "--kind", "tooling",
        "--id", "practice-release-checklist", cwd=kb_repo,
    )  # fmt: skip
    assert done.exit_code == 0, done.stderr
    _with_plugins(kb_repo, "myhooks", "not_a_module_anywhere")
    assert cli("lint", cwd=kb_repo).exit_code == 0  # compiles config.json for the hooks
    # "deploy" shares no word with the note: only the plugin's recall hit brings it.
    out = fire(kb_repo, monkeypatch, "Prompt", session="a", prompt="how do we deploy on fridays")
    assert out["context"] == "PLUGIN BLOCK: practice-release-checklist"
    assert any("not_a_module_anywhere failed to import" in line for line in hook_errors(kb_repo))
    plain = fire(
        kb_repo, monkeypatch, "Prompt", session="b", prompt="plain question: how do we deploy"
    )
    # A plugin's hit is not judged by the ranker's confidence: core serves it as a pointer.
    assert "- Release checklist: Before a release (read .lorebook/nodes/" in plain["context"]
    assert "### Release checklist" not in plain["context"]
    doctor = cli("doctor", "--json", cwd=kb_repo).json()
    checks = {c["name"]: c for c in doctor["checks"]}
    assert checks["hook plugin myhooks"]["state"] in ("ok", "warning")  # warning: over 50 ms
    assert checks["hook plugin myhooks"]["detail"].startswith("imports in ")
    assert checks["hook plugin not_a_module_anywhere"]["state"] == "problem"
