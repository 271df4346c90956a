"""The scripted newcomer trial: a fresh clone, the README's two commands, then a real repository.

A new user clones lorebook, runs ``./scripts/demo`` and ``./scripts/test`` (the README's
only set-up commands; here with a narrow pytest selection, since this test is itself in the
suite), then wires a small project of their own that already has hooks of its own: ``init``
keeps them, ``note add`` leaves ``lint`` clean, ``doctor`` exits 0 saying what is left to do
by hand, and bad input to the commands they reach for first is one message, never a
traceback. Everything runs from the clone's own ``.venv``, installed from
``constraints.txt`` by the scripts (the package registry is needed). It clones what is
committed, so it also fails when a commit leaves out a module another one imports.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT

pytestmark = pytest.mark.slow

GIT_ENV = {"GIT_AUTHOR_NAME": "new", "GIT_AUTHOR_EMAIL": "new@example.invalid",
           "GIT_COMMITTER_NAME": "new", "GIT_COMMITTER_EMAIL": "new@example.invalid"}  # fmt: skip


def _run(argv: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, check=False)


def _project(root: Path, env: dict[str, str]) -> Path:
    """A small Python CLI nobody here wrote, with Claude Code hooks and a git hook of its own."""
    project = root / "tinycli"
    (project / "src/tinycli").mkdir(parents=True)
    (project / "src/tinycli/__main__.py").write_text("print('hello')\n")
    (project / "README.md").write_text("# tinycli\n\nRun `python -m tinycli`.\n")
    (project / "CLAUDE.md").write_text("# tinycli\n\nBe brief.")  # no final newline
    (project / ".claude").mkdir()
    own = {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": "echo checked >> /dev/null"}]}]}}  # fmt: skip
    (project / ".claude/settings.json").write_text(json.dumps(own, indent=2) + "\n")
    _run(["git", "init", "-q"], project, env)
    (project / ".git/hooks/pre-commit").write_text("#!/bin/sh\nexit 0\n")
    _run(["git", "add", "-A"], project, env)
    assert _run(["git", "commit", "-qm", "tinycli"], project, env).returncode == 0
    return project


def test_a_newcomer_gets_from_a_fresh_clone_to_a_clean_knowledge_base(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    # a fresh home (no Codex config, no Claude memory), but pip's cache stays where it was
    env.setdefault("PIP_CACHE_DIR", str(Path.home() / ".cache/pip"))
    env.update(GIT_ENV, HOME=str(tmp_path / "home"), CODEX_HOME=str(tmp_path / "home/.codex"))
    clone = tmp_path / "lorebook"
    assert _run(["git", "clone", "-q", str(REPO_ROOT), str(clone)], tmp_path, env).returncode == 0

    demo = _run(["./scripts/demo"], clone, env)
    assert demo.returncode == 0, demo.stdout[-3000:] + demo.stderr[-3000:]
    assert "conflict" in demo.stdout
    tests = _run(["./scripts/test", "-q", "-p", "no:cacheprovider",
                  "tests/core/test_dependencies.py"], clone, env)  # fmt: skip
    assert tests.returncode == 0, tests.stdout[-3000:] + tests.stderr[-3000:]
    assert " passed" in tests.stdout

    lorebook = [str(clone / ".venv/bin/lorebook")]
    project = _project(tmp_path, env)
    init = _run([*lorebook, "init", "--harnesses", "claude,codex"], project, env)
    assert init.returncode == 0, init.stderr
    settings = json.loads((project / ".claude/settings.json").read_text())
    assert settings["hooks"]["PreToolUse"][0]["hooks"][0]["command"] == "echo checked >> /dev/null"
    assert (project / ".git/hooks/pre-commit").read_text() == "#!/bin/sh\nexit 0\n"

    note = ["note", "add", "--title", "Run tinycli with python -m", "--description",
            "Running the tool", "--kind", "tooling", "--body", "Always `python -m tinycli`."]  # fmt: skip
    assert _run([*lorebook, *note], project, env).returncode == 0
    lint = _run([*lorebook, "lint"], project, env)
    assert lint.returncode == 0, lint.stdout
    doctor = _run([*lorebook, "doctor"], project, env)
    assert doctor.returncode == 0, doctor.stdout
    assert "action needed: trust the Codex hooks" in doctor.stdout.splitlines()[-1]

    # item 9: a note's id says its kind, not practice- whatever the kind
    assert (project / ".lorebook/nodes/tooling/tooling-run-tinycli-with-python-m.md").is_file()
    kinded = ["note", "add", "--title", "Never print secrets", "--description", "Logging",
              "--kind", "prohibition", "--body", "No."]  # fmt: skip
    assert _run([*lorebook, *kinded], project, env).returncode == 0
    assert (project / ".lorebook/nodes/prohibition/prohibition-never-print-secrets.md").is_file()
    # item 11: a mark from this plain shell is its own session, and curate takes it
    marked = _run([*lorebook, "mark", "--kind", "gotcha", "Run tinycli from the repo root."],
                  project, env)  # fmt: skip
    assert "staged under a session of its own" in marked.stdout, marked.stderr
    curate = _run([*lorebook, "curate"], project, env)
    assert curate.returncode == 0, curate.stderr
    assert "nothing to curate" not in curate.stdout
    # item 3: a broken note is named by doctor and status
    broken = project / ".lorebook/nodes/tooling/practice-broken.md"
    broken.write_text("---\ntitle: [unclosed\n---\nbody\n")
    for command in ("doctor", "status"):
        said = _run([*lorebook, command], project, env)
        assert "1 note is invalid: " in said.stdout + said.stderr, (command, said.stdout)
    broken.unlink()

    bad = [
        ["import", "missing.jsonl"],
        ["note", "add", "--title", "X", "--description", "d", "--kind", "wrong"],
        ["note", "add", *note[2:], "--relates-to", "practice-nothing-here"],
        ["review", "--reject", "nodes/none.md"],
        ["forget-session", "typo"],
        ["schema", "nope"],
        ["capture", "--harness", "gemini", "--session", "s", "--transcript", "t"],
    ]
    for args in bad:
        result = _run([*lorebook, *args], project, env)
        assert result.returncode in (1, 2), (args, result.stdout, result.stderr)
        assert "Traceback" not in result.stderr, (args, result.stderr)
        if result.returncode == 1:
            assert result.stderr.startswith("lorebook: error: "), (args, result.stderr)
            assert len(result.stderr.strip().splitlines()) <= 2, (args, result.stderr)

    # item 8: uninstall gives back what init found and says what it removed
    gone = _run([*lorebook, "uninstall"], project, env)
    assert gone.returncode == 0, gone.stderr
    assert "  removed .claude/settings.json" not in gone.stdout  # the user's own file stays
    assert "  changed CLAUDE.md" in gone.stdout.splitlines()
    assert (project / "CLAUDE.md").read_text() == "# tinycli\n\nBe brief."
    assert not (project / ".lorebook/bin").exists()
    assert json.loads((project / ".claude/settings.json").read_text()) == {"hooks": {
        "PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "command", "command": "echo checked >> /dev/null"}]}]}}  # fmt: skip
