"""A guided run of what lorebook does today, in a throwaway git repository.

Notes are added by hand (capture and curation of sessions come in a later release), then
Claude Code's hooks are wired and replayed with payloads of the shapes Claude Code sends.

Every step runs the real `lorebook` command and prints what it printed, so what you see is
what a user gets. Pass --keep to keep the repository afterwards.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

LOREBOOK = [sys.executable, "-m", "lorebook"]


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
    if not check:
        print(f"  (exit code {proc.returncode})")
    return proc.stdout


def replay(repo: Path, event: str, fields: dict[str, object]) -> None:
    """Run the hook command Claude Code would run for ``event``, with a payload of its shape."""
    settings = json.loads((repo / ".claude/settings.json").read_text())
    command = settings["hooks"][event][0]["hooks"][0]["command"]
    payload = {"session_id": "demo-session", "transcript_path": "/dev/null", "cwd": str(repo),
               "hook_event_name": event, **fields}  # fmt: skip
    env = {**os.environ, "CLAUDE_PROJECT_DIR": str(repo)}
    proc = subprocess.run(["bash", "-c", command], input=json.dumps(payload), cwd=repo,
                          capture_output=True, text=True, env=env, check=False)  # fmt: skip
    shown = {k: v for k, v in fields.items() if k != "source"}
    print(f"$ {event} {json.dumps(shown)}  (exit code {proc.returncode})")
    if not proc.stdout.strip():
        print("  (nothing injected)\n")
        return
    answer = json.loads(proc.stdout)["hookSpecificOutput"]
    for key in ("permissionDecision", "permissionDecisionReason", "additionalContext"):
        if key in answer:
            print(f"  {key}:\n    " + str(answer[key]).replace("\n", "\n    "))
    print()


def main() -> None:
    """Run the demo."""
    keep = "--keep" in sys.argv[1:]
    repo = Path(tempfile.mkdtemp(prefix="lorebook-demo-"))
    try:
        subprocess.run(["git", "init", "-q", str(repo)], check=True)
        step("1. Create the knowledge base")
        run(repo, "init")

        step("2. Teach it three things (the manual capture path)")
        run(
            repo,
            "note",
            "add",
            "--title",
            "Run tests with uv run pytest",
            "--description",
            "Running the test suite",
            "--kind",
            "convention",
            "--tag",
            "testing",
            "--anchor-command",
            r"^pytest\b",
            "--body",
            "Always `uv run pytest`; bare `pytest` misses the workspace packages.",
        )
        run(
            repo,
            "note",
            "add",
            "--title",
            "Never push to main",
            "--description",
            "Publishing changes",
            "--kind",
            "prohibition",
            "--enforce",
            "deny",
            "--anchor-command",
            r"git push .*\bmain\b",
            "--body",
            "Open a pull request instead.",
            "--relates-to",
            "practice-run-tests-with-uv-run-pytest",
        )
        run(
            repo,
            "note",
            "add",
            "--title",
            "Billing lives in src/pay",
            "--description",
            "Finding the billing code",
            "--kind",
            "location",
            "--folder",
            "backend",
            "--anchor-file",
            "src/pay/**",
        )
        run(repo, "folder", "describe", "backend", "Server-side code: billing, cache, data.")

        step("3. Generate the catalog and indexes, then lint")
        run(repo, "index", "rebuild")
        run(repo, "lint")
        print("\nENTRY.md, the catalog a new session starts from:\n")
        print((repo / ".lorebook/ENTRY.md").read_text())
        note = repo / ".lorebook/nodes/prohibition/practice-never-push-to-main.md"
        print(f"A note, as git shows it ({note.relative_to(repo)}):\n")
        print(note.read_text())

        step("4. Review with git: notes are plain files in the repository")
        print(
            subprocess.run(
                ["git", "status", "--short", "--untracked-files=all"],
                cwd=repo,
                capture_output=True,
                text=True,
                check=True,
            ).stdout
        )

        step("5. A hand edit that breaks a link is caught")
        note.write_text(
            note.read_text().replace(
                "lb_relates_to: [practice-run-tests-with-uv-run-pytest]",
                "lb_relates_to: [practice-run-tests-with-uv-run-pytest, practice-deleted-note]",
            )
        )
        run(repo, "lint", check=False)
        run(repo, "doctor", check=False)

        step("6. Fix it, then wire Claude Code")
        note.write_text(note.read_text().replace(", practice-deleted-note]", "]"))
        run(repo, "index", "rebuild")
        run(repo, "init", "--harnesses", "claude")

        step(
            "7. What Claude Code's hooks would inject (recorded payloads, replayed as it runs them)"
        )
        replay(repo, "SessionStart", {"source": "startup"})
        replay(repo, "UserPromptSubmit", {"prompt": "how do I run the pytest suite?"})
        replay(repo, "UserPromptSubmit", {"prompt": "what a sunny day for a picnic"})
        replay(
            repo,
            "PreToolUse",
            {"tool_name": "Bash", "tool_input": {"command": "git push origin main"}},
        )

        step("8. Status")
        run(repo, "status")
        run(repo, "doctor")
        print("\nThe demo repository is", repo if keep else "removed now (pass --keep to keep it).")
    finally:
        if not keep:
            shutil.rmtree(repo, ignore_errors=True)


if __name__ == "__main__":
    main()
