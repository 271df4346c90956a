"""Merging two branches that each added notes: no conflict in generated files, a clean lint."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from lorebook.gitmerge import DRIVER, GITATTRIBUTES, driver_problem
from tests.conftest import CliRunner, git

NODES = ".lorebook/nodes"


def _add(cli: CliRunner, repo: Path, title: str, kind: str, folder: str) -> None:
    result = cli(
        "note",
        "add",
        *("--title", title, "--description", f"When {title.lower()}", "--kind", kind),
        *("--folder", folder, "--body", f"{title}."),
        cwd=repo,
    )
    assert result.exit_code == 0, result.stderr


def _commit(cli: CliRunner, repo: Path, message: str) -> None:
    assert cli("index", "rebuild", cwd=repo).exit_code == 0
    git(repo, "add", ".lorebook")
    git(repo, "commit", "-qm", message)


def _markers(repo: Path) -> list[str]:
    """Every file in the working tree holding a conflict marker line."""
    found = []
    for path in sorted(repo.rglob("*")):
        if ".git" in path.relative_to(repo).parts or not path.is_file():
            continue
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
        if any(line.startswith(("<<<<<<<", ">>>>>>>", "=======")) for line in lines):
            found.append(path.relative_to(repo).as_posix())
    return found


def _merge(repo: Path, branch: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", "merge", "--no-edit", branch],
        cwd=repo,
        capture_output=True,
        text=True,
        check=False,
    )


@pytest.fixture
def branches(kb_repo: Path, cli: CliRunner) -> Path:
    """Two branches off one base, each adding notes (one folder both create) and a summary."""
    _add(cli, kb_repo, "Base rule", "convention", "convention")
    _commit(cli, kb_repo, "base")
    git(kb_repo, "checkout", "-q", "-b", "left")
    _add(cli, kb_repo, "Left rule", "convention", "convention")  # same folder as base
    _add(cli, kb_repo, "Left tool", "tooling", "tooling")  # a folder both branches create
    _add(cli, kb_repo, "Left gotcha", "gotcha", "left-only")
    assert cli("folder", "describe", "left-only", "What only the left knows.", cwd=kb_repo)
    _commit(cli, kb_repo, "left notes")
    git(kb_repo, "checkout", "-q", "-")
    git(kb_repo, "checkout", "-q", "-b", "right")
    _add(cli, kb_repo, "Right rule", "convention", "convention")
    _add(cli, kb_repo, "Right tool", "tooling", "tooling")
    assert cli("folder", "describe", "tooling", "Tools we use.", cwd=kb_repo)
    _commit(cli, kb_repo, "right notes")
    return kb_repo


def _both_listed(repo: Path) -> None:
    entry = (repo / ".lorebook/ENTRY.md").read_text()
    assert "6 notes in `.lorebook/nodes/`" in entry
    assert "- [convention/](nodes/convention/index.md): 3 notes." in entry
    assert "- [left-only/](nodes/left-only/index.md): 1 note. What only the left knows." in entry
    assert "- [tooling/](nodes/tooling/index.md): 2 notes. Tools we use." in entry
    convention = (repo / NODES / "convention/index.md").read_text()
    tooling = (repo / NODES / "tooling/index.md").read_text()
    for title in ("Base rule", "Left rule", "Right rule"):
        assert f"[{title}]" in convention
    for title in ("Left tool", "Right tool"):
        assert f"[{title}]" in tooling


def test_init_writes_gitattributes_and_this_clones_merge_driver(
    kb_repo: Path, cli: CliRunner
) -> None:
    assert (kb_repo / ".lorebook/.gitattributes").read_text() == GITATTRIBUTES
    assert git(kb_repo, "config", "--get", f"merge.{DRIVER}.driver").strip() == "true"
    attrs = git(kb_repo, "check-attr", "merge", "--", ".lorebook/ENTRY.md", f"{NODES}/x/index.md")
    assert attrs.count(f"merge: {DRIVER}") == 2
    summaries = git(kb_repo, "check-attr", "merge", "--", ".lorebook/FOLDER_SUMMARIES.md")
    assert summaries.strip().endswith("merge: union")
    notes = git(kb_repo, "check-attr", "merge", "--", f"{NODES}/x/practice-a.md")
    assert notes.strip().endswith("merge: unspecified")
    assert driver_problem(kb_repo) is None

    git(kb_repo, "config", "--unset", f"merge.{DRIVER}.driver")
    problem = driver_problem(kb_repo)
    assert problem is not None
    assert f"merge.{DRIVER}.driver is not defined" in problem
    result = cli("init", "--json", cwd=kb_repo)
    assert f"set git config merge.{DRIVER}.driver (this clone)" in result.json()["notes"]
    assert driver_problem(kb_repo) is None
    assert cli("init", "--json", cwd=kb_repo).json()["changed"] == []


def test_merging_two_branches_that_added_notes_leaves_no_conflict(
    branches: Path, cli: CliRunner
) -> None:
    merged = _merge(branches, "left")
    assert merged.returncode == 0, merged.stdout + merged.stderr
    assert _markers(branches) == []
    assert git(branches, "diff", "--name-only", "--diff-filter=U") == ""
    # The generated files kept this branch's copy: stale until regenerated, and lint says so.
    stale = cli("lint", "--json", cwd=branches).json()
    assert {f["code"] for f in stale["findings"] if f["severity"] == "error"} == {"stale-generated"}

    assert cli("index", "rebuild", cwd=branches).exit_code == 0
    lint = cli("lint", cwd=branches)
    assert lint.exit_code == 0, lint.stdout
    _both_listed(branches)
    summaries = (branches / ".lorebook/FOLDER_SUMMARIES.md").read_text()
    # a union keeps both branches' lines (in the order git merged them; both are read)
    assert "- `left-only`: What only the left knows.\n" in summaries
    assert "- `tooling`: Tools we use.\n" in summaries
    git(branches, "commit", "-qam", "Regenerate the indexes after the merge")
    assert git(branches, "status", "--porcelain") == ""


def test_a_clone_without_the_driver_resolves_by_rebuilding(branches: Path, cli: CliRunner) -> None:
    git(branches, "config", "--remove-section", f"merge.{DRIVER}")  # as in a fresh clone
    assert driver_problem(branches) is not None
    merged = _merge(branches, "left")
    assert merged.returncode == 1
    conflicted = git(branches, "diff", "--name-only", "--diff-filter=U").split()
    assert conflicted  # git's text merge conflicts, in generated files only
    assert all(
        path in (".lorebook/ENTRY.md", ".lorebook/GRAPH.md") or path.endswith("/index.md")
        for path in conflicted
    ), conflicted
    assert cli("index", "rebuild", cwd=branches).exit_code == 0
    assert _markers(branches) == []
    git(branches, "add", ".lorebook")
    git(branches, "commit", "-q", "--no-edit")
    assert cli("lint", cwd=branches).exit_code == 0
    _both_listed(branches)


def test_two_summaries_of_one_folder_are_kept_for_lint_to_report(
    kb_repo: Path, cli: CliRunner
) -> None:
    _add(cli, kb_repo, "Base tool", "tooling", "tooling")
    _commit(cli, kb_repo, "base")
    git(kb_repo, "checkout", "-q", "-b", "left")
    cli("folder", "describe", "tooling", "Tools, the left way.", cwd=kb_repo)
    _commit(cli, kb_repo, "left")
    git(kb_repo, "checkout", "-q", "-")
    cli("folder", "describe", "tooling", "Tools, the right way.", cwd=kb_repo)
    _commit(cli, kb_repo, "right")
    assert _merge(kb_repo, "left").returncode == 0
    assert _markers(kb_repo) == []
    lint = cli("lint", cwd=kb_repo)
    assert lint.exit_code == 1
    assert "folder 'tooling' is summarised twice" in lint.stdout
    # what to do about it, not only what is wrong (every writer refuses until it is mended)
    added = cli("note", "add", "--kind", "tooling", "--title", "Use uv for tools",
                "--description", "installing tools", "--body", "uv tool install", cwd=kb_repo)  # fmt: skip
    assert "keep one of the two lines in .lorebook/FOLDER_SUMMARIES.md" in added.stderr
