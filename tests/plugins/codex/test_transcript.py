"""Codex rollouts (JSONL) to normalised turns, resumable from a byte offset."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from lorebook.events import ToolCall, Turn
from lorebook_codex.transcript import EXCERPT_CHARS, read_transcript, transcript_end
from tests.plugins.codex.conftest import FIXTURES

PROBE = FIXTURES / "transcripts"
SAY_HI = PROBE / "rollout-2026-11-30T04-20-30-01a22aae-d2b3-7f32-82b9-24c94f5de47c.jsonl"
TOOL = PROBE / "rollout-2026-11-30T04-20-31-01a22aae-d68a-7060-bd4e-02613be3812f.jsonl"
COMPACTED = PROBE / "rollout-2026-11-30T04-20-36-01a22aae-ea9d-76a3-b0dc-9cdfc95edea7.jsonl"
SWAPPED = PROBE / "rollout-2026-11-30T04-20-42-01a22aaf-049a-7301-b606-21c26503b25b.jsonl"
RUN = FIXTURES / "lorebook-run"
FAILED = RUN / "rollout-2026-11-30T06-06-06-01a22b0f-81fa-7a33-8fb2-918f9edb5f36.jsonl"
DENIED = RUN / "rollout-2026-11-30T06-06-09-01a22b0f-8ddc-7e71-9d0c-2971a92fc7fc.jsonl"
ASKED = RUN / "rollout-2026-11-30T06-06-10-01a22b0f-93b5-7292-ba08-8cd37b547c5b.jsonl"
ALL = [SAY_HI, TOOL, COMPACTED, SWAPPED, FAILED, DENIED, ASKED]

PROMPTS = {
    SAY_HI: ["say hi"],
    TOOL: ["say hi", "PROBE_TOOL please print hello.txt"],
    COMPACTED: ["PROBE_TOOL please print hello.txt", "say hi again"],
    SWAPPED: ["say hi"],
    FAILED: ["say hi", "PROBE_TOOL please print hello.txt"],
    DENIED: ["PROBE_TOOL please print hello.txt"],
    ASKED: ["PROBE_TOOL please print hello.txt", "say hi again"],
}
"""The prompts of the recorded runs (shared/fixtures README and fixtures/README.md)."""

BASH = {"command": "cat hello.txt"}
HOOK_KIND = "hooks.additional_context"


def _turns(path: Path, since: int | None = None, until: int | None = None) -> list[Turn]:
    return list(read_transcript(str(path), since, until))


def _human(turns: list[Turn]) -> list[str]:
    return [t.text for t in turns if t.role == "user"]


def _lines(path: Path) -> list[bytes]:
    return path.read_bytes().splitlines(keepends=True)


def _key(turns: list[Turn]) -> list[tuple[Any, ...]]:
    return [(t.index, t.role, t.text, t.injected, t.tool_calls) for t in turns]


def _record(kind: str, payload: dict[str, Any], stamp: str = "2026-01-01T00:00:00Z") -> bytes:
    line = {"timestamp": stamp, "ordinal": 0, "type": kind, "payload": payload}
    return (json.dumps(line) + "\n").encode()


def _item(**payload: Any) -> bytes:
    return _record("response_item", payload)


def _message(role: str, *texts: str, kinds: list[str] | None = None) -> bytes:
    item = "output_text" if role == "assistant" else "input_text"
    payload: dict[str, Any] = {
        "type": "message",
        "role": role,
        "content": [{"type": item, "text": text} for text in texts],
    }
    if kinds is not None:
        payload["internal_chat_message_metadata_passthrough"] = {"content_item_kinds": kinds}
    return _record("response_item", payload)


def _write(tmp_path: Path, *lines: bytes) -> Path:
    path = tmp_path / "rollout.jsonl"
    path.write_bytes(b"".join(lines))
    return path


@pytest.mark.parametrize("path", ALL, ids=lambda p: p.name[28:40])
def test_human_turns_are_exactly_the_prompts_of_the_runs(path: Path) -> None:
    turns = _turns(path)
    assert _human(turns) == PROMPTS[path]
    assert not any(t.injected for t in turns if t.role == "user")


@pytest.mark.parametrize("path", ALL, ids=lambda p: p.name[28:40])
def test_agents_md_environment_and_harness_text_never_become_turns(path: Path) -> None:
    raw = path.read_text(encoding="utf-8")
    assert "# AGENTS.md instructions for" in raw or path in (FAILED, DENIED, ASKED)
    assert "<environment_context>" in raw
    assert "<skills_instructions>" in raw
    for turn in _turns(path):
        for marker in ("AGENTS.md", "<environment_context>", "<skills_instructions>"):
            assert marker not in turn.text
        assert "permissions instructions" not in turn.text


@pytest.mark.parametrize("path", ALL, ids=lambda p: p.name[28:40])
def test_hook_text_is_an_injected_tool_turn_never_a_user_turn(path: Path) -> None:
    turns = _turns(path)
    marked = [t for t in turns if "PROBEINJECT_" in t.text or "LBMARK_" in t.text]
    injected = [t for t in marked if t.injected]
    assert all(t.role == "tool" and not t.tool_calls for t in injected)
    # A tool result quoting a hook's deny reason, and the mock model echoing it, are not
    # injections.
    assert all(t.role in ("tool", "assistant") for t in marked if not t.injected)
    assert not any(t.role == "user" for t in marked)
    raw = path.read_text(encoding="utf-8")
    assert len(injected) == raw.count('"content_item_kinds":["hooks.additional_context"]')


def test_the_tool_session_reads_as_a_conversation() -> None:
    turns = _turns(TOOL)
    assert [(t.index, t.role, t.text) for t in turns if not t.injected] == [
        (8, "user", "say hi"),
        (12, "assistant", "hi"),
        (24, "user", "PROBE_TOOL please print hello.txt"),
        (27, "assistant", ""),
        (31, "tool", "hello from the probe file"),
        (34, "assistant", "done: Chunk ID: c7bf8e Wall time: 0.0000 seconds Process exited wi"),
    ]
    call, result = turns[7], turns[9]
    assert call.tool_calls == (ToolCall("Bash", BASH),)
    assert result.tool_calls == (ToolCall("Bash", BASH, "hello from the probe file", False),)
    assert result.timestamp == "2026-11-30T04:20:34.892Z"
    assert [t.text for t in turns if t.injected] == [
        "PROBEINJECT_codex_SessionStart_plain",
        "PROBEINJECT_codex_UserPromptSubmit_hso",
        "PROBEINJECT_codex_SessionStart_plain",
        "PROBEINJECT_codex_UserPromptSubmit_hso",
        "PROBEINJECT_codex_PostToolUse_hso",
    ]


def test_a_failed_command_is_an_error_result_with_its_output() -> None:
    (result,) = [t for t in _turns(FAILED) if t.role == "tool" and t.tool_calls]
    error = "cat: hello.txt: No such file or directory"
    assert result.text == error
    assert result.tool_calls == (ToolCall("Bash", BASH, error, is_error=True),)


@pytest.mark.parametrize("path", [DENIED, ASKED, COMPACTED], ids=lambda p: p.name[28:40])
def test_a_blocked_tool_is_an_error_result_carrying_the_reason(path: Path) -> None:
    (result,) = [t for t in _turns(path) if t.role == "tool" and t.tool_calls]
    (call,) = result.tool_calls
    assert call.is_error
    assert (call.name, dict(call.input)) == ("Bash", BASH)
    assert call.result_excerpt == result.text
    assert result.text.startswith("Command blocked by PreToolUse hook: ")


def test_the_compaction_summary_is_a_summary_turn_and_history_is_not_repeated() -> None:
    turns = _turns(COMPACTED)
    summaries = [t for t in turns if t.role == "summary"]
    assert [(t.index, t.text, t.injected) for t in summaries] == [(27, "hi", False)]
    # The compacted record's replacement_history repeats the first prompt: read once.
    assert _human(turns).count("PROBE_TOOL please print hello.txt") == 1


@pytest.mark.parametrize("path", ALL, ids=lambda p: p.name[28:40])
def test_turn_index_is_the_line_number(path: Path) -> None:
    lines = _lines(path)
    for turn in _turns(path):
        record = json.loads(lines[turn.index])
        assert record["type"] in ("response_item", "compacted")
        assert record["timestamp"] == turn.timestamp


def test_reading_from_an_offset_gives_the_same_turns_as_a_full_read(tmp_path: Path) -> None:
    full = _turns(ASKED)
    lines = _lines(ASKED)
    for cut in (5, 15, 27, 30, len(lines)):  # none between a call and its result
        offset = sum(len(line) for line in lines[:cut])
        assert _key(_turns(ASKED, offset)) == _key([t for t in full if t.index >= cut])


def test_resume_after_the_file_grows_reads_only_new_turns(tmp_path: Path) -> None:
    lines = _lines(FAILED)
    path = tmp_path / "rollout.jsonl"
    path.write_bytes(b"".join(lines[:20]))
    first = _turns(path)
    end = transcript_end(str(path))
    assert end == path.stat().st_size
    with path.open("ab") as handle:
        handle.write(b"".join(lines[20:]))
    second = _turns(path, end)
    assert _key(first + second) == _key(_turns(FAILED))
    assert _human(second) == ["PROBE_TOOL please print hello.txt"]


def test_a_result_whose_call_was_read_before_the_offset_is_unknown(tmp_path: Path) -> None:
    lines = _lines(FAILED)
    call_line = next(i for i, line in enumerate(lines) if b'"function_call"' in line)
    offset = sum(len(line) for line in lines[: call_line + 1])
    (result,) = [t for t in _turns(FAILED, offset) if t.role == "tool" and t.tool_calls]
    assert result.tool_calls[0].name == "unknown"
    assert result.tool_calls[0].is_error


def test_a_line_codex_is_still_writing_waits_for_the_next_read(tmp_path: Path) -> None:
    lines = _lines(SAY_HI)
    partial = lines[7][:-30]
    path = _write(tmp_path, *lines[:7], partial)
    assert _human(_turns(path)) == []
    end = transcript_end(str(path))
    assert end == sum(len(line) for line in lines[:7])
    with path.open("ab") as handle:
        handle.write(lines[7][-30:] + b"".join(lines[8:]))
    assert _human(_turns(path, end)) == ["say hi"]


def test_until_leaves_later_lines_for_the_next_read() -> None:
    lines = _lines(TOOL)
    until = sum(len(line) for line in lines[:20]) + 5  # inside line 20
    first = _turns(TOOL, None, until)
    assert max(t.index for t in first) < 20
    rest = _turns(TOOL, sum(len(line) for line in lines[:20]))
    assert _key(first + rest) == _key(_turns(TOOL))


def test_malformed_lines_are_skipped_and_indexes_stay_line_numbers(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        b"not json\n",
        b"[1, 2]\n",
        b'{"type": "response_item", "payload": "x"}\n',
        b"\xff\xfe\n",
        _message("user", "first", kinds=["user.text"]),
        b'{"type": "response_item", "payload": {"type": "message", "role": "user"}}\n',
        _message("assistant", "answer"),
    )
    assert [(t.index, t.role, t.text) for t in _turns(path)] == [
        (4, "user", "first"),
        (6, "assistant", "answer"),
    ]


def test_an_offset_inside_a_line_skips_the_rest_of_that_line() -> None:
    lines = _lines(SAY_HI)
    inside = sum(len(line) for line in lines[:7]) + 3
    assert [t.index for t in _turns(SAY_HI, inside)] == [10]


def test_offsets_past_the_end_and_empty_files_give_nothing(tmp_path: Path) -> None:
    assert _turns(SAY_HI, SAY_HI.stat().st_size + 100) == []
    empty = _write(tmp_path)
    assert _turns(empty) == []
    assert transcript_end(str(empty)) == 0
    no_newline = _write(tmp_path, b'{"type": "compacted"}')
    assert transcript_end(str(no_newline)) == 0


def test_a_negative_offset_is_refused() -> None:
    with pytest.raises(ValueError, match="since must be a byte offset >= 0"):
        _turns(SAY_HI, -1)


def test_a_missing_file_raises_oserror(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        _turns(tmp_path / "gone.jsonl")
    with pytest.raises(FileNotFoundError):
        transcript_end(str(tmp_path / "gone.jsonl"))


def test_user_messages_without_metadata_fall_back_to_the_text(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        _message("user", "# AGENTS.md instructions for /r\n\n<INSTRUCTIONS>x</INSTRUCTIONS>"),
        _message("user", "<environment_context>\n  <cwd>/r</cwd>\n</environment_context>"),
        _message("user", "<user_instructions>be nice</user_instructions>"),
        _message("user", "  fix the <b>bug</b> please  "),
        _message("user", "# AGENTS.md instructions for /r", "and a typed line", kinds=None),
    )
    assert [(t.index, t.role, t.text) for t in _turns(path)] == [
        (3, "user", "fix the <b>bug</b> please"),
        (4, "user", "and a typed line"),
    ]


def test_content_kinds_decide_over_the_text(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        _message("user", "<environment_context>typed by a person", kinds=["user.text"]),
        _message("user", "plain words", kinds=["agents_md.instructions"]),
        _message("user", "summary of earlier work", kinds=["compaction.summary"]),
        _message("developer", "hook", "harness", kinds=[HOOK_KIND, "permissions.instructions"]),
        _message("developer", "no metadata"),
        _message("system", "system text"),
    )
    assert [(t.index, t.role, t.text, t.injected) for t in _turns(path)] == [
        (0, "user", "<environment_context>typed by a person", False),
        (2, "summary", "summary of earlier work", False),
        (3, "tool", "hook", True),
    ]


def test_tool_outputs_in_other_shapes(tmp_path: Path) -> None:
    call = {"type": "function_call", "name": "view_image", "arguments": '{"path": "a.png"}'}
    patch = {"type": "custom_tool_call", "name": "apply_patch", "input": "*** Begin Patch"}
    path = _write(
        tmp_path,
        _item(**call, call_id="c1"),
        _item(type="function_call_output", call_id="c1", output=[{"text": "seen"}]),
        _item(**patch, call_id="c2"),
        _item(
            type="custom_tool_call_output",
            call_id="c2",
            output={"content": "patch failed", "success": False},
        ),
        _item(type="function_call", name="exec_command", arguments="not json", call_id="c3"),
        _item(
            type="function_call",
            name="shell_command",
            arguments='{"command": "ls", "workdir": "/r"}',
        ),
        _item(type="reasoning", summary=[]),
        _record("event_msg", {"type": "agent_message", "message": "hi"}),
    )
    turns = _turns(path)
    assert [t.tool_calls for t in turns] == [
        (ToolCall("view_image", {"path": "a.png"}),),
        (ToolCall("view_image", {"path": "a.png"}, "seen", False),),
        (ToolCall("apply_patch", {"input": "*** Begin Patch"}),),
        (ToolCall("apply_patch", {"input": "*** Begin Patch"}, "patch failed", True),),
        (ToolCall("exec_command", {"arguments": "not json"}),),
        (ToolCall("Bash", {"command": "ls", "workdir": "/r"}),),
    ]


def test_long_tool_results_are_cut_to_an_excerpt(tmp_path: Path) -> None:
    output = (
        "Chunk ID: 1\nWall time: 0.1 seconds\nProcess exited with code 0\n"
        "Original token count: 9000\nOutput:\n" + "x" * 5000 + "\n"
    )
    path = _write(
        tmp_path,
        _item(type="function_call", name="exec_command", arguments='{"cmd": "yes x"}', call_id="c"),
        _item(type="function_call_output", call_id="c", output=output),
    )
    result = _turns(path)[1]
    (call,) = result.tool_calls
    assert len(call.result_excerpt or "") == EXCERPT_CHARS
    assert (call.result_excerpt or "").endswith("\u2026")
    assert not call.is_error
    assert result.text == call.result_excerpt


def test_a_large_rollout_resumes_near_its_end_with_the_right_line_number(tmp_path: Path) -> None:
    path = tmp_path / "big.jsonl"
    shutil.copy(SAY_HI, path)
    filler = _record("event_msg", {"type": "token_count", "info": "x" * 2000})
    with path.open("ab") as handle:
        for _ in range(1500):  # about 3 MB: more than one read chunk
            handle.write(filler)
    end = transcript_end(str(path))
    with path.open("ab") as handle:
        handle.write(_message("user", "late prompt", kinds=["user.text"]))
    lines = _lines(SAY_HI)
    assert [(t.index, t.text) for t in _turns(path, end)] == [(len(lines) + 1500, "late prompt")]
