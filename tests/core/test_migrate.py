"""Schema migration (issue 32, item 2): a knowledge base at format version 1 is refused by
every reader with one line, ``lorebook migrate status`` lists the pending step, and
``lorebook migrate run`` (killed inside its write phase once, then run again) brings it to
version 2: lint clean, ids and bodies kept, every note served as before.

``tests/fixtures/kb-v1`` is a knowledge base written by lorebook at version 1 (``init``,
``note add``, ``supersede``, ``refute``, ``erratum``, ``folder describe``, ``index rebuild``)
plus two notes written by hand: one with its keys in another order and block lists, one
with a YAML comment. ``kb-v1-recall.json`` is what ``lorebook recall --json`` served for
five prompts at version 1, recorded with the code of that version.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import CliRunner, fire_raw, git, run_lorebook

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
ONE_LINE = (
    "lorebook: error: .lorebook/ is at format version 1 and this lorebook reads version 2: "
    "run `lorebook migrate run` (`lorebook migrate status` lists the steps)\n"
)


@pytest.fixture
def v1_repo(tmp_path: Path, lorebook_home: Path) -> Path:
    """The version-1 fixture as a committed repository (its notes reviewed)."""
    repo = tmp_path / "repo"
    shutil.copytree(FIXTURES / "kb-v1", repo / ".lorebook")
    kb = repo / ".lorebook"
    (kb / "gitignore.txt").rename(kb / ".gitignore")
    (kb / "gitattributes.txt").rename(kb / ".gitattributes")
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-qm", "v1")
    return repo


def _notes(repo: Path) -> dict[str, str]:
    """Path under nodes/ -> the text after its frontmatter."""
    found = {}
    for path in sorted((repo / ".lorebook/nodes").rglob("*.md")):
        if path.name != "index.md":
            text = path.read_text(encoding="utf-8")
            found[path.relative_to(repo).as_posix()] = text[text.index("\n---\n", 3) :]
    return found


@pytest.mark.parametrize(
    "args",
    [("lint",), ("recall", "how do I run the tests"), ("note", "list"), ("status",)],
)
def test_readers_refuse_version_1_with_one_line(
    v1_repo: Path, cli: CliRunner, args: tuple[str, ...]
) -> None:
    done = cli(*args, cwd=v1_repo)
    assert done.exit_code == 1
    assert done.stderr == ONE_LINE


def test_hooks_inject_nothing_and_log_one_line(
    v1_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for event, payload in (("Start", {}), ("Prompt", {"prompt": "how do I run the tests"})):
        fields = {"session_id": "s1", "cwd": str(v1_repo), **payload}
        assert fire_raw(v1_repo, monkeypatch, ["fake", event], fields) == ""
    log = (v1_repo / ".lorebook/_logs/hook-errors.log").read_text().splitlines()
    assert len(log) == 2
    assert all("is at format version 1" in line and "lorebook migrate run" in line for line in log)


def test_status_lists_the_pending_step_and_writes_nothing(v1_repo: Path, cli: CliRunner) -> None:
    before = _notes(v1_repo)
    done = cli("migrate", "status", "--json", cwd=v1_repo)
    assert done.exit_code == 0, done.stderr
    doc = done.json()
    assert doc["version"] == 1
    assert doc["current"] == 2
    assert [(s["from"], s["to"], s["name"]) for s in doc["pending"]] == [
        (1, 2, "canonical-frontmatter")
    ]
    assert doc["files"][-1] == "config.yaml"
    assert len(doc["files"]) == 13
    assert git(v1_repo, "status", "--porcelain") == ""
    assert _notes(v1_repo) == before


def test_an_invalid_note_refuses_the_run_before_any_write(v1_repo: Path, cli: CliRunner) -> None:
    bad = v1_repo / ".lorebook/nodes/gotcha/practice-mock-the-clock-in-flaky-tests.md"
    bad.write_text(bad.read_text().replace("lb_kind: gotcha", "lb_kind: rumour"))
    git(v1_repo, "add", "-A")
    git(v1_repo, "-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-qm", "bad")
    done = cli("migrate", "run", cwd=v1_repo)
    assert done.exit_code == 1
    assert "practice-mock-the-clock-in-flaky-tests.md: field 'lb_kind'" in done.stderr
    assert git(v1_repo, "status", "--porcelain") == ""


def _kill_inside_the_writes(repo: Path, tmp_path: Path) -> None:
    """Start a real `lorebook migrate run`, SIGKILL it after 5 of its 13 writes."""
    marker = tmp_path / "stalled"
    env = {
        **os.environ,
        "LOREBOOK_TEST_MIGRATE_STALL_AFTER": "5",
        "LOREBOOK_TEST_MIGRATE_MARKER": str(marker),
    }
    proc = subprocess.Popen(
        [sys.executable, "-m", "lorebook", "migrate", "run"],
        cwd=repo, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        for _ in range(1200):
            if marker.exists() or proc.poll() is not None:
                break
            time.sleep(0.05)
        assert marker.exists(), "the run never reached its write phase"
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()


def test_run_killed_halfway_then_run_again_serves_every_note_as_before(
    v1_repo: Path, tmp_path: Path
) -> None:
    before = _notes(v1_repo)
    _kill_inside_the_writes(v1_repo, tmp_path)
    changed = git(v1_repo, "status", "--porcelain").splitlines()
    assert len(changed) == 5  # five notes written, config.yaml not yet
    assert (v1_repo / ".lorebook/.state/migrate-journal.json").exists()
    refused = run_lorebook("lint", cwd=v1_repo, check=False)
    assert (refused.returncode, refused.stderr) == (1, ONE_LINE)
    status = json.loads(run_lorebook("migrate", "status", "--json", cwd=v1_repo).stdout)
    assert status["interrupted"] is True
    assert len(status["files"]) == 8

    run_lorebook("migrate", "run", cwd=v1_repo)
    assert not (v1_repo / ".lorebook/.state/migrate-journal.json").exists()
    assert run_lorebook("lint", cwd=v1_repo).stdout.startswith("0 errors")
    assert "lb_schema: 2\n" in (v1_repo / ".lorebook/config.yaml").read_text()
    after = _notes(v1_repo)
    assert after == before  # same paths (ids), same bodies and link sections
    for path in after:
        assert "\nlb_schema: 2\n" in (v1_repo / path).read_text()
    expected = json.loads((FIXTURES / "kb-v1-recall.json").read_text())
    for prompt, context in expected.items():
        served = json.loads(run_lorebook("recall", "--json", prompt, cwd=v1_repo).stdout)
        assert served["context"] == context, prompt
    again = run_lorebook("migrate", "run", cwd=v1_repo)
    assert again.stdout.startswith("nothing to do")


def test_hand_written_frontmatter_is_made_canonical_and_a_comment_is_kept(
    v1_repo: Path, cli: CliRunner
) -> None:
    assert cli("migrate", "run", cwd=v1_repo).exit_code == 0
    nodes = v1_repo / ".lorebook/nodes/release"
    tagged = (nodes / "practice-tag-releases-from-the-release-branch.md").read_text()
    assert tagged.startswith(
        "---\ntype: practice\ntitle: Tag releases from the release branch\n"
        "description: Cutting a release\ntags: [release, git]\nlb_schema: 2\n"
    )
    assert "author: release team\n---\n" in tagged
    commented = nodes / "practice-publish-wheels-with-the-release-workflow.md"
    diff = git(v1_repo, "diff", "--unified=0", "--", str(commented))
    assert [ln for ln in diff.splitlines() if ln[:1] in "+-" and ln[:3] not in ("+++", "---")] == [
        "-lb_schema: 1",
        "+lb_schema: 2",
    ]


def test_init_writes_the_current_version(tmp_path: Path, cli: CliRunner) -> None:
    repo = tmp_path / "new"
    repo.mkdir()
    git(repo, "init", "-q")
    assert cli("init", cwd=repo).exit_code == 0
    assert "\nlb_schema: 2\n" in (repo / ".lorebook/config.yaml").read_text()
    done = cli("migrate", "status", cwd=repo)
    assert done.exit_code == 0
    assert done.stdout.splitlines()[-1] == "nothing to do"


def test_a_pack_exported_at_version_1_is_imported_at_version_2(
    tmp_path: Path, cli: CliRunner
) -> None:
    repo = tmp_path / "target"
    repo.mkdir()
    git(repo, "init", "-q")
    assert cli("init", cwd=repo).exit_code == 0
    git(repo, "add", "-A")
    git(repo, "-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-qm", "init")
    pack = tmp_path / "pack" / "knowledge"
    pack.mkdir(parents=True)
    leaf = FIXTURES / "kb-v1/nodes/prohibition/practice-never-push-to-main.md"
    old = leaf.read_text(encoding="utf-8")
    (pack / leaf.name).write_text(old, encoding="utf-8")
    (pack.parent / "lorebook-pack.yaml").write_text("lb_schema: 1\nname: git\n")
    done = cli("pack", "import", str(pack.parent), cwd=repo)
    assert done.exit_code == 0, done.stderr
    landed = (repo / ".lorebook/nodes/git" / leaf.name).read_text(encoding="utf-8")
    assert landed == old.replace("\nlb_schema: 1\n", "\nlb_schema: 2\n")
    assert cli("lint", cwd=repo).exit_code == 0


def test_a_version_1_note_copied_into_a_migrated_knowledge_base_is_migrated(
    v1_repo: Path, cli: CliRunner
) -> None:
    assert cli("migrate", "run", cwd=v1_repo).exit_code == 0
    leaf = "nodes/decision/practice-migrations-must-be-reversible.md"
    (v1_repo / ".lorebook" / leaf).write_text((FIXTURES / "kb-v1" / leaf).read_text())
    lint = cli("lint", cwd=v1_repo)
    assert lint.exit_code == 1
    assert "field 'lb_schema' is 1; this lorebook reads version 2: run `lorebook migrate run`" in (
        lint.stdout + lint.stderr
    )
    doc = cli("migrate", "status", "--json", cwd=v1_repo).json()
    assert (doc["version"], doc["files"]) == (2, [leaf])
    assert [s["name"] for s in doc["pending"]] == ["canonical-frontmatter"]
    assert cli("migrate", "run", cwd=v1_repo).exit_code == 0
    assert cli("lint", cwd=v1_repo).exit_code == 0


def test_init_on_version_1_migrates_first_then_sets_up(v1_repo: Path, cli: CliRunner) -> None:
    """A user upgrading lorebook runs init on the clone: it finishes, it does not refuse."""
    before = _notes(v1_repo)
    done = cli("init", cwd=v1_repo)
    assert done.exit_code == 0, done.stderr  # was: exit 1 with the one line above
    assert (
        "migrated .lorebook/ from format version 1 to the current one, as `lorebook migrate "
        "run` does: 13 files rewritten (ids, paths and bodies kept); review with `git diff "
        ".lorebook/`, then commit"
    ) in done.stdout
    assert "lb_schema: 2" in (v1_repo / ".lorebook/config.yaml").read_text(encoding="utf-8")
    assert _notes(v1_repo) == before  # every note's path and body kept
    assert cli("lint", cwd=v1_repo).exit_code == 0
    assert "up to date; nothing changed" in cli("init", cwd=v1_repo).stdout


def test_init_on_a_newer_version_still_refuses(v1_repo: Path, cli: CliRunner) -> None:
    config = v1_repo / ".lorebook/config.yaml"
    config.write_text(config.read_text(encoding="utf-8").replace("lb_schema: 1", "lb_schema: 9"))
    done = cli("init", cwd=v1_repo)
    assert done.exit_code == 1
    assert "is at format version 9, newer than this lorebook reads (2): upgrade lorebook" in (
        done.stderr
    )
