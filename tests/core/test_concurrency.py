"""Concurrent writers never lose or tear a note."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from lorebook.kb.lint import lint
from lorebook.kb.paths import KBPaths
from lorebook.kb.store import load_snapshot
from tests.conftest import run_lorebook

WORKER = """
import sys
from pathlib import Path
from lorebook.kb.store import MarkdownStore
from lorebook.models.note import Note

repo, worker = Path(sys.argv[1]), int(sys.argv[2])
store = MarkdownStore(repo)
for i in range(50):
    note = Note.model_validate({
        "type": "practice",
        "title": f"Note {i} of worker {worker}",
        "description": "Written concurrently",
        "lb_id": f"practice-w{worker}-n{i}",
        "lb_kind": "convention",
        "lb_relates_to": [f"practice-w{(worker + 1) % 8}-n{i}"],
        "body": "x" * (2000 + i),
    })
    store.add(note, folder=f"shared/w{worker % 2}")
"""


def test_eight_processes_adding_fifty_notes_each_end_with_400(kb_repo: Path) -> None:
    procs = [
        subprocess.Popen([sys.executable, "-c", WORKER, str(kb_repo), str(n)]) for n in range(8)
    ]
    assert [p.wait(timeout=300) for p in procs] == [0] * 8
    paths = KBPaths(kb_repo)
    snap = load_snapshot(paths)
    assert snap.problems == []
    assert len(snap.notes) == 400
    assert all(len(s.note.body) >= 2000 for s in snap.notes.values())
    assert not list(kb_repo.rglob("*.tmp")), "temporary files were left behind"
    run_lorebook("index", "rebuild", cwd=kb_repo)
    assert lint(paths, 2000).errors == []


def test_concurrent_cli_adds_of_one_id_keep_exactly_one(kb_repo: Path) -> None:
    procs = [
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "lorebook",
                "note",
                "add",
                "--title",
                "Same id",
                "--description",
                f"writer {n}",
                "--kind",
                "gotcha",
            ],
            cwd=kb_repo,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for n in range(4)
    ]
    for proc in procs:
        proc.communicate(timeout=120)
    codes = [p.returncode for p in procs]
    assert sorted(codes) == [0, 1, 1, 1]
    notes = load_snapshot(KBPaths(kb_repo)).notes
    assert list(notes) == ["gotcha-same-id"]
