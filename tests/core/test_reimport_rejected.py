"""Re-importing a session whose note or conflict was rejected proposes nothing new (real git).

The loop as a team runs it: import a recorded session, extract, curate, reject a note with
``review --reject`` (or a conflict with ``conflict resolve --decision reject``), commit the
rest and the rejections ledger; then import the same session again: the same file (staged
already: deduplicated by its hash), the same file after ``forget-session`` (staged and
extracted again under the same id) and the same text under a new session id (a re-export),
each extracted and curated.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO_ROOT, SHARED, CliRunner, git

DEMO = REPO_ROOT / "scripts" / "demo_sessions"
KENKEEP = SHARED / "eval" / "extraction" / "kenkeep-prompt-eval" / "sessions"
LEDGER = ".lorebook/rejected-claims.txt"


def _renamed(source: Path, old_id: str, new_id: str, folder: Path) -> Path:
    """The same transcript under another session id, as a re-export would write it."""
    text = source.read_text(encoding="utf-8")
    assert old_id in text
    copy = folder / f"reexport-{source.name}"
    copy.write_text(text.replace(old_id, new_id), encoding="utf-8")
    return copy


def _loop(cli: CliRunner, repo: Path, session: Path) -> dict[str, Any]:
    """Import, extract and curate one session file; return curate's JSON report."""
    for args in (("import", str(session)), ("extract",)):
        result = cli(*args, cwd=repo)
        assert result.exit_code == 0, result.stdout + result.stderr
    curated = cli("curate", "--json", cwd=repo)
    assert curated.exit_code == 0, curated.stdout + curated.stderr
    report: dict[str, Any] = curated.json()
    return report


def _commit_all(repo: Path, message: str) -> None:
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", message)
    assert git(repo, "status", "--porcelain", "--untracked-files=all") == ""


def _logs_left_pending(repo: Path) -> list[str]:
    logs = sorted((repo / ".lorebook/_sessions").glob("*.json"))
    return [p.name for p in logs if json.loads(p.read_text())["status"] != "curated"]


SESSIONS = [
    pytest.param(DEMO / "01-tests-and-billing.jsonl", "demo-0001", id="demo-jsonl"),
    pytest.param(
        KENKEEP / "admit-map-location-01.md",
        "10000000-0000-4000-8000-000000000011",
        id="kenkeep",
        marks=pytest.mark.skipif(
            not KENKEEP.is_dir(), reason="shared/eval is not present beside the repository"
        ),
    ),
]


@pytest.mark.parametrize(("session", "session_id"), SESSIONS)
def test_a_note_rejected_in_review_does_not_come_back(
    kb_repo: Path, cli: CliRunner, tmp_path: Path, session: Path, session_id: str
) -> None:
    _commit_all(kb_repo, "lorebook init")
    first = _loop(cli, kb_repo, session)
    added = [r for r in first["results"] if r["action"] == "add"]
    assert len(added) >= 2, first
    rejected = added[0]
    result = cli("review", "--reject", rejected["note_id"], cwd=kb_repo)
    assert result.exit_code == 0, result.stderr
    assert f"remembered 1 rejected claim in {LEDGER}" in result.stdout
    _commit_all(kb_repo, "accept the other notes; remember the rejected one")

    again = _loop(cli, kb_repo, session)  # the same file again: deduplicated by its hash
    assert again["results"] == []
    forgot = cli("forget-session", session_id, cwd=kb_repo)
    assert forgot.exit_code == 0, forgot.stderr
    again = _loop(cli, kb_repo, session)  # staged and extracted again, same session id
    assert {r["action"] for r in again["results"]} == {"drop"}, again["results"]
    assert rejected["proposal_id"] in again["rejected"]
    assert git(kb_repo, "status", "--porcelain", "--untracked-files=all") == ""

    copy = _renamed(session, session_id, "reexported-0001", tmp_path)
    reexport = _loop(cli, kb_repo, copy)
    actions = [r["action"] for r in reexport["results"]]
    assert "add" not in actions, reexport["results"]  # merges into the kept notes at most
    assert "contradict" not in actions, reexport["results"]
    assert rejected["proposal_id"].replace(session_id, "reexported-0001") in reexport["rejected"]
    status = git(kb_repo, "status", "--porcelain", "--untracked-files=all").splitlines()
    assert [line for line in status if not line.startswith(" M ")] == []  # nothing new
    assert not (kb_repo / rejected["path"]).exists()
    assert _logs_left_pending(kb_repo) == []  # no proposal waits to come back later
    assert cli("status", "--json", cwd=kb_repo).json()["rejected_claims"] == 1
    assert cli("lint", cwd=kb_repo).exit_code == 0


def test_a_conflict_rejected_does_not_come_back(
    kb_repo: Path, cli: CliRunner, tmp_path: Path
) -> None:
    _commit_all(kb_repo, "lorebook init")
    _loop(cli, kb_repo, DEMO / "01-tests-and-billing.jsonl")
    _commit_all(kb_repo, "the first session's notes")
    session = DEMO / "02-hatch.jsonl"
    report = _loop(cli, kb_repo, session)
    (conflict_path,) = report["conflicts"]
    conflict_id = Path(conflict_path).stem
    decided = cli("conflict", "resolve", conflict_id, "--decision", "reject", "--json", cwd=kb_repo)
    assert decided.exit_code == 0, decided.stderr
    assert LEDGER in decided.json()["changed"]
    assert f" conflict:{conflict_id}\n" in (kb_repo / LEDGER).read_text()
    _commit_all(kb_repo, "the conflict is rejected")

    assert cli("forget-session", "demo-0002", cwd=kb_repo).exit_code == 0
    for source in (session, _renamed(session, "demo-0002", "reexported-0002", tmp_path)):
        again = _loop(cli, kb_repo, source)
        assert again["conflicts"] == [], again["results"]
        assert [r["action"] for r in again["results"]] == ["drop"]
        assert again["rejected"] == [again["results"][0]["proposal_id"]]
        assert git(kb_repo, "status", "--porcelain", "--untracked-files=all") == ""
    listed = cli("conflict", "list", "--json", cwd=kb_repo).json()
    assert listed["conflicts"] == []
    assert len(list((kb_repo / ".lorebook/conflicts").glob("*.md"))) == 1  # the decided record
