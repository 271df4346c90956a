"""A bootstrap killed mid-run resumes on the next one, without duplicates (real SIGKILL).

The run is a separate process that kills itself with SIGKILL at a chosen point: inside a
document (its extractor is running), or inside curation (after some notes were written).
The rerun must end with exactly the notes a run that was never killed writes.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from lorebook.bootstrap.state import load_state
from lorebook.kb.paths import KBPaths
from tests.conftest import SHARED

MINSKY = SHARED / "eval" / "transcripts" / "cursor-specstory" / "cursor-rules-at-commit"
RULES = [
    "bun-test-patterns.mdc",
    "changelog.mdc",
    "constants-management.mdc",
    "dont-ignore-errors.mdc",
    "json-parsing.mdc",
    "session-first-workflow.mdc",
]
KILL_DOC = ".cursor/rules/constants-management.mdc"

SCRIPT = r'''
import json, os, signal, sys
from pathlib import Path

from lorebook import hookimpl
from lorebook.bootstrap.run import run_bootstrap
from lorebook.config import load_config
from lorebook.kb.paths import KBPaths
from lorebook.models.session import Proposal
from lorebook.plugins import make_plugins
from lorebook.providers import ExtractorSpec

repo, marker, where, target = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3], sys.argv[4]


def die() -> None:
    marker.write_text("killed", encoding="utf-8")
    os.kill(os.getpid(), signal.SIGKILL)


class Echo:
    """One proposal per section: its first line as the title, its text as the body."""

    name = "echo"

    async def extract(self, request):
        if where == "extract" and request.log.session_id == target and not marker.exists():
            die()
        out = []
        for turn in request.turns:
            first = turn.text.strip().splitlines()[0].lstrip("# ").strip()
            out.append(Proposal(
                id="x", origin="x", type="practice", kind="convention", title=first[:120],
                description=" ".join(turn.text.split())[:200], body=turn.text,
                quote=turn.text.strip()[:80], extractor="echo",
            ))
        return out


class Provider:
    @hookimpl
    def register_extractors(self):
        return [ExtractorSpec(name="echo", factory=Echo)]


if where == "curate":
    from lorebook.kb.store import MarkdownStore

    original = MarkdownStore.add
    calls = []

    def add(self, note, *, folder=None):
        calls.append(note.id)
        if len(calls) == int(target) and not marker.exists():
            die()
        return original(self, note, folder=folder)

    MarkdownStore.add = add

plugins = make_plugins(load_external=False)
plugins.pm.register(Provider())
paths = KBPaths(repo)
report = run_bootstrap(paths, load_config(paths), extractor="echo", plugins=plugins)
print(json.dumps(report.as_json()))
'''


def _repo(base: Path, name: str) -> Path:
    from lorebook.initialize import init_repo

    repo = base / name
    (repo / ".cursor" / "rules").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    for rule in RULES:
        shutil.copy(MINSKY / rule, repo / ".cursor" / "rules" / rule)
    init_repo(repo, [])
    return repo


def _run(script: Path, repo: Path, where: str, target: str) -> subprocess.CompletedProcess[str]:
    marker = repo.parent / f"{repo.name}.killed"
    return subprocess.run(
        [sys.executable, str(script), str(repo), str(marker), where, target],
        capture_output=True, text=True, check=False, env={**os.environ},
    )  # fmt: skip


def _tree(repo: Path) -> dict[str, bytes]:
    nodes = repo / ".lorebook" / "nodes"
    return {p.relative_to(nodes).as_posix(): p.read_bytes() for p in nodes.rglob("*.md")}


@pytest.mark.skipif(not MINSKY.is_dir(), reason="shared/eval is not present beside the repository")
@pytest.mark.skipif(os.name != "posix", reason="the test kills the run with SIGKILL")
@pytest.mark.parametrize(("where", "target"), [("extract", KILL_DOC), ("curate", "3")])
def test_a_killed_run_resumes_without_duplicates(
    tmp_path: Path, lorebook_home: Path, where: str, target: str
) -> None:
    script = tmp_path / "bootstrap_run.py"
    script.write_text(SCRIPT, encoding="utf-8")
    clean = _repo(tmp_path, "clean")
    never_killed = _run(script, clean, "none", "")
    assert never_killed.returncode == 0, never_killed.stderr

    repo = _repo(tmp_path, "killed")
    killed = _run(script, repo, where, target)
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    state = load_state(KBPaths(repo)).documents
    if where == "extract":
        assert state[KILL_DOC].status == "in_progress"  # killed inside this document
        assert not (repo / ".lorebook" / "nodes" / "convention").exists()
    else:
        assert {e.status for e in state.values()} == {"staged"}
        assert len([p for p in _tree(repo) if not p.endswith("index.md")]) == 2

    resumed = _run(script, repo, where, target)
    assert resumed.returncode == 0, resumed.stderr
    report = json.loads(resumed.stdout)
    assert report["documents"]["left_pending"] == []
    state = load_state(KBPaths(repo)).documents
    assert {e.status for e in state.values()} == {"done"}
    assert _tree(repo) == _tree(clean)  # the same notes, byte for byte: nothing twice
    origins = [
        line for text in _tree(repo).values() for line in text.decode().splitlines()
        if line.startswith("lb_derived_from:")
    ]  # fmt: skip
    assert len(origins) == len(set(origins)) == len(RULES)

    again = _run(script, repo, "none", "")
    assert json.loads(again.stdout)["proposals"] == 0
