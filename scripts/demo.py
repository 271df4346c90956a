"""The whole lorebook loop, in a throwaway git repository, with the real commands.

Two recorded sessions (scripts/demo_sessions/, normalised-turns JSONL) go in: the first
teaches how tests are run and where billing code lives, the second, a week later,
contradicts the first. In between, Claude Code's hooks are replayed exactly as Claude Code
runs them (the committed hook command, the payload on stdin), showing what the assistant
would be told. Pass --keep to keep the repository afterwards.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from lorebook.fastpath.client import stop_server

LOREBOOK = [sys.executable, "-m", "lorebook"]
SESSIONS = Path(__file__).resolve().parent / "demo_sessions"
TESTS_PROMPT = "what's the command to run the tests?"
"""A prompt the ranker answers with confidence: the note the session taught goes whole."""


def step(title: str) -> None:
    """Print a step heading."""
    print(f"\n\033[1m== {title}\033[0m")


def run(repo: Path, *args: str, check: bool = True) -> str:
    """Run one lorebook command in ``repo``, print what it printed, return its stdout."""
    shown = " ".join(a if " " not in a else repr(a) for a in args)
    print(f"$ lorebook {shown}")
    proc = subprocess.run([*LOREBOOK, *args], cwd=repo, capture_output=True, text=True, check=False)
    out = (proc.stdout + proc.stderr).rstrip()
    if out:
        print("  " + out.replace("\n", "\n  "))
    if check and proc.returncode != 0:
        raise SystemExit(f"demo failed: lorebook {shown} exited {proc.returncode}")
    return proc.stdout


def git(repo: Path, *args: str) -> str:
    """Run git quietly and return its stdout."""
    env = {**os.environ, "GIT_AUTHOR_NAME": "demo", "GIT_AUTHOR_EMAIL": "demo@example.invalid",
           "GIT_COMMITTER_NAME": "demo", "GIT_COMMITTER_EMAIL": "demo@example.invalid"}  # fmt: skip
    return subprocess.run(
        ["git", *args], cwd=repo, capture_output=True, text=True, check=True, env=env
    ).stdout


def commit(repo: Path, message: str) -> None:
    """Accept what curation wrote the way a person does: commit it (shown, like a command)."""
    print(f"$ git add -A && git commit -m {message!r}")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", message)


def replay(repo: Path, event: str, session: str, fields: dict[str, object]) -> None:
    """Run the hook command Claude Code would run for ``event``, with a payload of its shape."""
    settings = json.loads((repo / ".claude/settings.json").read_text())
    command = settings["hooks"][event][0]["hooks"][0]["command"]
    payload = {"session_id": session, "transcript_path": "/dev/null", "cwd": str(repo),
               "hook_event_name": event, **fields}  # fmt: skip
    env = {**os.environ, "CLAUDE_PROJECT_DIR": str(repo)}
    proc = subprocess.run(["bash", "-c", command], input=json.dumps(payload), cwd=repo,
                          capture_output=True, text=True, env=env, check=False)  # fmt: skip
    shown = {k: v for k, v in fields.items() if k != "source"}
    print(f"$ Claude Code fires {event} {json.dumps(shown)}  (exit code {proc.returncode})")
    timing = (repo / ".lorebook/_logs/hook-timing.log").read_text().splitlines()
    last = json.loads(timing[-1]) if timing else {}
    how = "the warm hook process" if last.get("warm") else "the hook's own process"
    print(f"  answered in {last.get('ms', '?')} ms by {how}")
    if not proc.stdout.strip():
        print("  (nothing injected)")
        return
    answer = json.loads(proc.stdout)["hookSpecificOutput"]
    for key in ("permissionDecision", "permissionDecisionReason", "additionalContext"):
        if key in answer:
            print(f"  {key}:\n    " + str(answer[key]).replace("\n", "\n    "))


def main() -> None:
    """Run the demo."""
    keep = "--keep" in sys.argv[1:]
    repo = Path(tempfile.mkdtemp(prefix="lorebook-demo-"))
    try:
        git(repo, "init", "-q")
        step("1. Wire the repository for Claude Code")
        run(repo, "init", "--harnesses", "claude")

        step("2. A session comes in (recorded), and its teaching moments are extracted")
        run(repo, "import", str(SESSIONS / "01-tests-and-billing.jsonl"))
        run(repo, "extract")

        step("3. Curation turns proposals into notes; review is git")
        run(repo, "curate")
        run(repo, "review")
        print("  (until a person reviews them, the notes reach the model only as pointers:)")
        replay(repo, "UserPromptSubmit", "next-0", {"prompt": TESTS_PROMPT})
        commit(repo, "lorebook: what we taught the assistant in session 1")

        step("4. The next session: what the assistant is told")
        replay(repo, "SessionStart", "next-1", {"source": "startup"})
        replay(repo, "UserPromptSubmit", "next-1", {"prompt": TESTS_PROMPT})
        replay(repo, "UserPromptSubmit", "next-1", {"prompt": "what a sunny day for a picnic"})

        step("5. A later session contradicts a note: it becomes a conflict, never an overwrite")
        run(repo, "import", str(SESSIONS / "02-hatch.jsonl"))
        run(repo, "extract")
        run(repo, "curate")
        run(repo, "conflict", "list")
        listed = subprocess.run([*LOREBOOK, "conflict", "list", "--json"], cwd=repo,
                                capture_output=True, text=True, check=True).stdout  # fmt: skip
        conflict = json.loads(listed)["conflicts"][0]["id"]
        run(repo, "conflict", "resolve", conflict, "--decision", "accept",
            "--why", "we moved to hatch last week")  # fmt: skip
        commit(repo, "lorebook: tests run with hatch now")

        step("6. The session after that is told the new rule")
        replay(repo, "SessionStart", "next-2", {"source": "startup"})
        replay(repo, "UserPromptSubmit", "next-2", {"prompt": TESTS_PROMPT})

        step("7. Health")
        run(repo, "lint")
        run(repo, "status")
        print("\nThe demo repository is", repo if keep else "removed now (pass --keep to keep it).")
    finally:
        stop_server(str(repo / ".lorebook"))  # the hooks started it; nothing outlives the demo
        if not keep:
            shutil.rmtree(repo, ignore_errors=True)


if __name__ == "__main__":
    main()
