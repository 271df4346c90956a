"""The hook fast path, end to end in-process: config, index, stages, state, logging."""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from lorebook import reviewstate
from lorebook.hookconfig import DEFAULTS, HookConfig, load_hook_config
from lorebook.inject import stages
from lorebook.kb.paths import KBPaths
from lorebook.kb.store import MarkdownStore
from lorebook.models.config import Config
from lorebook.recall.sync import reconcile
from lorebook.testing import make_note
from tests.conftest import fire_raw, hook_errors

MODULES = {"fake": "tests.core.fake_host_events"}
Fire = Callable[..., tuple[Any, list[str]]]


@pytest.fixture
def fire(kb_repo: Path, monkeypatch: pytest.MonkeyPatch) -> Fire:
    """Run the hook in-process as the launcher would; return (parsed stdout, log lines)."""

    def fire_event(
        host_event: str, payload: dict[str, Any] | bytes, *, argv: list[str] | None = None
    ) -> tuple[Any, list[str]]:
        data = (
            payload
            if isinstance(payload, bytes)
            else {"session_id": "s1", "cwd": str(kb_repo), **payload}
        )
        raw = fire_raw(kb_repo, monkeypatch, argv or ["fake", host_event], data)
        return (json.loads(raw) if raw else None), hook_errors(kb_repo)

    return fire_event


@pytest.fixture
def kb(kb_repo: Path) -> Path:
    store = MarkdownStore(kb_repo)
    store.add(
        make_note(
            "use-uv",
            title="Run tests with uv run pytest",
            body="Never bare pytest: it misses the workspace.",
            tags=["testing"],
            lb_anchors={"commands": [r"^pytest\b"]},
            lb_enforce="warn",
        )
    )
    store.add(
        make_note(
            "no-push-main",
            title="Never push to main",
            body="Open a pull request.",
            lb_anchors={"commands": [r"git push\b.*\bmain\b"]},
            lb_enforce="deny",
        ),
        folder="git",
    )
    store.add(
        make_note(
            "ask-migrations",
            title="Migrations need a review",
            body="Ask before running migrations.",
            lb_anchors={"commands": [r"alembic upgrade"]},
            lb_enforce="ask",
        ),
        folder="db",
    )
    store.add(
        make_note(
            "cache-tags",
            title="Cache tags are shared across tenants",
            body="Add the tenant tag.",
            lb_anchors={"files": ["src/cache/**/*.py"], "errors": [r"504 Gateway"]},
        ),
        folder="cache",
    )
    store.add(
        make_note(
            "old-linter",
            title="Lint with flake8 linter",
            lb_status="superseded",
            lb_superseded_by=["practice-ruff"],
        ),
        folder="lint",
    )
    store.add(
        make_note("ruff", title="Lint with ruff linter only", body="ruff check, ruff format."),
        folder="lint",
    )
    store.add(
        make_note(
            "refuted-sleep",
            title="Sleep linter before retries",
            lb_status="refuted",
            lb_refuted_because="It hid a race.",
        ),
        folder="lint",
    )
    reconcile(KBPaths(kb_repo))
    reviewstate.accept(str(kb_repo / ".lorebook"))  # a person reviewed them: they may act
    return kb_repo


def test_light_config_defaults_match_the_model() -> None:
    model = Config()
    flat = {**model.budgets.model_dump(), **model.recall.model_dump(), "harnesses": ()}
    flat.update(model.nudges.model_dump())
    flat["hook_plugins"] = tuple(model.hook_plugins)
    assert {k: flat[k] for k in DEFAULTS} == DEFAULTS


def test_hook_config_reads_the_compiled_copy_and_ignores_junk(kb_repo: Path) -> None:
    cache = kb_repo / ".lorebook/.cache/config.json"
    cache.write_text(
        json.dumps(
            {"budgets": {"prompt_chars": 999, "prompt_ms": "fast"}, "recall": {"min_score": 1}}
        )
    )
    config = load_hook_config(str(kb_repo / ".lorebook"))
    assert (config.prompt_chars, config.prompt_ms, config.min_score) == (
        999,
        HookConfig().prompt_ms,
        1.0,
    )
    cache.write_text("{broken")
    assert load_hook_config(str(kb_repo / ".lorebook")).prompt_chars == 3000


def test_prompt_gets_the_matching_note_and_an_unrelated_prompt_nothing(
    kb: Path, fire: Fire
) -> None:
    out, log = fire("Prompt", {"prompt": "how do I run the pytest suite here?"})
    assert out is not None
    assert "Run tests with uv run pytest" in out["context"]
    assert "Never bare pytest: it misses the workspace." in out["context"]
    assert ".lorebook/nodes/convention/practice-use-uv.md" in out["context"]
    assert "Never push to main" not in out["context"]
    unrelated, _ = fire("Prompt", {"prompt": "what a lovely sunny afternoon for a picnic"})
    assert unrelated is None
    assert log == []


def test_a_note_whose_file_is_gone_is_not_served_before_the_index_catches_up(
    kb: Path, fire: Fire
) -> None:
    # seen after `git checkout` of a branch without the note: the prompt hook pointed the
    # model at .lorebook/nodes/... files that did not exist, until the next session start
    first, _ = fire("Prompt", {"prompt": "how do I run the pytest suite here?"})
    assert "Run tests with uv run pytest" in first["context"]
    (kb / ".lorebook/nodes/convention/practice-use-uv.md").unlink()
    gone, log = fire(
        "Prompt", {"prompt": "how do I run the pytest suite here?", "session_id": "s2"}
    )
    assert gone is None or "practice-use-uv" not in gone["context"]
    assert log == []


def test_a_note_is_not_injected_twice_in_one_session(kb: Path, fire: Fire) -> None:
    first, _ = fire("Prompt", {"prompt": "run pytest"})
    assert "Run tests with uv run pytest" in first["context"]
    again, _ = fire("Prompt", {"prompt": "run pytest again"})
    assert again is None
    other_session, _ = fire("Prompt", {"prompt": "run pytest", "session_id": "s2"})
    assert "Run tests with uv run pytest" in other_session["context"]
    fire("Start", {"source": "compact"})  # compaction forgets what the session was given
    after_compact, _ = fire("Prompt", {"prompt": "run pytest"})
    assert after_compact is not None


def test_only_active_notes_are_served(kb: Path, fire: Fire) -> None:
    out, _ = fire("Prompt", {"prompt": "which linter do we use? flake8?"})
    text = out["context"]
    assert "Lint with ruff linter only" in text  # the superseded note gives way to its successor
    assert "flake8" not in text
    # A refuted note is never served as a fact: at most as the warning that it is wrong.
    facts = text.replace("this was tried and is wrong: Sleep linter", "")
    assert "Sleep linter" not in facts


def test_deny_and_ask_before_a_command_runs(kb: Path, fire: Fire) -> None:
    denied, _ = fire(
        "Pre", {"tool_name": "Bash", "tool_input": {"command": "git push origin main"}}
    )
    assert denied["decision"] == "deny"
    assert "Never push to main" in denied["reason"]
    assert "Open a pull request." in denied["reason"]
    # the title is a sentence of its own: the description ("pushing") is not glued on
    first = denied["reason"].splitlines()[0]
    assert first == "lorebook: a project rule forbids this command: Never push to main."
    asked, _ = fire("Pre", {"tool_name": "Bash", "tool_input": {"command": "alembic upgrade head"}})
    assert asked["decision"] == "ask"
    warned, _ = fire("Pre", {"tool_name": "Bash", "tool_input": {"command": "pytest -q"}})
    assert warned["decision"] is None
    assert "Run tests with uv run pytest" in warned["context"]
    nothing, _ = fire("Pre", {"tool_name": "Bash", "tool_input": {"command": "ls -la"}})
    assert nothing is None
    # Deny is enforced every time, even when the note was shown before.
    again, _ = fire("Pre", {"tool_name": "Bash", "tool_input": {"command": "git push origin main"}})
    assert again["decision"] == "deny"


def test_file_anchors_and_error_anchors(kb: Path, fire: Fire) -> None:
    path = str(kb / "src/cache/redis/keys.py")
    out, _ = fire("Pre", {"tool_name": "Edit", "tool_input": {"file_path": path}})
    assert "Cache tags are shared across tenants" in out["context"]
    assert "src/cache/redis/keys.py" in out["context"]
    elsewhere, _ = fire(
        "Pre",
        {
            "tool_name": "Edit",
            "tool_input": {"file_path": str(kb / "src/app.py")},
            "session_id": "s3",
        },
    )
    assert elsewhere is None
    error, _ = fire(
        "Post",
        {"tool_name": "Bash", "error": "curl: (22) 504 Gateway Time-out", "session_id": "s4"},
    )
    assert "Cache tags are shared across tenants" in error["context"]
    ok, _ = fire("Post", {"tool_name": "Bash", "session_id": "s5"})
    assert ok is None


def test_rules_bootstrap_took_are_given_at_tool_events_on_the_files_they_name(
    kb_repo: Path, fire: Fire, cli: Any
) -> None:
    """A folder's own instructions (tests/AGENTS.md) bind its files; a file glob in a rule's
    sentence binds the files it names. Seen on a real project: neither reached an edit."""
    from tests.conftest import git

    (kb_repo / "tests").mkdir()
    (kb_repo / "AGENTS.md").write_text(
        "# Project\n\n## Workflows\n\nNever hand-edit a `*.lock.yml` file; the compiler "
        "writes it.\n"
    )
    (kb_repo / "tests/AGENTS.md").write_text(
        "# Tests\n\n## Practice\n\nNever reference line numbers in test docstrings or comments.\n"
    )
    (kb_repo / ".claude").mkdir()
    (kb_repo / ".claude/CLAUDE.md").write_text(
        "# Memory\n\n## Git\n\nNever push directly to the main branch of this repository.\n"
    )
    git(kb_repo, "add", "-A")
    git(kb_repo, "commit", "-qm", "instructions")
    assert cli("bootstrap", cwd=kb_repo).exit_code == 0
    pushed = next((kb_repo / ".lorebook/nodes").rglob("*never-push-directly*.md")).read_text()
    assert ".claude/**" not in pushed  # the project's memory, not its folder's
    git(kb_repo, "add", "-A")
    git(kb_repo, "commit", "-qm", "notes reviewed")
    test_file = {"file_path": str(kb_repo / "tests/test_api.py")}
    out, _ = fire("Pre", {"tool_name": "Edit", "tool_input": test_file})
    assert "Never reference line numbers" in out["context"]
    lock = {"file_path": str(kb_repo / ".github/workflows/ci.lock.yml"), "session_id": "s2"}
    locked, _ = fire("Pre", {"tool_name": "Edit", "tool_input": lock, "session_id": "s2"})
    assert "hand-edit" in locked["context"]
    app = {"file_path": str(kb_repo / "src/app.py")}
    elsewhere, _ = fire("Pre", {"tool_name": "Edit", "tool_input": app, "session_id": "s3"})
    assert elsewhere is None


def test_session_start_injects_entry_and_picks_up_new_notes(kb: Path, fire: Fire, cli: Any) -> None:
    cli("index", "rebuild", cwd=kb)
    cli("lint", cwd=kb)
    out, log = fire("Start", {"source": "startup"})
    assert "# Project knowledge base" in out["context"]
    assert "nodes_hash" not in out["context"]
    assert "lorebook status: 7 notes (1 refuted, 1 superseded, not served)" in out["context"]
    # A note that arrives by git pull (no lorebook writer involved) is found after the next start.
    (kb / ".lorebook/nodes/gotcha").mkdir(exist_ok=True)
    text = (kb / ".lorebook/nodes/convention/practice-use-uv.md").read_text()
    (kb / ".lorebook/nodes/gotcha/practice-pulled.md").write_text(
        text.replace("practice-use-uv", "practice-pulled").replace(
            "Run tests with uv run pytest", "Zebra crossings need xylophones"
        )
    )
    before, _ = fire("Prompt", {"prompt": "xylophones", "session_id": "s9"})
    assert before is None
    fire("Start", {"source": "startup", "session_id": "s9"})
    after, _ = fire("Prompt", {"prompt": "xylophones", "session_id": "s9"})
    assert "Zebra crossings need xylophones" in after["context"]
    assert log == []


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs and links are POSIX")
def test_a_committed_fifo_or_link_as_the_catalog_injects_nothing_and_never_hangs(
    kb: Path, fire: Fire, tmp_path_factory: pytest.TempPathFactory
) -> None:
    entry = kb / ".lorebook/ENTRY.md"
    entry.unlink(missing_ok=True)
    os.mkfifo(entry)  # what a pull request can commit: a reader without a writer blocks
    out, log = fire("Start", {"source": "startup"})
    assert out is None
    assert any("ENTRY.md not served" in line and "not a regular file" in line for line in log)
    entry.unlink()
    private = tmp_path_factory.mktemp("home") / "credentials"
    private.write_text("[default]\nthe private file of the user\n")
    entry.symlink_to(private)
    out, log = fire("Start", {"source": "startup"})
    assert out is None
    assert any("symbolic link; not served" in line for line in log)


@pytest.mark.parametrize(
    "payload",
    [
        b"",
        b"   ",
        b"garbage",
        b"[]",
        b'{"cwd": "/x"}',
        b'{"session_id": "s"}',
        '{"x": "\u00e9"}'.encode("latin-1"),
    ],
)
def test_bad_payloads_print_nothing_and_log_one_line(kb: Path, fire: Fire, payload: bytes) -> None:
    out, log = fire("Prompt", payload)
    assert out is None
    assert len(log) == 1
    assert " fake Prompt " in log[0]


def test_a_nul_in_the_payloads_cwd_is_refused_naming_the_field(kb: Path, fire: Fire) -> None:
    out, log = fire("Prompt", {"prompt": "pytest", "cwd": "/tmp/a\u0000b"})
    assert out is None
    assert len(log) == 1
    assert "the payload's cwd holds a NUL character" in log[0]


def test_unknown_harness_or_arguments_log_and_exit_0(kb: Path, fire: Fire) -> None:
    out, log = fire("Prompt", {"prompt": "x"}, argv=["vim", "Prompt"])
    assert out is None
    assert "not wired on this machine" in log[-1]
    out, log = fire("Prompt", {"prompt": "x"}, argv=["fake"])
    assert "expected arguments <harness> <event>" in log[-1]


def test_internal_sessions_do_nothing(
    kb: Path, fire: Fire, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LOREBOOK_INTERNAL", "1")
    out, log = fire("Prompt", b"garbage")
    assert out is None
    assert log == []


class LateClock:
    """The ``time`` module, but for a monotonic clock an hour ahead of the real one."""

    def __getattr__(self, name: str) -> Any:
        return getattr(time, name)

    @staticmethod
    def monotonic() -> float:
        return time.monotonic() + 3600


def test_a_blown_budget_injects_nothing_and_logs(
    kb: Path, fire: Fire, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The deadline's clock reads an hour on: the budget is spent however fast the machine
    (a 0 ms budget relied on the clock ticking between the start and the first check)."""
    cache = kb / ".lorebook/.cache/config.json"
    data = json.loads(cache.read_text())
    data["budgets"]["prompt_ms"] = 250
    cache.write_text(json.dumps(data))
    monkeypatch.setattr(stages, "time", LateClock())
    out, log = fire("Prompt", {"prompt": "run pytest"})
    assert out is None
    assert "BudgetExceeded: over the 250 ms budget" in log[-1]


def test_a_missing_index_logs_and_injects_nothing(kb: Path, fire: Fire) -> None:
    (kb / ".lorebook/.cache/index.sqlite").unlink()
    out, log = fire("Prompt", {"prompt": "run pytest"})
    assert out is None
    assert "no note index" in log[-1]


def test_the_hook_path_imports_nothing_heavy() -> None:
    """Measured: typing, dataclasses (inspect), pathlib and hashlib each cost the hook several
    ms; datetime (through sqlite3) and importlib about 2 ms together."""
    import subprocess

    from lorebook.fastpath.launcher import launcher_paths

    banned = (
        "typing",
        "dataclasses",
        "inspect",
        "pathlib",
        "hashlib",
        "pydantic",
        "yaml",
        "pluggy",
        "numpy",
        "datetime",  # sqlite3's Python layer brings it: the hook path uses recall.db
        "importlib",
        "contextlib",  # the index writer's bulk path takes it (nullcontext) when it writes
    )
    code = (
        f"import sys; sys.path[:0] = {launcher_paths({'fake': 'tests.core.fake_host_events'})!r}; "
        "import lorebook.hook, lorebook.inject.stages, lorebook.inject.session, "
        "lorebook.hookconfig, lorebook.recall.dense, lorebook.recall.pipeline; "
        f"print(sorted(m for m in sys.modules if m.split('.')[0] in {banned!r}))"
    )
    out = subprocess.run(
        [sys.executable, "-I", "-S", "-c", code], capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "[]"


def test_a_module_named_like_a_standard_one_beside_lorebook_does_not_break_the_hook(
    kb: Path, tmp_path: Path
) -> None:
    """The launcher puts its folders after the standard library's, as site would."""
    import subprocess

    from lorebook.fastpath.launcher import launcher_entry, launcher_paths

    shadow = tmp_path / "installed"
    shadow.mkdir()
    (shadow / "bisect.py").write_text("raise ImportError('not the standard bisect')\n")
    entry = kb / ".lorebook/bin/hook-shadowed.py"
    entry.parent.mkdir(parents=True, exist_ok=True)
    paths = [str(shadow), *launcher_paths(MODULES)]
    entry.write_text(launcher_entry(MODULES, paths), encoding="utf-8")
    payload = {"session_id": "s1", "cwd": str(kb), "prompt": "how do I run the pytest suite?"}
    out = subprocess.run(
        [sys.executable, "-I", "-S", str(entry), "fake", "Prompt"],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        check=True,
    )
    assert "Run tests with uv run pytest" in out.stdout


GC_PROBE_EVENTS = """
import gc, json, os
from lorebook.events import HookAnswer, HookEvent, HostOutput

LOG = os.path.join(os.path.dirname(__file__), "gc.log")

def note(where):
    with open(LOG, "a") as handle:
        handle.write(f"{where} {gc.isenabled()}\\n")

def parse_event(name, payload):
    note(name)
    return HookEvent(name={"Prompt": "prompt", "Stop": "stop"}[name], harness="gcprobe",
                     session_id=payload["session_id"], cwd=payload["cwd"],
                     prompt=payload.get("prompt"), transcript_ref=payload.get("transcript"),
                     host_event=name, raw=payload)

def render(event, answer):
    return HostOutput(stdout=json.dumps({"context": answer.context}).encode())
"""

GC_PROBE_TRANSCRIPT = """
from gcprobe.events import note

def transcript_end(ref):
    note("capture")
    return 0

def read_transcript(ref, start=0):
    return []
"""


def test_the_launcher_runs_the_fast_path_without_the_collector_and_capture_with_it(
    kb: Path, tmp_path: Path
) -> None:
    """Cyclic collection costs a prompt ~3 ms; a capture of a large transcript needs it."""
    import subprocess

    from lorebook.fastpath.launcher import launcher_entry, launcher_paths

    package = tmp_path / "plugins" / "gcprobe"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "events.py").write_text(GC_PROBE_EVENTS)
    (package / "transcript.py").write_text(GC_PROBE_TRANSCRIPT)
    modules = {"gcprobe": "gcprobe.events"}
    entry = kb / ".lorebook/bin/hook-probe.py"
    entry.parent.mkdir(parents=True, exist_ok=True)
    paths = [*launcher_paths(MODULES), str(package.parent)]
    entry.write_text(launcher_entry(modules, paths), encoding="utf-8")
    transcript = tmp_path / "session.jsonl"
    transcript.write_text("")
    for event, extra in (("Prompt", {"prompt": "how do I run the pytest suite?"}),
                         ("Stop", {"transcript": str(transcript)})):  # fmt: skip
        out = subprocess.run(
            [sys.executable, "-I", "-S", str(entry), "gcprobe", event],
            input=json.dumps({"session_id": "s1", "cwd": str(kb), **extra}),
            capture_output=True,
            text=True,
            check=True,
        )
        if event == "Prompt":
            assert "Run tests with uv run pytest" in out.stdout
    errors = kb / ".lorebook/_logs/hook-errors.log"
    assert not errors.exists(), errors.read_text()
    assert (package / "gc.log").read_text().split("\n") == [
        "Prompt False",
        "Stop False",
        "capture True",
        "",
    ]


def _prompt_in_a_fresh_interpreter(kb: Path, prompt: str) -> tuple[str, set[str]]:
    """(the hook's stdout, the lorebook modules it imported) for one prompt."""
    import subprocess

    from lorebook.fastpath.launcher import launcher_paths

    code = (
        f"import sys; sys.path[:0] = {launcher_paths(MODULES)!r}; "
        "from lorebook.hook import run; "
        f"rc = run(['fake', 'Prompt'], repo={str(kb)!r}, event_modules={MODULES!r}); "
        "print(rc, *sorted(m for m in sys.modules if m.startswith('lorebook')), file=sys.stderr)"
    )
    out = subprocess.run(
        [sys.executable, "-I", "-S", "-c", code],
        input=json.dumps({"session_id": "s1", "cwd": str(kb), "prompt": prompt}),
        capture_output=True,
        text=True,
        check=True,
    )
    rc, *modules = out.stderr.split()
    assert rc == "0"
    return out.stdout, set(modules)


def test_a_prompt_is_answered_without_importing_the_index_writer(kb: Path) -> None:
    """The prompt hook only reads the index: the writer (about 1 ms of imports) stays out;
    a prompt that matches nothing does not import the validity checks or the renderer."""
    answer, modules = _prompt_in_a_fresh_interpreter(kb, "how do I run the pytest suite?")
    assert "Run tests with uv run pytest" in answer  # the prompt was ranked and served
    assert {"lorebook.recall.index", "lorebook.validity.check", "lorebook.inject.render"} <= modules
    assert "lorebook.recall.writer" not in modules
    nothing, modules = _prompt_in_a_fresh_interpreter(kb, "a lovely sunny afternoon for a picnic")
    assert nothing == ""
    assert "lorebook.recall.index" in modules
    assert not modules & {
        "lorebook.recall.writer",
        "lorebook.validity.check",
        "lorebook.validity.fields",
        "lorebook.inject.render",
        "lorebook.inject.sanitize",
    }


def test_a_launcher_written_before_the_fast_path_package_still_answers(kb: Path) -> None:
    """A launcher of an older lorebook names hookclient, hookimport and hookserver: each
    import fails, and the event is answered in its own process; doctor says to run init."""
    import subprocess

    from lorebook.fastpath.launcher import launcher_entry, launcher_paths

    entry = launcher_entry(MODULES, launcher_paths(MODULES))
    old = (
        entry.replace("lorebook.fastpath.client", "lorebook.hookclient")
        .replace("lorebook.fastpath.finder", "lorebook.hookimport")
        .replace("lorebook.fastpath.server", "lorebook.hookserver")
        .replace("from lorebook.fastpath import after_event", "from lorebook.hookd import after")
    )
    assert "fastpath" not in old
    hook = kb / ".lorebook/bin/hook.py"
    hook.parent.mkdir(parents=True, exist_ok=True)
    hook.write_text(old, encoding="utf-8")
    payload = {"session_id": "s1", "cwd": str(kb), "prompt": "how do I run the pytest suite?"}
    out = subprocess.run(
        [sys.executable, "-I", "-S", str(hook), "fake", "Prompt"],
        input=json.dumps(payload), capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert "Run tests with uv run pytest" in out.stdout
    assert out.stderr == ""
    from lorebook.fastpath.launcher import launcher_outdated
    from lorebook.kb.paths import KBPaths

    said = launcher_outdated(KBPaths(kb))
    assert said is not None
    assert said.startswith(".lorebook/bin/hook.py was written by an older lorebook")
    hook.write_text(entry, encoding="utf-8")
    assert launcher_outdated(KBPaths(kb)) is None
