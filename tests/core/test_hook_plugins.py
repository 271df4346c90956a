"""The plugins ``hook_plugins`` names run with pluggy's semantics in a real hook process.

A ``capture`` wrapper (``@hookimpl(wrapper=True)``, as the hookspecs and docs/hooks.md tell
authors) and an ``inject`` implementation, in a module config.yaml names, take effect when
Claude Code's launcher runs the prompt and stop hooks in their own processes. Before the
hook path used pluggy, the wrapper was silently dropped (the session was staged unscrubbed).
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from lorebook import hookplugins
from lorebook.events import Hit, RecallQuery
from lorebook.fastpath.launcher import launcher_entry, launcher_paths

MODULES = {"claude": "lorebook_claude.events"}

PLUGIN = textwrap.dedent(
    '''
    """A privacy plugin and a renderer, written as docs/hooks.md says."""
    from lorebook import hookimpl


    @hookimpl(wrapper=True)
    def capture(log):
        staged = yield
        turns = [t.model_copy(update={"text": t.text.replace("hamster", "[pet]")})
                 for t in staged.turns]
        return staged.model_copy(update={"turns": turns})


    @hookimpl(tryfirst=True)
    def inject(hits, text):
        return "TEAM BLOCK: " + ", ".join(h.note_id for h in hits)


    def recall(query):  # a plain function is an implementation too
        return None
    '''
)


def _hook(entry: Path, repo: Path, event: str, payload: dict[str, Any]) -> str:
    out = subprocess.run(
        [sys.executable, "-I", "-S", str(entry), "claude", event],
        input=json.dumps({"cwd": str(repo), "hook_event_name": event, **payload}),
        capture_output=True, text=True, cwd=repo, check=True, timeout=60,
    )  # fmt: skip
    return out.stdout


def test_a_capture_wrapper_and_an_inject_plugin_work_in_a_real_hook_process(
    kb_repo: Path, cli: Any, tmp_path: Path
) -> None:
    folder = tmp_path / "site"
    folder.mkdir()
    (folder / "teamhooks.py").write_text(PLUGIN, encoding="utf-8")
    added = cli(
        "note", "add", "--title", "Release checklist", "--description", "Before a release",
        "--body", "Tag, changelog, announce.", "--kind", "tooling", cwd=kb_repo,
    )  # fmt: skip
    assert added.exit_code == 0, added.stderr
    config = kb_repo / ".lorebook/config.yaml"
    config.write_text(config.read_text() + "hook_plugins: [teamhooks]\n", encoding="utf-8")
    assert cli("review", "--accept-all", cwd=kb_repo).exit_code in (0, 2)
    assert cli("lint", cwd=kb_repo).exit_code == 0  # compiles config.json for the hooks
    # The launcher Claude Code runs, with the plugin's folder on its path (as if installed).
    entry = kb_repo / ".lorebook/bin/hook-team.py"
    entry.parent.mkdir(parents=True, exist_ok=True)
    entry.write_text(
        launcher_entry(MODULES, [*launcher_paths(MODULES), str(folder)]), encoding="utf-8"
    )
    answer = _hook(entry, kb_repo, "UserPromptSubmit",
                   {"session_id": "s1", "prompt": "what is the release checklist?"})  # fmt: skip
    context = json.loads(answer)["hookSpecificOutput"]["additionalContext"]
    assert context.startswith("TEAM BLOCK: ")
    assert "release-checklist" in context

    transcript = tmp_path / "s1.jsonl"
    said = "my hamster is called Biscuit; always tag the release"
    transcript.write_text(
        json.dumps({"type": "user", "message": {"role": "user", "content": said}}) + "\n"
    )
    _hook(entry, kb_repo, "Stop", {"session_id": "s1", "transcript_path": str(transcript)})
    staged = "".join(p.read_text() for p in (kb_repo / ".lorebook/_sessions").rglob("*.jsonl"))
    assert "my [pet] is called Biscuit" in staged
    assert "hamster" not in staged
    errors = kb_repo / ".lorebook/_logs/hook-errors.log"
    assert not errors.exists(), errors.read_text()


class Raises:
    @staticmethod
    def recall(query: RecallQuery) -> list[Hit]:
        raise RuntimeError("broken plugin")


class Answers:
    @staticmethod
    def recall(query: RecallQuery) -> list[Hit]:
        return [Hit(note_id="practice-x", score=1.0, store="markdown")]


@pytest.mark.parametrize("order", [(Raises, Answers), (Answers, Raises)])
def test_a_plugin_that_raises_is_skipped_and_the_others_still_answer(order: Any) -> None:
    import types

    modules = []
    for cls in order:
        module = types.ModuleType(f"plugin_{cls.__name__.lower()}")
        module.recall = cls.recall  # type: ignore[attr-defined]
        modules.append(module)
    problems: list[str] = []
    pm = hookplugins.manager(modules, problems)
    found = hookplugins.call(pm, "recall", problems, query=RecallQuery(text="uv"))
    assert [h.note_id for hits in found for h in hits] == ["practice-x"]
    assert problems == [
        "plugin plugin_raises: recall raised RuntimeError('broken plugin'); skipped"
    ]


def test_a_module_pluggy_refuses_is_skipped_naming_it() -> None:
    import types

    module = types.ModuleType("wrong_args")
    module.recall = lambda query, colour: None  # type: ignore[attr-defined]
    problems: list[str] = []
    pm = hookplugins.manager([module], problems)
    assert not pm.has_plugin("wrong_args")
    assert problems
    assert problems[0].startswith("plugin wrong_args is skipped: ")
    assert "colour" in problems[0]


WARMED = """
import sys
sys.path[:0] = {paths!r}
from lorebook.fastpath.server import Server
server = Server({repo!r}, {{}}, {launcher!r})
server.warm()
print("pluggy" in sys.modules)
"""


def test_the_warm_process_loads_pluggy_only_when_a_module_is_configured(
    kb_repo: Path, cli: Any
) -> None:
    """A child then builds the prompt's plugin manager without importing pluggy (~10 ms)."""
    launcher = kb_repo / ".lorebook/bin/hook"
    launcher.parent.mkdir(parents=True, exist_ok=True)
    launcher.write_text("")
    code = WARMED.format(paths=launcher_paths({}), repo=str(kb_repo), launcher=str(launcher))
    seen = []
    for names in ("[]", "[teamhooks]"):
        config = kb_repo / ".lorebook/config.yaml"
        lines = [x for x in config.read_text().splitlines() if not x.startswith("hook_plugins:")]
        config.write_text("\n".join([*lines, f"hook_plugins: {names}", ""]), encoding="utf-8")
        assert cli("lint", cwd=kb_repo).exit_code == 0  # compiles config.json for the hooks
        out = subprocess.run([sys.executable, "-I", "-S", "-c", code], capture_output=True,
                             text=True, check=True, timeout=60)  # fmt: skip
        seen.append(out.stdout.strip())
    assert seen == ["False", "True"]
