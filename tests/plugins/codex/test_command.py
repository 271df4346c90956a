"""The committed hook command, run the way Codex runs it: ``$SHELL -lc <command>`` in the
session's working directory, the payload on stdin.

The real client ran it too (fixtures/README.md: every recorded payload came from a session
started in a subfolder, with the hooks trusted and no bypass flag).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from lorebook_codex.hooks_file import HOOKS, hook_command

EXPECTED = (
    'sh -c \'d="$PWD"; while [ -n "$d" ]; do [ -x "$d/.lorebook/bin/hook" ] && exec '
    '"$d/.lorebook/bin/hook" codex Stop; [ -e "$d/.git" ] && exit 0; d="${d%/*}"; done; '
    "exit 0'"
)
SHELLS = [name for name in ("bash", "dash", "zsh", "fish") if shutil.which(name)]

STAND_IN = """#!/bin/sh
printf '%s\\n' "$*" > "$(dirname "$0")/argv"
pwd > "$(dirname "$0")/cwd"
cat > "$(dirname "$0")/stdin"
printf '{"ran": true}'
"""


def _repo(tmp_path: Path, *, launcher: bool = True) -> Path:
    repo = tmp_path / "repo"
    (repo / "src" / "pkg" / "deep").mkdir(parents=True)
    (repo / ".git").mkdir()
    if launcher:
        hook = repo / ".lorebook" / "bin" / "hook"
        hook.parent.mkdir(parents=True)
        hook.write_text(STAND_IN, encoding="utf-8")
        hook.chmod(0o755)
    return repo


def _run(
    command: str, cwd: Path, shell: str = "bash", stdin: bytes = b'{"a": 1}'
) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "PWD": str(cwd)}
    return subprocess.run(
        [shutil.which(shell) or shell, "-lc", command],
        cwd=cwd,
        input=stdin,
        env=env,
        capture_output=True,
        timeout=30,
        check=False,
    )


def test_the_committed_command_is_one_fixed_string() -> None:
    assert hook_command("Stop") == EXPECTED
    for event, _, _ in HOOKS:
        command = hook_command(event)
        assert command == EXPECTED.replace("codex Stop;", f"codex {event};")
        # Single quotes around a script without backslash or "!": the same text in sh,
        # bash, zsh and fish (Codex runs it with the user's login shell).
        assert "\\" not in command
        assert "!" not in command
        assert command.count("'") == 2


@pytest.mark.parametrize("shell", SHELLS)
@pytest.mark.parametrize("where", [".", "src", "src/pkg/deep"])
def test_it_finds_the_launcher_from_any_folder_and_passes_stdin(
    tmp_path: Path, shell: str, where: str
) -> None:
    repo = _repo(tmp_path)
    cwd = repo / where
    payload = json.dumps({"session_id": "s", "cwd": str(cwd), "prompt": "é ✓"}).encode()
    proc = _run(hook_command("UserPromptSubmit"), cwd, shell, payload)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, b'{"ran": true}', b"")
    bin_dir = repo / ".lorebook" / "bin"
    assert (bin_dir / "argv").read_text() == "codex UserPromptSubmit\n"
    assert (bin_dir / "cwd").read_text().strip() == str(cwd.resolve())
    assert (bin_dir / "stdin").read_bytes() == payload


@pytest.mark.parametrize("shell", SHELLS)
def test_without_a_launcher_it_exits_0_silently(tmp_path: Path, shell: str) -> None:
    repo = _repo(tmp_path, launcher=False)
    for cwd in (repo, repo / "src" / "pkg"):
        proc = _run(hook_command("SessionStart"), cwd, shell)
        assert (proc.returncode, proc.stdout, proc.stderr) == (0, b"", b"")


def test_a_launcher_that_is_not_executable_is_skipped(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    (repo / ".lorebook" / "bin" / "hook").chmod(0o644)
    proc = _run(hook_command("Stop"), repo / "src")
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, b"", b"")


def test_it_never_runs_the_launcher_of_an_enclosing_repository(tmp_path: Path) -> None:
    outer = _repo(tmp_path)
    inner = outer / "vendor" / "inner"
    (inner / "lib").mkdir(parents=True)
    (inner / ".git").write_text("gitdir: ../../.git/modules/inner\n")  # a submodule
    proc = _run(hook_command("Stop"), inner / "lib")
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, b"", b"")
    assert not (outer / ".lorebook" / "bin" / "argv").exists()


def test_the_launchers_exit_code_and_output_pass_through(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    hook = repo / ".lorebook" / "bin" / "hook"
    hook.write_text("#!/bin/sh\ncat >/dev/null\necho out\necho err >&2\nexit 0\n")
    proc = _run(hook_command("PreToolUse"), repo / "src")
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, b"out\n", b"err\n")


def test_a_path_with_spaces_and_quotes_works(tmp_path: Path) -> None:
    repo = _repo(tmp_path / "my 'odd' $dir")
    proc = _run(hook_command("Stop"), repo / "src")
    assert (proc.returncode, proc.stdout) == (0, b'{"ran": true}')
