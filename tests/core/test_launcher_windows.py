"""The Windows form of the hook launcher: hook.cmd runs the interpreter, named directly."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from lorebook.fastpath import launcher
from lorebook.kb.paths import KBPaths


def windows_argv(line: str) -> list[str]:
    """Split a command line as the Microsoft C runtime (CommandLineToArgvW) does."""
    args: list[str] = []
    current: list[str] = []
    quoted = in_arg = False
    i = 0
    while i < len(line):
        char = line[i]
        if char == "\\":
            run = len(line[i:]) - len(line[i:].lstrip("\\"))
            if i + run < len(line) and line[i + run] == '"':
                current += ["\\"] * (run // 2)
                if run % 2:
                    current.append('"')
                    i += run + 1
                    continue
                i += run
                continue
            current += ["\\"] * run
            i += run
            in_arg = True
            continue
        if char == '"':
            quoted = not quoted
            in_arg = True
        elif char in " \t" and not quoted:
            if in_arg:
                args.append("".join(current))
                current, in_arg = [], False
        else:
            current.append(char)
            in_arg = True
        i += 1
    if in_arg:
        args.append("".join(current))
    return args


def test_the_splitter_agrees_with_python_s_own_windows_quoting() -> None:
    argv = ["C:\\Program Files\\Python 3.12\\python.exe", "-I", 'say "hi"', "a\\\\b\\"]
    assert windows_argv(subprocess.list2cmdline(argv)) == argv


@pytest.mark.parametrize(
    "python",
    ["C:\\Program Files\\Python312\\python.exe", "D:\\100%\\venv\\Scripts\\python.exe"],
)
def test_hook_cmd_runs_the_interpreter_on_hook_py_with_all_arguments(
    python: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "executable", python)
    files = launcher._launcher_files("ENTRY", windows=True)
    assert sorted(files) == ["hook.cmd", "hook.py"]
    cmd = files["hook.cmd"]
    assert cmd.startswith("@echo off\r\n")
    assert cmd.endswith("\r\n")
    last = cmd.splitlines()[-1]
    # cmd.exe first expands %%, %~dp0 and %*; then the C runtime splits the line
    expanded = last.replace("%~dp0", "C:\\work\\repo\\.lorebook\\bin\\").replace("%*", "codex Stop")
    expanded = expanded.replace("%%", "%")
    assert windows_argv(expanded) == [
        python, "-I", "-S", "C:\\work\\repo\\.lorebook\\bin\\hook.py", "codex", "Stop",
    ]  # fmt: skip


def test_windows_launcher_is_written_checked_and_removed(kb_repo: Path) -> None:
    paths = KBPaths(kb_repo)
    written = launcher.write_launcher(paths, {}, windows=True)
    assert written == [".lorebook/bin/hook.py", ".lorebook/bin/hook.cmd"]
    assert not (paths.bin / "hook").exists()
    assert (paths.bin / "hook.cmd").read_bytes().count(b"\r\n") == 3
    assert launcher.launcher_problem(paths, windows=True) is None
    assert launcher.write_launcher(paths, {}, windows=True) == []  # idempotent
    text = (paths.bin / "hook.cmd").read_text().replace(sys.executable, "C:\\gone\\python.exe")
    (paths.bin / "hook.cmd").write_text(text)
    assert "no longer exists (C:\\gone\\python.exe)" in str(
        launcher.launcher_problem(paths, windows=True)
    )
    assert launcher.remove_launcher(paths) == [".lorebook/bin/hook.py", ".lorebook/bin/hook.cmd"]
