"""Every hook spec is called by core: its docstring names the caller, whose source calls it.

And the pipeline hooks work where the docstrings say: ``recall`` and ``inject`` on the hook
fast path for the modules ``hook_plugins`` names, their import cost reported by doctor.
"""

from __future__ import annotations

import doctest
import importlib
import inspect
import io
import json
import re
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from lorebook import hookspecs
from lorebook.hook import run
from tests.conftest import REPO_ROOT

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


@pytest.mark.parametrize("name", SPECS)
def test_the_named_caller_exists_and_calls_the_hook(name: str) -> None:
    doc = inspect.getdoc(getattr(hookspecs, name)) or ""
    caller_line = next((p for p in doc.split("\n\n") if p.startswith("Caller:")), "")
    callers = CALLER_RE.findall(caller_line)
    assert callers, f"{name}: the docstring has no 'Caller:' naming a function"
    for dotted in callers:
        assert not dotted.startswith("lorebook.hookspecs"), dotted
        source = inspect.getsource(_resolve(dotted))
        assert re.search(rf"(\.{name}\b|[\"']{name}[\"']|\b{name}\()", source), (
            f"{name}: {dotted} does not call it"
        )


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


def _fire(repo: Path, monkeypatch: pytest.MonkeyPatch, prompt: str) -> tuple[Any, list[str]]:
    session = re.sub(r"[^a-z]", "-", prompt)
    data = json.dumps({"session_id": session, "cwd": str(repo), "prompt": prompt}).encode()
    out = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data), encoding="utf-8"))
    monkeypatch.setattr(sys, "stdout", out)
    assert run(["fake", "Prompt"], repo=str(repo), event_modules=MODULES) == 0
    out.flush()
    raw = out.buffer.getvalue().decode()
    log = repo / ".lorebook/_logs/hook-errors.log"
    return (json.loads(raw) if raw else None), (
        log.read_text().splitlines() if log.exists() else []
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
        "--body", "Tag, changelog, announce.", "--kind", "tooling", cwd=kb_repo,
    )  # fmt: skip
    assert done.exit_code == 0, done.stderr
    _with_plugins(kb_repo, "myhooks", "not_a_module_anywhere")
    assert cli("lint", cwd=kb_repo).exit_code == 0  # compiles config.json for the hooks
    # "deploy" shares no word with the note: only the plugin's recall hit brings it.
    out, log = _fire(kb_repo, monkeypatch, "how do we deploy on fridays")
    assert out["context"] == "PLUGIN BLOCK: practice-release-checklist"
    assert any("not_a_module_anywhere failed to import" in line for line in log)
    plain, _ = _fire(kb_repo, monkeypatch, "plain question: how do we deploy")
    # A plugin's hit is not judged by the ranker's confidence: core serves it as a pointer.
    assert "- Release checklist: Before a release (read .lorebook/nodes/" in plain["context"]
    assert "### Release checklist" not in plain["context"]
    doctor = cli("doctor", "--json", cwd=kb_repo).json()
    checks = {c["name"]: c for c in doctor["checks"]}
    assert checks["hook plugin myhooks"]["state"] in ("ok", "warning")  # warning: over 50 ms
    assert checks["hook plugin myhooks"]["detail"].startswith("imports in ")
    assert checks["hook plugin not_a_module_anywhere"]["state"] == "problem"
