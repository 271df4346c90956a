"""Every command the README shows is one that works, exactly as written.

The ``sh`` blocks of "Using it in a repository" run for real in a fresh git repository;
each ``lorebook`` command of the command table and the prose exists with every option it
names; the install lines name members and extras that exist; the npm line is the one
``.ci/run`` runs; every script it names is there.
"""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest
import typer

from lorebook.cli.app import app
from tests.conftest import REPO_ROOT

README = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
ROOT: Any = typer.main.get_command(app)


def _blocks(section: str) -> list[list[str]]:
    """The shell commands of each ``sh`` block under a ``## section`` (continuations joined)."""
    body = re.search(rf"^## {re.escape(section)}\n(.*?)(?=^## |\Z)", README, re.M | re.S)
    assert body, f"README has no '## {section}'"
    blocks = []
    for block in re.findall(r"```sh\n(.*?)```", body.group(1), re.S):
        joined = block.replace("\\\n", " ")
        blocks.append([line for line in joined.splitlines() if line.strip()])
    return blocks


def _words(line: str) -> list[str]:
    """A command line without its trailing ``# comment``."""
    return shlex.split(line, comments=True)


def _lorebook_commands() -> list[list[str]]:
    """Every ``lorebook ...`` the README shows: in code blocks and in backticks."""
    found = []
    for block in re.findall(r"```sh\n(.*?)```", README, re.S):
        for line in block.replace("\\\n", " ").splitlines():
            if line.startswith("lorebook "):
                found.append(_words(line))
    for snippet in re.findall(r"`(lorebook [^`]+)`", README):
        found.append(snippet.replace("\\|", "|").split())
    table = re.search(r"^\| command \| what it does \|\n(.*?)\n\n", README, re.M | re.S)
    assert table, "README has no command table"
    for row in table.group(1).splitlines()[1:]:
        first_cell = re.split(r"(?<!\\)\|", row)[1]
        for shown in re.findall(r"`([^`]+)`", first_cell):
            found.append(["lorebook", *shown.replace("\\|", "|").split()])
    return [words for words in found if "<" not in words[1]]  # "lorebook <command> --help"


def _resolve(words: list[str]) -> tuple[Any, list[str]]:
    """The click command the words name, and the words after it."""
    command, rest = ROOT, words[1:]
    while rest and hasattr(command, "commands") and rest[0] in command.commands:
        command, rest = command.commands[rest[0]], rest[1:]
    return command, rest


def test_the_readme_shows_lorebook_commands() -> None:
    assert len(_lorebook_commands()) > 30


@pytest.mark.parametrize("words", _lorebook_commands(), ids=lambda w: " ".join(w)[:50])
def test_every_lorebook_command_shown_exists_with_its_options(words: list[str]) -> None:
    command, rest = _resolve(words)
    assert command is not ROOT or rest[:1] in (["--version"], ["--debug"], ["--help"]), words
    if hasattr(command, "commands"):  # a group named alone ("lorebook eval")
        return
    options = {opt for param in command.params for opt in param.opts}
    options |= {opt for param in ROOT.params for opt in param.opts}
    for word in rest:
        if word.startswith("--"):
            assert word.split("=")[0] in options, f"{' '.join(words)}: no option {word}"


def test_the_install_lines_name_members_and_extras_that_exist() -> None:
    lines = [line for block in _blocks("Using it in a repository") for line in block]
    installs = [line for line in lines if line.startswith(("pipx ", "uv ", "pip "))]
    assert {line.split()[0] for line in installs} == {"pipx", "uv", "pip"}
    core = tomllib.loads((REPO_ROOT / "core/pyproject.toml").read_text(encoding="utf-8"))
    extras = set(core["project"]["optional-dependencies"])
    for line in installs:
        for word in _words(line):
            if word.startswith("./"):
                member, _, extra = word.partition("[")
                assert (REPO_ROOT / member / "pyproject.toml").is_file(), word
                assert not extra or set(extra.rstrip("]").split(",")) <= extras, word


def test_the_npm_line_is_the_one_ci_runs() -> None:
    npm = re.search(r"`(npm install [^`]+)`", README)
    assert npm, "the README shows no npm install line"
    words = npm.group(1).split()
    assert "--no-save" in words
    ci = (REPO_ROOT / ".ci/run").read_text(encoding="utf-8")
    assert "--no-save" in ci
    pins = dict(re.findall(r"^([A-Z_]+_VERSION)=(\S+)$", ci, re.M))
    for package, variable in (("@anthropic-ai/claude-code", "CLAUDE_CODE_VERSION"),
                              ("@openai/codex", "CODEX_VERSION")):  # fmt: skip
        assert f"{package}@{pins[variable]}" in words, f"README pins {package} unlike .ci/run"


def test_every_script_the_readme_names_exists() -> None:
    named = set(re.findall(r"(?:\./)?((?:scripts|benchmarks|\.ci)/[\w./-]+\w)", README))
    assert {"scripts/demo", "scripts/test", "scripts/check_install.py"} <= named
    for rel in named:
        assert (REPO_ROOT / rel).exists(), f"README names {rel}, which does not exist"
    for script in ("scripts/demo", "scripts/test", ".ci/run"):
        assert (REPO_ROOT / script).stat().st_mode & 0o111, f"{script} is not executable"


def test_the_repository_block_runs_as_written(tmp_path: Path, lorebook_home: Path) -> None:
    blocks = _blocks("Using it in a repository")
    block = next(b for b in blocks if b[0].startswith("cd your-repo"))
    repo = tmp_path / "your-repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    env_git = ["-c", "user.name=t", "-c", "user.email=t@example.invalid"]
    for line in block[1:]:
        words = _words(line)
        argv: list[str] | str
        if words[0] == "lorebook":
            argv = [sys.executable, "-m", "lorebook", *words[1:]]
        else:
            argv = line.replace("git commit", f"git {' '.join(env_git)} commit")
        proc = subprocess.run(argv, cwd=repo, shell=isinstance(argv, str), capture_output=True,
                              text=True, check=False)  # fmt: skip
        assert proc.returncode == 0, f"{line}\n{proc.stdout}{proc.stderr}"
        if words[:2] == ["lorebook", "doctor"]:
            assert "action needed: trust the Codex hooks" in proc.stdout
    log = subprocess.run(["git", "log", "--oneline"], cwd=repo, capture_output=True, text=True)
    assert "Teach the assistant how we run tests" in log.stdout
