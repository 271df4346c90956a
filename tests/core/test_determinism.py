"""Two clones that add the same notes in another order, under another hash seed and time
zone, generate byte-identical files."""

from __future__ import annotations

import random
from pathlib import Path

from tests.conftest import git, run_lorebook
from tests.core.notes_data import TEN_NOTES, in_link_order


def _build(repo: Path, order: list[int], env: dict[str, str]) -> dict[str, bytes]:
    repo.mkdir()
    git(repo, "init", "-q")
    run_lorebook("init", cwd=repo, env=env)
    for i in order:
        run_lorebook("note", "add", *TEN_NOTES[i], cwd=repo, env=env)
    run_lorebook(
        "folder",
        "describe",
        "backend",
        "Server-side code: billing, cache, data.",
        cwd=repo,
        env=env,
    )
    run_lorebook("index", "rebuild", cwd=repo, env=env)
    kb = repo / ".lorebook"
    return {
        p.relative_to(kb).as_posix(): p.read_bytes()
        for p in sorted(kb.rglob("*"))
        if p.is_file() and not p.relative_to(kb).as_posix().startswith((".state", ".cache"))
    }


def test_generated_files_are_byte_identical_across_clones(
    tmp_path: Path, lorebook_home: Path
) -> None:
    forward = in_link_order(list(range(len(TEN_NOTES))))
    shuffled = forward[:]
    random.Random(7).shuffle(shuffled)
    shuffled = in_link_order(shuffled)
    assert shuffled != forward
    first = _build(tmp_path / "one", forward, {"PYTHONHASHSEED": "1", "TZ": "UTC", "LC_ALL": "C"})
    second = _build(
        tmp_path / "two",
        shuffled,
        {"PYTHONHASHSEED": "4242", "TZ": "Pacific/Kiritimati", "LC_ALL": "C.UTF-8"},
    )
    generated = [
        name for name in first if name in ("ENTRY.md", "GRAPH.md") or name.endswith("index.md")
    ]
    assert "ENTRY.md" in generated
    assert "nodes/backend/cache/index.md" in generated
    assert len(generated) == 9  # root, 6 folders, ENTRY.md, GRAPH.md
    assert first.keys() == second.keys()
    for name in first:
        assert first[name] == second[name], f"{name} differs between the two clones"
