"""The hook fuzz run, small (the long run is `benchmarks/fuzz_hooks.py --runs 10000`)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import needs_shared

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
HARNESSES = ["claude", "codex", "copilot", "opencode", "cursor"]


@pytest.mark.slow
@needs_shared  # the payloads it mutates are the hosts' recorded ones in ../shared/fixtures
def test_fuzz_run_small() -> None:
    """300 mutated payloads per harness: no failure of any kind (an unreviewed deny rule
    never acts), and the reviewed rules answer."""
    run = subprocess.run(
        [sys.executable, str(BENCHMARKS / "fuzz_hooks.py"), "--runs", "300", "--seed", "5"],
        capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    rows = {row["harness"]: row for row in map(json.loads, run.stdout.splitlines())}
    assert sorted(rows) == sorted(HARNESSES)
    for harness, row in rows.items():
        failures = {k: row[k] for k in ("nonzero", "escaped", "traceback", "bad_output",
                                        "unreviewed_enforced", "committed_changed",
                                        "secret_leaked")}  # fmt: skip
        assert set(failures.values()) == {0}, (harness, failures)
        assert row["runs"] == 300
        assert row["ask_or_deny"] > 0, harness  # the deny and ask answers were fuzzed too


def test_answers_are_checked_against_the_fields_each_host_reads() -> None:
    sys.path.insert(0, str(BENCHMARKS))
    try:
        from fuzz_hooks import valid_for_host
    finally:
        sys.path.remove(str(BENCHMARKS))
    deny = b'{"permission": "deny", "agent_message": "R", "user_message": "R"}'
    assert valid_for_host("cursor", "beforeShellExecution", deny)
    assert not valid_for_host("cursor", "stop", b'{"followup_message": "go on"}')
    assert not valid_for_host("cursor", "sessionStart", b'{"additionalContext": "C"}')
    assert not valid_for_host("cursor", "preToolUse", b'{"permission": "maybe"}')
    assert not valid_for_host("claude", "Stop", b"[1]")
    ask = {"hookEventName": "PreToolUse", "permissionDecision": "ask",
           "permissionDecisionReason": "R"}  # fmt: skip
    assert valid_for_host("claude", "PreToolUse", json.dumps({"hookSpecificOutput": ask}).encode())
    assert not valid_for_host(
        "codex", "PreToolUse", json.dumps({"hookSpecificOutput": ask}).encode()
    )
    other = {"hookSpecificOutput": {**ask, "hookEventName": "PostToolUse"}}
    assert not valid_for_host("claude", "PreToolUse", json.dumps(other).encode())
    long = {"hookSpecificOutput": {"hookEventName": "UserPromptSubmit",
                                   "additionalContext": "x" * 10_001}}  # fmt: skip
    assert not valid_for_host("claude", "UserPromptSubmit", json.dumps(long).encode())
    assert not valid_for_host("copilot", "preToolUse", b'{"permissionDecision": "ask"}')
