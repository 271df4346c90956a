"""The rejections ledger: claim fingerprints, the file's format, and who reads and writes it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from lorebook.curate.rejections import (
    RejectedClaim,
    fingerprint,
    normalise_claim,
    parse_ledger,
    render_ledger,
)
from lorebook.errors import NoteFormatError
from tests.conftest import CliRunner, git
from tests.core.test_curate import curate, notes_of, proposal, stage, tree

LEDGER = ".lorebook/rejected-claims.txt"


@pytest.mark.parametrize(
    ("title", "description"),
    [
        ("Never push to main", "When publishing changes"),
        ("  never   PUSH to main. ", "when publishing changes!"),
        ("Never push to `main`", "When publishing\nchanges"),
        ("Never-push to main", "When publishing_changes"),
        ("NEVER push to main!!", "When publishing changes…"),
    ],
)
def test_the_same_claim_in_other_spacing_case_or_punctuation_has_one_fingerprint(
    title: str, description: str
) -> None:
    assert fingerprint(title, description) == fingerprint(
        "Never push to main", "When publishing changes"
    )


def test_another_claim_has_another_fingerprint() -> None:
    base = fingerprint("Never push to main", "When publishing changes")
    assert fingerprint("Always push to main", "When publishing changes") != base
    assert fingerprint("Never push to main", "When releasing") != base
    # title and description are kept apart: words moved from one to the other differ
    assert fingerprint("Never push", "to main When publishing changes") != base
    assert normalise_claim("Don't push", "Ever") == normalise_claim("Dont push", "ever")
    assert re.fullmatch(r"[0-9a-f]{16}", base)


def test_the_ledger_is_sorted_lines_without_claim_text() -> None:
    claims = [RejectedClaim("f" * 16, "review"), RejectedClaim("0" * 16, "conflict:ab12-1"),
              RejectedClaim("0" * 16, "review"), RejectedClaim("f" * 16, "review")]  # fmt: skip
    text = render_ledger(claims)
    body = [line for line in text.splitlines() if not line.startswith("#")]
    assert body == [f"{'0' * 16} conflict:ab12-1", f"{'0' * 16} review", f"{'f' * 16} review"]
    assert parse_ledger(text, source="x") == set(claims)


@pytest.mark.parametrize(
    "line",
    ["abc review", f"{'g' * 16} review", f"{'a' * 16}", f"{'a' * 16} reviewed",
     f"{'a' * 16} conflict:", f"{'A' * 16} review", f"{'a' * 16} review extra"],
)  # fmt: skip
def test_a_malformed_line_is_refused_naming_the_file_and_line(line: str) -> None:
    text = f"# header\n{'0' * 16} review\n{line}\n"
    with pytest.raises(NoteFormatError, match=r"^\.lorebook/rejected-claims\.txt:3: expected"):
        parse_ledger(text, source=LEDGER)


def _reject_ledger(repo: Path, *lines: str) -> None:
    (repo / LEDGER).write_text("".join(f"{line}\n" for line in lines))


def test_curation_drops_a_rejected_claim_and_says_so(kb_repo: Path, cli: CliRunner) -> None:
    claim = fingerprint("Never push to main", "When publishing changes")
    _reject_ledger(kb_repo, f"{claim} review")
    stage(kb_repo, "s1", [
        proposal("s1", 1, "never push to MAIN.", "When publishing changes"),
        proposal("s1", 2, "Use tabs in Makefiles"),
    ])  # fmt: skip
    result = cli("curate", cwd=kb_repo)
    assert result.exit_code == 0, result.stderr
    assert f"dropped    s1:1: rejected before: its claim's fingerprint {claim} is in {LEDGER}" in (
        result.stdout
    )
    assert "1 dropped as rejected before (.lorebook/rejected-claims.txt): s1:1" in result.stdout
    assert list(notes_of(kb_repo)) == ["convention-use-tabs-in-makefiles"]
    stage(kb_repo, "s2", [proposal("s2", 1, "Never push to main", "When publishing changes")])
    doc = cli("curate", "--json", cwd=kb_repo).json()
    assert doc["rejected"] == ["s2:1"]
    assert doc["actions"]["drop"] == 1


def test_a_malformed_ledger_stops_curation_and_fails_lint(kb_repo: Path, cli: CliRunner) -> None:
    _reject_ledger(kb_repo, "not a fingerprint")
    stage(kb_repo, "s1", [proposal("s1", 1, "Use tabs in Makefiles")])
    before = tree(kb_repo)
    result = cli("curate", cwd=kb_repo)
    assert result.exit_code == 1
    assert f"{LEDGER}:1: expected '<16 hex digits> review'" in result.stderr
    assert "Traceback" not in result.stderr
    lock = ".lorebook/.state/curate.lock"
    assert {k: v for k, v in tree(kb_repo).items() if k != lock} == before
    lint = cli("lint", "--json", cwd=kb_repo).json()
    assert lint["ok"] is False
    codes = {(f["code"], f["path"]) for f in lint["findings"] if f["severity"] == "error"}
    assert codes == {("invalid-rejections", LEDGER)}


def test_lint_accepts_a_ledger_merged_from_two_branches_and_status_counts_claims(
    kb_repo: Path, cli: CliRunner
) -> None:
    first, second = "0123456789abcdef", "fedcba9876543210"
    # a union merge of two branches: a comment, a blank line, one claim rejected twice
    _reject_ledger(kb_repo, "# header", "", f"{first} conflict:ab12-1", f"{first} review",
                   f"{second} review", f"{second} review")  # fmt: skip
    assert cli("lint", cwd=kb_repo).exit_code == 0
    status = cli("status", "--json", cwd=kb_repo).json()
    assert status["rejected_claims"] == 2
    assert "rejected claims: 2" in cli("status", cwd=kb_repo).stdout


def test_a_rejected_note_cites_its_proposals_claims(kb_repo: Path, cli: CliRunner) -> None:
    git(kb_repo, "add", "-A")
    git(kb_repo, "commit", "-qm", "init")
    stage(kb_repo, "s1", [
        proposal("s1", 1, "Never push directly to main", kind="prohibition", tags=("git",)),
        proposal("s1", 2, "Do not push to main directly", kind="prohibition",
                 description="Publishing changes to main", tags=("git",)),
    ])  # fmt: skip
    report = curate(kb_repo)
    assert [r.action for r in report.results] == ["add", "modify"]  # one note, two origins
    result = cli("review", "--reject", "prohibition-never-push-directly-to-main", "--json",
                 cwd=kb_repo)  # fmt: skip
    assert result.exit_code == 0, result.stderr
    remembered = set(result.json()["remembered"])
    assert remembered == {
        fingerprint("Never push directly to main", "When working in this repository"),
        fingerprint("Do not push to main directly", "Publishing changes to main"),
    }
    ledger = (kb_repo / LEDGER).read_text()
    assert "push" not in ledger  # fingerprints only: a rejected claim's words are not committed
    changes = cli("review", "--json", cwd=kb_repo).json()["changes"]
    assert LEDGER in [c["path"] for c in changes]  # a change to commit, shared by the team
    assert [c for c in changes if c["category"] == "note"] == []


def test_undoing_a_hand_edit_remembers_nothing(kb_repo: Path, cli: CliRunner) -> None:
    args = ("--description", "When editing Makefiles", "--kind", "convention")
    assert cli("note", "add", "--title", "Use tabs in Makefiles", *args, cwd=kb_repo).exit_code == 0
    result = cli("review", "--reject", "convention-use-tabs-in-makefiles", cwd=kb_repo)
    assert result.exit_code == 0, result.stderr
    assert "remembered" not in result.stdout
    assert not (kb_repo / LEDGER).exists()


def test_review_reject_refuses_before_undoing_when_the_ledger_is_malformed(
    kb_repo: Path, cli: CliRunner
) -> None:
    git(kb_repo, "add", "-A")
    git(kb_repo, "commit", "-qm", "init")
    stage(kb_repo, "s1", [proposal("s1", 1, "Use tabs in Makefiles")])
    curate(kb_repo)
    _reject_ledger(kb_repo, "garbage")
    result = cli("review", "--reject", "convention-use-tabs-in-makefiles", cwd=kb_repo)
    assert result.exit_code == 1
    assert f"{LEDGER}:1: expected" in result.stderr
    assert "convention-use-tabs-in-makefiles" in notes_of(kb_repo)  # nothing was undone


def test_conflict_reject_with_a_malformed_ledger_changes_nothing(
    kb_repo: Path, cli: CliRunner
) -> None:
    from tests.core.test_curate import add_note

    add_note(kb_repo, "Always rebase feature branches")
    stage(kb_repo, "s1", [proposal("s1", 1, "Never rebase feature branches")])
    (conflict,) = curate(kb_repo).results
    _reject_ledger(kb_repo, "garbage")
    result = cli("conflict", "resolve", conflict.detail, "--decision", "reject", cwd=kb_repo)
    assert result.exit_code == 1
    assert f"{LEDGER}:1: expected" in result.stderr
    assert "status: open" in (kb_repo / conflict.path).read_text()


_RECORD = """
import sys
from pathlib import Path
from lorebook.curate.rejections import RejectedClaim, record_rejections
from lorebook.kb.fsutil import kb_lock
from lorebook.kb.paths import KBPaths
paths = KBPaths(Path(sys.argv[1]))
for n in range(10):
    with kb_lock(paths.lock):
        record_rejections(paths, [RejectedClaim(f"{int(sys.argv[2]):08x}{n:08x}", "review")])
"""


def test_concurrent_rejections_lose_no_line(kb_repo: Path) -> None:
    import subprocess
    import sys

    procs = [
        subprocess.Popen([sys.executable, "-c", _RECORD, str(kb_repo), str(worker)])
        for worker in range(4)
    ]
    assert [p.wait(timeout=120) for p in procs] == [0, 0, 0, 0]
    from lorebook.curate.rejections import load_ledger
    from lorebook.kb.paths import KBPaths

    assert len(load_ledger(KBPaths(kb_repo))) == 40
