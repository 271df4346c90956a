"""Every command, given bad input, fails in a line or two: never a traceback.

The sweep finds the commands in the app itself, so a command added later is walked too:
each runs with placeholder values for what it requires, outside any knowledge base, in one
whose config.yaml is broken, in one with an unreadable note, and with a full disk and a
read-only file system. Then specific bad inputs check the message names the file, field
or value.
"""

from __future__ import annotations

import builtins
import enum
import errno
import os
from pathlib import Path
from typing import Any

import pytest
import typer

from lorebook.cli.app import app
from tests.conftest import CliRunner, Result


def _commands(group: Any, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    found = []
    for name, command in sorted(group.commands.items()):
        if hasattr(command, "commands"):  # a group (typer may carry its own copy of click)
            found += _commands(command, (*prefix, name))
        else:
            found.append((*prefix, name))
    return found


ROOT: Any = typer.main.get_command(app)
COMMANDS = _commands(ROOT)


def _first_choice(param: Any) -> str | None:
    """A valid value of a choice parameter (click's Choice, or typer's enum annotation)."""
    choices = getattr(getattr(param, "type", None), "choices", None)
    if choices:
        return str(next(iter(choices)))
    annotation = getattr(getattr(param, "type_descriptor", None), "annotation", None)
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        return str(next(iter(annotation)).value)
    return None


def _placeholders(path: tuple[str, ...]) -> list[str]:
    """The command with a placeholder for every required argument and option."""
    command: Any = ROOT
    for name in path:
        command = command.commands[name]
    args: list[str] = list(path)
    for param in command.params:
        if not param.required:
            continue
        value = _first_choice(param) or "nope"
        if param.param_type_name == "option":
            args += [param.opts[0], str(value)]
        else:
            args.append(str(value))
    return args


def _no_traceback(result: Result, args: list[str]) -> None:
    shown = " ".join(args)
    assert "Traceback" not in result.stderr + result.stdout, f"lorebook {shown}: {result.stderr}"
    assert "internal error" not in result.stderr, f"lorebook {shown}: {result.stderr}"
    assert result.exit_code in (0, 1, 2), f"lorebook {shown} exited {result.exit_code}"
    if result.exit_code == 1 and result.stderr.startswith("lorebook: error:"):
        error = result.stderr.split("lorebook: error:")[1]
        assert error.strip(), f"lorebook {shown}: an empty error"


def test_the_sweep_sees_every_command() -> None:
    names = {" ".join(c) for c in COMMANDS}
    assert {"init", "import", "note add", "index rebuild", "doctor", "eval retrieval"} <= names


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_every_command_outside_a_knowledge_base(
    command: tuple[str, ...], tmp_path: Path, cli: CliRunner
) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    args = _placeholders(command)
    if command == ("init",):
        return  # init creates the knowledge base; it is walked in the broken ones below
    _no_traceback(cli(*args, cwd=empty), args)


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_every_command_with_a_broken_config_or_note(
    command: tuple[str, ...], kb_repo: Path, cli: CliRunner
) -> None:
    args = _placeholders(command)
    config = kb_repo / ".lorebook/config.yaml"
    good = config.read_text()
    config.write_text("budgets: {entry_chars: lots}\nnot_a_key: 1\n")
    _no_traceback(cli(*args, cwd=kb_repo), args)
    config.write_text(good)
    broken = kb_repo / ".lorebook/nodes/gotcha/practice-broken.md"
    broken.parent.mkdir(parents=True, exist_ok=True)
    broken.write_bytes(b"---\ntitle: [unclosed\n---\n\xff\xfe body")
    _no_traceback(cli(*args, cwd=kb_repo), args)


def _refuse_writes(monkeypatch: pytest.MonkeyPatch, root: Path, code: int) -> None:
    """Make every write under ``root`` fail as a full disk or a read-only mount would."""
    real_open, real_mkdir = builtins.open, os.mkdir
    reason = os.strerror(code)

    def inside(path: Any) -> bool:
        try:
            return Path(os.fsdecode(path)).resolve().is_relative_to(root)
        except (TypeError, ValueError):
            return False

    def fake_open(file: Any, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
        if any(m in mode for m in "wax+") and inside(file):
            raise OSError(code, reason, os.fsdecode(file))
        return real_open(file, mode, *args, **kwargs)

    def fake_mkdir(path: Any, *args: Any, **kwargs: Any) -> None:
        if inside(path) and not Path(path).exists():
            raise OSError(code, reason, os.fsdecode(path))
        real_mkdir(path, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", fake_open)
    monkeypatch.setattr(os, "mkdir", fake_mkdir)


WRITERS = [
    ["note", "add", "--title", "T", "--description", "D", "--kind", "gotcha"],
    ["index", "rebuild"],
    ["folder", "describe", "gotcha", "Gotchas."],
    ["init", "--harnesses", "claude"],
    ["lint"],
]


@pytest.mark.parametrize("code", [errno.ENOSPC, errno.EROFS, errno.EACCES], ids=errno.errorcode.get)
@pytest.mark.parametrize("args", WRITERS, ids=" ".join)
def test_a_full_disk_or_read_only_folder_is_one_message(
    args: list[str], code: int, kb_repo: Path, cli: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    if args[0] == "folder":
        (kb_repo / ".lorebook/nodes" / args[2]).mkdir(parents=True)  # it describes one that is
    _refuse_writes(monkeypatch, (kb_repo / ".lorebook").resolve(), code)
    result = cli(*args, cwd=kb_repo)
    _no_traceback(result, args)
    if result.exit_code == 1:
        lines = result.stderr.strip().splitlines()
        assert 1 <= len(lines) <= 2, result.stderr
        assert os.strerror(code) in lines[0]
        assert ".lorebook/" in lines[0]  # the file is named


SESSION = Path(__file__).resolve().parents[2] / "scripts/demo_sessions/01-tests-and-billing.jsonl"

CASES = [
    (["import", "missing.jsonl"], "missing.jsonl: no such file"),
    (["import", "."], "a folder with no transcript files in it"),
    (["import", "--format", "bogus", str(SESSION)], "unknown import format 'bogus'"),
    (["capture", "--harness", "claude", "--session", "s", "--transcript", "gone.jsonl"],
     "gone.jsonl"),
    (["forget-session", "typo"], "session 'typo'"),
    (["scan", "gone.txt"], "gone.txt: no such file"),
    (["extract", "--extractor", "nope"], "unknown extractor 'nope'"),
    (["curate", "--curator", "nope"], "unknown curator 'nope'"),
    (["review", "--reject", "nodes/none.md"], "none.md"),
    (["conflict", "resolve", "nope", "--decision", "accept"], "no conflict 'nope'"),
    (["note", "show", "nope"], "no note with id 'nope'"),
    (["note", "add", "--title", " ", "--description", "d", "--kind", "gotcha"], "--title"),
    (["note", "add", "--title", "T", "--description", "d", "--kind", "bogus"], "--kind: "),
    (["note", "add", "--title", "T", "--description", "", "--kind", "gotcha"],
     "--description: must be one line of text, not empty"),
    (["note", "supersede", "practice-a", "practice-b"], "'practice-a' is not a note"),
    (["note", "refute", "practice-a", "--why", "x"], "'practice-a' is not a note"),
    (["folder", "describe", "../up", "x"], "'..'"),
    (["init", "--harnesses", "gemini"], "unknown harness 'gemini'"),
    (["uninstall", "--harnesses", "gemini"], "unknown harness 'gemini'"),
    (["eval", "retrieval", "--notes", "gone", "--queries", "gone.jsonl"], "gone"),
]  # fmt: skip


USAGE = ("--format", "--extractor", "--curator", "--harnesses")
"""Options whose bad value is a usage error: exit 2 (test_usage_exit_codes.py has more).

So is every bad field of `note add`: each comes from the command line."""


@pytest.mark.parametrize(("args", "expected"), CASES, ids=lambda v: " ".join(v)[:40])
def test_bad_input_is_named_in_one_or_two_lines(
    args: list[str], expected: str, kb_repo: Path, cli: CliRunner
) -> None:
    result = cli(*args, cwd=kb_repo)
    _no_traceback(result, args)
    code = 2 if set(USAGE) & set(args) or args[:2] == ["note", "add"] else 1
    assert result.exit_code == code, result.stdout + result.stderr
    lines = result.stderr.strip().splitlines()
    assert lines[0].startswith("lorebook: error: "), result.stderr
    assert 1 <= len(lines) <= 2, result.stderr
    assert expected in result.stderr


def test_a_multi_file_import_stages_nothing_when_one_file_is_bad(
    kb_repo: Path, cli: CliRunner
) -> None:
    result = cli("import", str(SESSION), "missing.jsonl", cwd=kb_repo)
    assert result.exit_code == 1
    sessions = kb_repo / ".lorebook/_sessions"
    assert not sessions.exists() or not any(sessions.iterdir())


def test_debug_shows_the_traceback(kb_repo: Path) -> None:
    import subprocess
    import sys

    (kb_repo / ".lorebook/config.yaml").write_text("")
    plain = subprocess.run([sys.executable, "-m", "lorebook", "status"], cwd=kb_repo,
                           capture_output=True, text=True, check=False)  # fmt: skip
    assert plain.returncode == 1
    assert "Traceback" not in plain.stderr
    debug = subprocess.run([sys.executable, "-m", "lorebook", "--debug", "status"], cwd=kb_repo,
                           capture_output=True, text=True, check=False)  # fmt: skip
    assert debug.returncode == 1
    assert "Traceback (most recent call last)" in debug.stderr
    assert "ConfigError" in debug.stderr
