"""A symbolic link committed under ``.lorebook/`` never makes lorebook write outside the repo.

A cloned repository can hold ``.lorebook/.cache/hookd.lock -> ../../../../.bashrc`` (``git
add -f`` commits one even in an ignored folder). The paths are found, not listed: a whole
session (session start, a prompt, a tool, a failed tool, stop, session end, the detached
capture and its follow-up, the warm hook process) runs once in a clean repository, and every
file or folder it creates or changes under ``.lorebook/`` (with SQLite's side files) is then
made a link to a file or folder outside, in a repository of its own, and the session run
again. The target must be left exactly as it was, and ``lorebook doctor`` must name the link.
"""

from __future__ import annotations

import fnmatch
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from lorebook.fastpath.client import available, stop_server
from lorebook.kb.store import MarkdownStore
from lorebook.testing import make_note
from tests.conftest import CliRunner

pytestmark = pytest.mark.skipif(
    not available(), reason="symbolic links and the warm process need POSIX"
)

TRANSCRIPT = (
    Path(__file__).parents[1]
    / "plugins/claude/fixtures/transcripts/11111111-2222-4333-8444-555555555555.jsonl"
)
SESSION = "11111111-2222-4333-8444-555555555555"
EVENTS: list[tuple[str, dict[str, object]]] = [
    ("SessionStart", {"source": "startup"}),
    ("UserPromptSubmit", {"prompt": "how do I run the tests, with uv or bare pytest?"}),
    ("PreToolUse", {"tool_name": "Bash", "tool_input": {"command": "git push origin main"}}),
    ("PreToolUse", {"tool_name": "Bash", "tool_input": {"command": "pytest -q"}}),
    (
        "PostToolUseFailure",
        {"tool_name": "Bash", "tool_input": {"command": "pytest"}, "error": "ModuleNotFoundError"},
    ),
    ("Stop", {"stop_hook_active": False}),
    ("SessionEnd", {"reason": "other"}),
]
SIDE_FILES = ("-journal", "-wal", "-shm")
PRECIOUS = b"the user's own file: must never change\n"


def make_repo(root: Path, cli: CliRunner) -> Path:
    """A git repository wired for Claude Code, with notes a session's events all match."""
    repo = root / "repo"
    repo.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    assert cli("init", "--harnesses", "claude", cwd=repo).exit_code == 0
    store = MarkdownStore(repo)
    store.add(
        make_note(
            "use-uv",
            title="Run the tests with uv run pytest",
            body="Never bare pytest: it misses the workspace packages.",
            lb_anchors={"commands": [r"\bpytest\b"], "errors": ["ModuleNotFoundError"]},
        )
    )
    store.add(
        make_note(
            "no-push-main",
            title="Never push to main",
            body="Open a pull request instead.",
            lb_anchors={"commands": [r"git push\b.*\bmain\b"]},
            lb_enforce="deny",
        )
    )
    assert cli("index", "rebuild", cwd=repo).exit_code == 0
    return repo


def snapshot(kb: Path) -> dict[str, tuple[int, int, int]]:
    """Every path under ``kb``: (inode, modification time, size), not following links."""
    found: dict[str, tuple[int, int, int]] = {}
    for folder, dirs, files in os.walk(kb):
        for name in [*dirs, *files]:
            full = Path(folder, name)
            info = full.lstat()
            found[str(full.relative_to(kb))] = (info.st_ino, info.st_mtime_ns, info.st_size)
    return found


def run_session(repo: Path) -> list[str]:
    """Fire the session's events through the launcher, wait for what they started to end.

    Returns the lines of ``hook-errors.log``.
    """
    transcript = repo.parent / "transcript.jsonl"
    shutil.copy(TRANSCRIPT, transcript)
    env = {k: v for k, v in os.environ.items() if k != "LOREBOOK_HOOK_SERVER"}
    for host_event, fields in EVENTS:
        payload = {
            "session_id": SESSION,
            "cwd": str(repo),
            "transcript_path": str(transcript),
            "hook_event_name": host_event,
            **fields,
        }
        proc = subprocess.run(
            [sys.executable, "-I", "-S", str(repo / ".lorebook/bin/hook"), "claude", host_event],
            input=json.dumps(payload).encode(), capture_output=True, cwd=repo, env=env,
            timeout=60, check=False,
        )  # fmt: skip
        assert proc.returncode == 0, proc.stderr
    settle(repo / ".lorebook")
    log = repo / ".lorebook/_logs/hook-errors.log"
    return log.read_text().splitlines() if log.is_file() and not log.is_symlink() else []


def settle(kb: Path) -> None:
    """Stop the warm process; wait until nothing under ``kb`` changed for 1.5 s (30 s at most)."""
    give_up = time.monotonic() + 30
    last = snapshot(kb)
    quiet_since = time.monotonic()
    while time.monotonic() < give_up:
        time.sleep(0.25)
        if not (kb / ".cache").is_symlink():
            stop_server(str(kb))
        now = snapshot(kb)
        if now != last:
            last, quiet_since = now, time.monotonic()
        elif time.monotonic() - quiet_since > 1.5:
            return


def discover(root: Path, cli: CliRunner) -> set[str]:
    """What a whole session creates or changes under ``.lorebook/``, found by running one."""
    repo = make_repo(root, cli)
    kb = repo / ".lorebook"
    before = snapshot(kb)
    assert run_session(repo) == []
    after = snapshot(kb)
    changed = {path for path, stamp in after.items() if before.get(path) != stamp}
    for path in list(changed):  # the folders they are in
        parent = Path(path).parent
        while str(parent) != ".":
            changed.add(str(parent))
            parent = parent.parent
    for path in after:  # SQLite's side files beside every database
        if path.endswith(".sqlite"):
            changed.update(path + side for side in SIDE_FILES)
    return changed


PATHS = [
    ".cache",
    ".cache/config.json",
    ".cache/hookd.failed",
    ".cache/hookd.lock",
    ".cache/hookd.sock",
    ".cache/index.sqlite",
    ".cache/index.sqlite-journal",
    ".cache/index.sqlite-shm",
    ".cache/index.sqlite-wal",
    ".cache/usage.json",
    ".cache/usage.lock",
    ".state",
    ".state/capture",
    ".state/capture/*.follow.lock",
    ".state/capture/*[0-9a-f].lock",
    ".state/follow",
    ".state/follow/*.json",
    ".state/kb.lock",
    ".state/last-prune",
    ".state/lint-tick.json",
    ".state/resume",
    ".state/resume/*.json",
    ".state/sessions",
    ".state/sessions/*.json",
    "_logs",
    "_logs/hook-errors.log",
    "_logs/hook-timing.log",
    "_sessions",
    "_sessions/*.json",
    "_sessions/*.jsonl",
]
"""Where a session writes under ``.lorebook/`` (a ``*`` stands for a session's own name):
the test below checks the list against what a session really writes."""
FOLDERS = {
    ".cache", ".state", ".state/capture", ".state/follow", ".state/resume", ".state/sessions",
    "_logs", "_sessions",
}  # fmt: skip
_FOUND: list[set[str]] = []


def test_the_list_holds_every_path_a_session_writes(tmp_path: Path, cli: CliRunner) -> None:
    found = discover(tmp_path, cli)
    missing = sorted(p for p in found if not any(fnmatch.fnmatchcase(p, g) for g in PATHS))
    assert missing == [], "add these to PATHS"
    assert {".cache/hookd.lock", ".state/sessions", "_sessions"} <= found


def resolve(pattern: str, cli: CliRunner, root: Path) -> str:
    """The path ``pattern`` names in a session of this test (a clean run finds the name)."""
    if "*" not in pattern:
        return pattern
    if not _FOUND:  # once per process: the names depend only on the session's id
        _FOUND.append(discover(root, cli))
    found = sorted(p for p in _FOUND[0] if fnmatch.fnmatchcase(p, pattern))
    assert found, f"no session path matches {pattern}"
    return found[0]


@pytest.mark.parametrize("pattern", PATHS)
def test_a_committed_link_at_any_written_path_leaves_its_target_alone(
    pattern: str, tmp_path: Path, cli: CliRunner
) -> None:
    rel = resolve(pattern, cli, tmp_path / "clean")
    repo = make_repo(tmp_path / "attacked", cli)
    kb = repo / ".lorebook"
    outside = tmp_path / "outside"
    outside.mkdir()
    link = kb / rel
    folder = rel in FOLDERS
    if folder:
        target = outside / "folder"
        target.mkdir()
        (target / "keep.txt").write_bytes(PRECIOUS)
        old = time.time() - 400 * 86400  # older than any retention: pruning would take it
        os.utime(target / "keep.txt", (old, old))
        shutil.rmtree(link, ignore_errors=True)
    else:
        target = outside / "file"
        target.write_bytes(PRECIOUS)
        link.unlink(missing_ok=True)
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(os.path.relpath(target, link.parent))
    subprocess.run(["git", "add", "-f", ".lorebook"], cwd=repo, check=True)
    stamp = snapshot(outside)

    run_session(repo)

    assert snapshot(outside) == stamp, f"a link at .lorebook/{rel} let a write through"
    if folder:
        assert os.listdir(target) == ["keep.txt"]
        assert (target / "keep.txt").read_bytes() == PRECIOUS
    else:
        assert target.read_bytes() == PRECIOUS
    assert link.is_symlink()  # nor was the committed link itself removed
    doctor = cli("doctor", cwd=repo)
    assert f".lorebook/{rel}" in doctor.stdout, doctor.stdout
