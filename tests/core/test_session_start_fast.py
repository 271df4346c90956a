"""Session start costs one stat per folder when nothing changed, and still sees a git pull."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from lorebook.kb.store import MarkdownStore
from lorebook.recall.freshness import unchanged
from lorebook.recall.index import NoteIndex, index_path
from lorebook.testing import make_note
from tests.conftest import CliRunner

HEAVY = ("pydantic", "yaml", "pluggy", "typer")


def start(repo: Path, session: str) -> tuple[str, set[str]]:
    """Fire Claude Code's SessionStart through the installed launcher; (context, heavy imports)."""
    payload = {"session_id": session, "cwd": str(repo), "hook_event_name": "SessionStart"}
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-I", "-S", str(repo / ".lorebook/bin/hook"),
         "claude", "SessionStart"],
        input=json.dumps({**payload, "source": "startup"}).encode(), capture_output=True,
        cwd=repo, check=True,
    )  # fmt: skip
    imported = {
        line.split("|")[-1].strip().split(".")[0]
        for line in proc.stderr.decode().splitlines()
        if line.startswith("import time:")
    }
    answer = json.loads(proc.stdout) if proc.stdout.strip() else {}
    context = answer.get("hookSpecificOutput", {}).get("additionalContext", "")
    return context, imported & set(HEAVY)


def test_nothing_changed_means_no_walk_and_no_heavy_import(kb_repo: Path, cli: CliRunner) -> None:
    assert cli("init", "--harnesses", "claude", cwd=kb_repo).exit_code == 0
    MarkdownStore(kb_repo).add(make_note("use-uv", title="Run tests with uv run pytest"))
    assert cli("index", "rebuild", cwd=kb_repo).exit_code == 0
    nodes = kb_repo / ".lorebook" / "nodes"
    assert unchanged(index_path(str(kb_repo / ".lorebook")), str(nodes))
    context, heavy = start(kb_repo, "s1")
    assert "lorebook status: 1 note" in context
    assert heavy == set()

    # A note that arrives with a git pull lands in a folder whose time changes.
    pulled = nodes / "gotcha"
    pulled.mkdir(exist_ok=True)
    text = next(nodes.rglob("practice-use-uv.md")).read_text(encoding="utf-8")
    (pulled / "practice-pulled.md").write_text(
        text.replace("practice-use-uv", "practice-pulled"), encoding="utf-8"
    )
    assert not unchanged(index_path(str(kb_repo / ".lorebook")), str(nodes))
    context, heavy = start(kb_repo, "s2")
    assert "lorebook status: 2 notes" in context
    assert "pydantic" in heavy  # the changed notes were read and validated
    assert unchanged(index_path(str(kb_repo / ".lorebook")), str(nodes))
    with NoteIndex(index_path(str(kb_repo / ".lorebook"))) as index:
        assert "practice-pulled" in index.get(["practice-pulled"])


def test_a_lorebook_writer_keeps_the_index_current(kb_repo: Path, cli: CliRunner) -> None:
    assert cli("init", "--harnesses", "claude", cwd=kb_repo).exit_code == 0
    assert cli("index", "rebuild", cwd=kb_repo).exit_code == 0
    added = cli(
        "note", "add", "--title", "Money is integer cents", "--kind", "convention",
        "--description", "Floats drift.", cwd=kb_repo,
    )  # fmt: skip
    assert added.exit_code == 0, added.stderr
    # The writer indexed its note and re-recorded the folders it touched.
    assert unchanged(index_path(str(kb_repo / ".lorebook")), str(kb_repo / ".lorebook/nodes"))
    context, heavy = start(kb_repo, "s3")
    assert "lorebook status: 1 note" in context
    assert heavy == set()


def test_a_config_edit_that_changes_no_setting_is_reconciled_once(
    kb_repo: Path, cli: CliRunner
) -> None:
    assert cli("init", "--harnesses", "claude", cwd=kb_repo).exit_code == 0
    assert cli("index", "rebuild", cwd=kb_repo).exit_code == 0
    config = kb_repo / ".lorebook" / "config.yaml"
    config.write_text(config.read_text(encoding="utf-8") + "# a comment\n", encoding="utf-8")
    context, heavy = start(kb_repo, "s4")
    assert "pydantic" in heavy  # config.yaml is newer than its compiled copy: re-read
    context, heavy = start(kb_repo, "s5")
    assert "lorebook status" in context
    assert heavy == set()  # the compiled copy, unchanged, was brought up to date
