"""Capture of Codex rollouts by core: staged from the recorded rollouts through this plugin's
reader, incrementally, and from the hooks as Codex runs them."""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

from lorebook.capture.stage import capture_session, load_log, log_path
from lorebook.initialize import init_repo
from lorebook.kb.paths import KBPaths
from lorebook.testing import FakeHost
from lorebook_codex.harness import CodexHarness
from tests.plugins.codex.conftest import FIXTURES

SID = "01a22b0f-93b5-7292-ba08-8cd37b547c5b"  # runs 04+05: blocked by `ask`, then compacted
ROLLOUT = FIXTURES / "lorebook-run" / f"rollout-2026-11-30T06-06-10-{SID}.jsonl"


def _rollout(tmp_path: Path) -> Path:
    target = tmp_path / "rollout.jsonl"
    shutil.copy(ROLLOUT, target)
    return target


def _user_line(text: str) -> str:
    payload = {
        "type": "message",
        "role": "user",
        "content": [{"type": "input_text", "text": text}],
        "internal_chat_message_metadata_passthrough": {"content_item_kinds": ["user.text"]},
    }
    record = {"timestamp": "2026-11-30T07:00:00Z", "type": "response_item", "payload": payload}
    return json.dumps(record) + "\n"


def test_capture_stages_the_prompts_and_never_the_hook_or_harness_text(
    kb_repo: Path, tmp_path: Path
) -> None:
    ref = _rollout(tmp_path)
    result = capture_session(KBPaths(kb_repo), CodexHarness(), "codex", SID, str(ref))
    log = load_log(result.path)
    assert log is not None
    assert log.origin == f"codex:{SID}"
    assert [t.text for t in log.turns if t.role == "user"] == [
        "PROBE_TOOL please print hello.txt",
        "say hi again",
    ]
    assert [t.text for t in log.turns if t.role == "summary"] == ["hi"]
    staged = result.path.read_text(encoding="utf-8")
    for marker in ("LBMARK_", "AGENTS.md", "<environment_context>", "<skills_instructions>"):
        assert marker not in staged
    (blocked,) = [t for t in log.turns if t.role == "tool"]
    assert blocked.tool_calls[0].name == "Bash"
    assert blocked.tool_calls[0].is_error
    assert log.transcript_length == ref.stat().st_size


def test_a_grown_rollout_stages_only_its_new_turns(kb_repo: Path, tmp_path: Path) -> None:
    ref = _rollout(tmp_path)
    paths = KBPaths(kb_repo)
    first = capture_session(paths, CodexHarness(), "codex", SID, str(ref))
    assert not capture_session(paths, CodexHarness(), "codex", SID, str(ref)).changed
    with ref.open("a") as handle:
        handle.write(_user_line("no: in this repo we always run `uv run pytest`"))
        handle.write('{"timestamp": "2026-11-30T07:00:01Z", "type": "response_it')  # unfinished
    grown = capture_session(paths, CodexHarness(), "codex", SID, str(ref))
    assert grown.new_turns == 1
    log = load_log(grown.path)
    assert log is not None
    assert log.turns[-1].text == "no: in this repo we always run `uv run pytest`"
    assert grown.path == first.path


def test_hooks_capture_inline_at_stop_and_detached_at_session_end(
    kb_repo: Path, tmp_path: Path
) -> None:
    init_repo(kb_repo, ["codex"])
    ref = _rollout(tmp_path)
    host = FakeHost(kb_repo, CodexHarness())
    base = {"session_id": SID, "transcript_path": str(ref), "cwd": str(kb_repo)}
    stop = host.fire(
        "Stop", {**base, "hook_event_name": "Stop", "stop_hook_active": False, "turn_id": "t"}
    )
    assert (stop.exit_code, stop.stdout) == (0, "")
    staged = log_path(KBPaths(kb_repo), "codex", SID)
    assert staged.exists()  # inline: done before the hook returned
    with ref.open("a") as handle:
        handle.write(_user_line("one more thing: the cache tags gotcha"))
    end = host.fire("SessionEnd", {**base, "hook_event_name": "SessionEnd", "reason": "other"})
    assert (end.exit_code, end.stdout) == (0, "")
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        log = load_log(staged)
        if log is not None and log.turns[-1].text == "one more thing: the cache tags gotcha":
            break
        time.sleep(0.2)
    else:
        raise AssertionError("the detached capture did not stage the new turn within 30 s")
    assert not (kb_repo / ".lorebook/_logs/hook-errors.log").exists()
