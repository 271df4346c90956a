"""`lorebook review`: the proposed change as one git diff, and `--reject` undoing one change."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.conftest import CliRunner, git

NODES = ".lorebook/nodes"
KEEP = f"{NODES}/gotcha/gotcha-keep-me.md"
EDIT = f"{NODES}/gotcha/gotcha-edit-me.md"
GONE = f"{NODES}/tooling/tooling-delete-me.md"
NEW = f"{NODES}/convention/convention-a-new-rule.md"


def _add(cli: CliRunner, repo: Path, title: str, kind: str, *extra: str) -> None:
    args = ["--description", f"When {title.lower()}", "--kind", kind, "--body", f"{title}."]
    result = cli("note", "add", "--title", title, *args, *extra, cwd=repo)
    assert result.exit_code == 0, result.stderr


@pytest.fixture
def proposal(kb_repo: Path, cli: CliRunner) -> Path:
    """Three committed notes, then a proposal: one new, one edited, one deleted, reindexed."""
    _add(cli, kb_repo, "Keep me", "gotcha")
    _add(cli, kb_repo, "Edit me", "gotcha")
    _add(cli, kb_repo, "Delete me", "tooling")
    cli("index", "rebuild", cwd=kb_repo)
    git(kb_repo, "add", ".lorebook")
    git(kb_repo, "commit", "-qm", "knowledge base")
    _add(cli, kb_repo, "A new rule", "convention")
    path = kb_repo / EDIT
    path.write_text(path.read_text().replace("Edit me.", "Edit me, edited."))
    (kb_repo / GONE).unlink()
    assert cli("index", "rebuild", cwd=kb_repo).exit_code == 0
    return kb_repo


def _head(repo: Path, rel: str) -> bytes:
    return subprocess.run(
        ["git", "show", f"HEAD:{rel}"], cwd=repo, check=True, capture_output=True
    ).stdout


def test_review_lists_every_change_notes_first_and_json_names_kinds(
    proposal: Path, cli: CliRunner
) -> None:
    doc = cli("review", "--json", cwd=proposal).json()
    rows = [(c["change"], c["category"], c["path"], c["tracked"]) for c in doc["changes"]]
    assert rows == [
        ("added", "note", NEW, False),
        ("modified", "note", EDIT, True),
        ("deleted", "note", GONE, True),
        ("modified", "generated", ".lorebook/ENTRY.md", True),
        ("modified", "generated", ".lorebook/GRAPH.md", True),
        ("added", "generated", f"{NODES}/convention/index.md", False),
        ("modified", "generated", f"{NODES}/index.md", True),
        ("deleted", "generated", f"{NODES}/tooling/index.md", True),
    ]
    assert doc["changes"][0]["id"] == "convention-a-new-rule"
    assert git(proposal, "diff", "--cached", "--name-only") == ""  # review stages nothing


def test_review_shows_one_readable_diff_with_generated_files_summarised(
    proposal: Path, cli: CliRunner
) -> None:
    result = cli("review", "--verbose", cwd=proposal)
    assert result.exit_code == 0, result.stderr
    out = result.stdout
    assert "proposed changes to the knowledge base since HEAD (8 files):" in out
    assert f"  added    note       {NEW} (untracked)" in out
    assert f"  deleted  note       {GONE}" in out
    assert f"  hand: 1 note\n    {EDIT}  Edit me (gotcha)\n" in out  # edited by hand: unreviewed
    assert "accept: git add .lorebook && git commit" in out
    diff = out[out.index("diff --git") :]
    # changed and deleted notes, then the new one; generated files are not diffed
    assert diff.index(f"diff --git a/{EDIT}") < diff.index(f"diff --git a/{GONE}")
    assert diff.index(f"diff --git a/{GONE}") < diff.index(f"+++ b/{NEW}")
    assert "-Edit me.\n+Edit me, edited.\n" in diff
    assert "deleted file mode" in diff
    assert f"--- /dev/null\n+++ b/{NEW}\n" in diff
    assert "+title: A new rule\n" in diff
    assert "ENTRY.md" not in diff

    full = cli("review", "--generated", cwd=proposal).stdout
    generated = full[full.index("diff --git a/.lorebook/ENTRY.md") :]
    assert f"+++ b/{NEW}" not in generated  # generated files come last
    assert f"+++ b/{NODES}/convention/index.md" in generated


def test_the_diff_applies_as_a_patch_to_head(proposal: Path, cli: CliRunner) -> None:
    out = cli("review", "--generated", cwd=proposal).stdout
    patch = out[out.index("diff --git") :]
    clone = proposal.parent / "clone"
    git(proposal.parent, "clone", "-q", str(proposal), str(clone))
    subprocess.run(["git", "apply", "-"], cwd=clone, input=patch, text=True, check=True)
    for rel in (NEW, EDIT, ".lorebook/ENTRY.md"):
        assert (clone / rel).read_bytes() == (proposal / rel).read_bytes()
    assert not (clone / GONE).exists()


def test_reject_deletes_a_new_note_and_rebuilds_the_indexes(proposal: Path, cli: CliRunner) -> None:
    result = cli("review", "--reject", NEW, cwd=proposal)
    assert result.exit_code == 0, result.stderr
    assert f"rejected: deleted {NEW}; indexes rebuilt" in result.stdout
    assert not (proposal / NEW).exists()
    assert not (proposal / NODES / "convention").exists()  # no empty folder left behind
    assert "convention" not in (proposal / ".lorebook/ENTRY.md").read_text()
    assert cli("lint", cwd=proposal).exit_code == 0
    paths = [c["path"] for c in cli("review", "--json", cwd=proposal).json()["changes"]]
    assert NEW not in paths


def test_reject_restores_edited_and_deleted_notes_from_head(proposal: Path, cli: CliRunner) -> None:
    assert cli("review", "--reject", EDIT, cwd=proposal).exit_code == 0
    assert (proposal / EDIT).read_bytes() == _head(proposal, EDIT)
    doc = cli("review", "--reject", GONE, "--json", cwd=proposal).json()
    assert doc["rejections"][0]["action"] == "restored"
    assert doc["rejections"][0]["change"] == "deleted"
    assert (proposal / GONE).read_bytes() == _head(proposal, GONE)
    assert cli("lint", cwd=proposal).exit_code == 0
    assert cli("review", "--reject", NEW, cwd=proposal).exit_code == 0
    assert cli("review", "--json", cwd=proposal).json()["changes"] == []
    assert git(proposal, "status", "--porcelain") == ""


def test_reject_takes_a_note_id_or_a_path_relative_to_the_current_folder(
    proposal: Path, cli: CliRunner
) -> None:
    assert cli("review", "--reject", "gotcha-edit-me", cwd=proposal).exit_code == 0
    assert (proposal / EDIT).read_bytes() == _head(proposal, EDIT)
    here = proposal / NODES / "convention"
    assert cli("review", "--reject", "convention-a-new-rule.md", cwd=here).exit_code == 0
    assert not (proposal / NEW).exists()


@pytest.mark.parametrize(
    ("target", "message"),
    [
        ("README.md", "'README.md' is outside .lorebook/"),
        ("../elsewhere.md", "no such note: ../elsewhere.md"),
        (".lorebook/ENTRY.md", ".lorebook/ENTRY.md is generated from the notes"),
        (f"{NODES}/convention/index.md", "index.md is generated from the notes"),
        (KEEP, f"{KEEP} has no change to reject"),
        (".lorebook/_sessions/s.json", "has no change to reject"),
    ],
)
def test_reject_refuses_paths_it_must_not_touch(
    proposal: Path, cli: CliRunner, target: str, message: str
) -> None:
    (proposal / "README.md").write_text("not knowledge\n")
    (proposal / ".lorebook/_sessions").mkdir(parents=True, exist_ok=True)
    (proposal / ".lorebook/_sessions/s.json").write_text("{}\n")
    before = git(proposal, "status", "--porcelain", "--untracked-files=all")
    result = cli("review", "--reject", target, cwd=proposal)
    assert result.exit_code == 1
    assert message in result.stderr
    assert git(proposal, "status", "--porcelain", "--untracked-files=all") == before
    assert (proposal / "README.md").exists()


def test_reject_unstages_and_deletes_a_staged_new_note(proposal: Path, cli: CliRunner) -> None:
    git(proposal, "add", NEW)
    doc = cli("review", "--json", cwd=proposal).json()
    assert {k: v for k, v in doc["changes"][0].items() if k != "id"} == {
        "path": NEW,
        "change": "added",
        "category": "note",
        "tracked": True,
    }
    assert cli("review", "--reject", NEW, cwd=proposal).exit_code == 0
    assert not (proposal / NEW).exists()
    assert NEW not in git(proposal, "ls-files", "--stage")


def test_rejecting_a_note_others_link_to_warns(proposal: Path, cli: CliRunner) -> None:
    _add(cli, proposal, "Linked", "convention", "--relates-to", "convention-a-new-rule")
    cli("index", "rebuild", cwd=proposal)
    result = cli("review", "--reject", NEW, cwd=proposal)
    assert result.exit_code == 0
    assert "convention-linked still name 'convention-a-new-rule'" in result.stderr
    assert "[dangling-edge]" in cli("lint", cwd=proposal).stdout


def test_review_in_a_repository_without_commits(kb_repo: Path, cli: CliRunner) -> None:
    _add(cli, kb_repo, "First", "gotcha")
    doc = cli("review", "--json", cwd=kb_repo).json()
    assert all(c["change"] == "added" for c in doc["changes"])
    assert f"{NODES}/gotcha/gotcha-first.md" in [c["path"] for c in doc["changes"]]
    assert ".lorebook/.gitignore" in [c["path"] for c in doc["changes"]]
    text = cli("review", "--verbose", cwd=kb_repo).stdout
    assert f"+++ b/{NODES}/gotcha/gotcha-first.md" in text


def test_review_with_nothing_to_review(kb_repo: Path, cli: CliRunner) -> None:
    git(kb_repo, "add", ".lorebook")
    git(kb_repo, "commit", "-qm", "init")
    result = cli("review", cwd=kb_repo)
    assert result.exit_code == 0
    assert "no proposed changes" in result.stdout


def test_review_outside_git_says_it_needs_git(tmp_path: Path, cli: CliRunner) -> None:
    repo = tmp_path / "plain"
    repo.mkdir()
    assert cli("init", cwd=repo).exit_code == 0
    result = cli("review", "--json", cwd=repo)
    assert result.exit_code == 1
    assert result.json()["ok"] is False
    assert "is not inside a git work tree" in result.stderr
