"""Claude Code transcripts (JSONL) to normalised turns, resumable from a byte offset."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from lorebook.events import Turn
from lorebook_claude.transcript import EXCERPT_CHARS, read_transcript, transcript_end

TRANSCRIPTS = Path(__file__).parent / "fixtures" / "transcripts"
MAIN = TRANSCRIPTS / "11111111-2222-4333-8444-555555555555.jsonl"  # runs 01, 02, 03, 06
DENIED = TRANSCRIPTS / "a85451d6-36ec-439f-8afb-8104f85052e7.jsonl"  # run 04
SWAPPED = TRANSCRIPTS / "d5f8e17c-750c-4631-ad90-c0328c7f5b34.jsonl"  # run 05
FAILED = TRANSCRIPTS / "tool-failure.jsonl"  # our hooks installed, `cat` of a missing file


def _turns(path: Path, since: int | None = None) -> list[Turn]:
    return list(read_transcript(str(path), since))


def _human(turns: list[Turn]) -> list[str]:
    return [t.text for t in turns if t.role == "user" and not t.injected]


def _injected(turns: list[Turn]) -> list[str]:
    return [t.text for t in turns if t.injected]


def _lines(path: Path) -> list[bytes]:
    return path.read_bytes().splitlines(keepends=True)


def _key(turns: list[Turn]) -> list[tuple[Any, ...]]:
    return [(t.index, t.role, t.text, t.injected, t.tool_calls) for t in turns]


def test_the_main_session_has_four_human_prompts_including_compact() -> None:
    turns = _turns(MAIN)
    assert _human(turns) == [
        "say hi",
        "PROBE_TOOL please print hello.txt",
        "/compact",
        "say hi again",
    ]
    assert [t.text for t in turns if t.role == "assistant" and not t.injected] == [
        "hi",
        "",
        "done: hello from the probe file",
        "hi",
    ]


def test_hook_injected_text_is_marked_and_never_a_user_turn() -> None:
    turns = _turns(MAIN)
    assert [t for t in turns if t.text.startswith("PROBEINJECT")] == [
        t for t in turns if t.text.startswith("PROBEINJECT") and t.injected and t.role == "tool"
    ]
    assert _injected(turns)[:4] == [
        "PROBEINJECT_claude_SessionStart_plain",
        "PROBEINJECT_claude_UserPromptSubmit_hso",
        "PROBEINJECT_claude_UserPromptSubmit_hso",
        "PROBEINJECT_claude_PostToolUse_hso",
    ]
    assert "PROBEINJECT_claude_SessionStart_plain_run06" in _injected(turns)
    assert "PROBEINJECT_claude_UserPromptSubmit_hso_run06" in _injected(turns)
    for turn in turns:
        if turn.role == "user":
            assert "PROBEINJECT" not in turn.text
            assert "<system-reminder>" not in turn.text
            assert "Caveat:" not in turn.text


def test_text_claude_wrote_for_the_user_is_not_human() -> None:
    turns = _turns(MAIN)
    injected = _injected(turns)
    assert "Continue from where you left off." in injected
    assert any("local-command-caveat" in text for text in injected)
    synthetic = [t for t in turns if t.role == "assistant" and t.injected]
    assert [t.text for t in synthetic] == ["No response requested."]
    command_output = [t for t in turns if t.role == "tool" and t.text.startswith("Compacted")]
    assert len(command_output) == 1
    assert not command_output[0].injected


def test_what_claude_code_sends_in_the_persons_name_is_not_human(tmp_path: Path) -> None:
    # seen in public session files: a background task's report was mined as a rule the
    # person taught, and the IDE's note on the opened file was part of the prompt
    def user(content: str, **extra: Any) -> str:
        record = {"type": "user", "message": {"role": "user", "content": content}, **extra}
        return json.dumps(record) + "\n"

    path = tmp_path / "s.jsonl"
    path.write_text(
        user(
            "<task-notification><summary>The import guard caught the missing module</summary>"
            "</task-notification>",
            origin={"kind": "task-notification"},
        )
        + user("<ide_opened_file>The user opened src/app.py in the IDE.</ide_opened_file>fix it")
        + user("Never import from src.legacy.")
    )
    turns = _turns(path)
    assert _human(turns) == ["fix it", "Never import from src.legacy."]
    assert any("import guard" in text for text in _injected(turns))


def test_the_compaction_summary_is_a_summary_turn() -> None:
    summaries = [t for t in _turns(MAIN) if t.role == "summary"]
    assert len(summaries) == 1
    assert summaries[0].index == 24
    assert summaries[0].text.startswith("This session is being continued from a previous")
    assert summaries[0].timestamp == "2026-11-30T04:20:41.642Z"


def test_a_tool_call_and_its_result() -> None:
    turns = _turns(MAIN)
    asked = next(t for t in turns if t.role == "assistant" and t.tool_calls)
    assert [(c.name, dict(c.input), c.result_excerpt) for c in asked.tool_calls] == [
        ("Bash", {"command": "cat hello.txt"}, None)
    ]
    result = next(t for t in turns if t.role == "tool" and t.tool_calls)
    assert result.index == asked.index + 1
    assert result.text == "hello from the probe file"
    (call,) = result.tool_calls
    assert (call.name, dict(call.input), call.result_excerpt, call.is_error) == (
        "Bash",
        {"command": "cat hello.txt"},
        "hello from the probe file",
        False,
    )


def test_a_denied_tool_is_an_error_result_carrying_the_reason() -> None:
    turns = _turns(DENIED)
    assert _human(turns) == ["PROBE_TOOL please print hello.txt"]
    (result,) = [t for t in turns if t.role == "tool" and t.tool_calls]
    (call,) = result.tool_calls
    assert call.is_error
    assert call.name == "Bash"
    assert call.result_excerpt == "PROBEINJECT_claude_PreToolUse_deny-hso"


def test_json_hook_output_is_read_once_from_its_additional_context() -> None:
    turns = _turns(SWAPPED)
    assert _human(turns) == ["say hi"]
    assert _injected(turns) == [
        "PROBEINJECT_claude_SessionStart_hso",
        "PROBEINJECT_claude_UserPromptSubmit_plain",
    ]


def test_a_failed_command_under_our_hooks() -> None:
    turns = _turns(FAILED)
    assert _human(turns) == ["PROBE_TOOL please print hello.txt"]
    assert _injected(turns) == [
        "LBMARK_SessionStart",
        "LBMARK_UserPromptSubmit",
        "LBMARK_PreToolUse",
        "LBMARK_PostToolUseFailure",
    ]
    (result,) = [t for t in turns if t.role == "tool" and t.tool_calls]
    (call,) = result.tool_calls
    assert call.is_error
    assert call.result_excerpt == "Exit code 1\ncat: hello.txt: No such file or directory"


@pytest.mark.parametrize("path", [MAIN, DENIED, SWAPPED, FAILED])
def test_turn_index_is_the_line_number(path: Path) -> None:
    lines = _lines(path)
    for turn in _turns(path):
        record = json.loads(lines[turn.index])
        assert record["timestamp"] == turn.timestamp
    assert transcript_end(str(path)) == path.stat().st_size


def test_reading_from_an_offset_gives_the_same_turns_as_a_full_read(tmp_path: Path) -> None:
    full = _turns(MAIN)
    lines = _lines(MAIN)
    for split in (0, 3, 9, 20, 24, 31, len(lines)):
        offset = sum(len(line) for line in lines[:split])
        assert _key(_turns(MAIN, offset)) == _key([t for t in full if t.index >= split])


def test_resume_after_the_file_grows_reads_only_new_turns(tmp_path: Path) -> None:
    lines = _lines(MAIN)
    path = tmp_path / "session.jsonl"
    path.write_bytes(b"".join(lines[:9]))
    first = _turns(path)
    end = transcript_end(str(path))
    assert end == path.stat().st_size
    with path.open("ab") as handle:
        handle.write(b"".join(lines[9:]))
    second = _turns(path, end)
    assert _human(first) == ["say hi"]
    assert _human(second) == ["PROBE_TOOL please print hello.txt", "/compact", "say hi again"]
    assert _key(first + second) == _key(_turns(MAIN))


def test_a_result_whose_call_was_read_before_the_offset_is_kept(tmp_path: Path) -> None:
    lines = _lines(MAIN)
    offset = sum(len(line) for line in lines[:14])  # line 13 asks for Bash, 14 answers
    (result,) = [t for t in _turns(MAIN, offset) if t.role == "tool" and t.tool_calls]
    (call,) = result.tool_calls
    assert (call.name, call.result_excerpt) == ("unknown", "hello from the probe file")


def test_a_line_claude_is_still_writing_waits_for_the_next_read(tmp_path: Path) -> None:
    lines = _lines(MAIN)
    path = tmp_path / "session.jsonl"
    partial = lines[11][:40]
    path.write_bytes(b"".join(lines[:11]) + partial)
    end = transcript_end(str(path))
    assert end == sum(len(line) for line in lines[:11])
    assert _human(_turns(path)) == ["say hi"]
    with path.open("ab") as handle:
        handle.write(lines[11][40:])
    (turn,) = _turns(path, end)
    assert (turn.index, turn.role, turn.text) == (11, "user", "PROBE_TOOL please print hello.txt")


def test_a_whole_record_without_its_newline_is_not_read_twice(tmp_path: Path) -> None:
    lines = _lines(MAIN)
    path = tmp_path / "session.jsonl"
    path.write_bytes(b"".join(lines[:11]) + lines[11].rstrip(b"\n"))  # valid JSON, no newline
    first = _turns(path)
    end = transcript_end(str(path))
    with path.open("ab") as handle:
        handle.write(b"\n")
    second = _turns(path, end)
    assert _human(first) == ["say hi"]
    assert _human(second) == ["PROBE_TOOL please print hello.txt"]


def test_until_leaves_later_lines_for_the_next_read() -> None:
    lines = _lines(MAIN)
    until = sum(len(line) for line in lines[:12])
    turns = list(read_transcript(str(MAIN), None, until))
    assert max(t.index for t in turns) == 11
    assert _human(turns) == ["say hi", "PROBE_TOOL please print hello.txt"]


def test_malformed_lines_are_skipped_and_indexes_stay_line_numbers(tmp_path: Path) -> None:
    lines = _lines(SWAPPED)
    path = tmp_path / "session.jsonl"
    garbage = [b"{not json\n", b"[1, 2]\n", b"\xff\xfe\n", b"\n"]
    path.write_bytes(b"".join(lines[:4] + garbage + lines[4:]))
    turns = _turns(path)
    assert _human(turns) == ["say hi"]
    assert [t.index for t in turns] == [
        t.index + 4 if t.index >= 4 else t.index for t in _turns(SWAPPED)
    ]


def test_an_offset_inside_a_line_skips_the_rest_of_that_line() -> None:
    lines = _lines(MAIN)
    offset = sum(len(line) for line in lines[:3]) + 5  # inside line 3 ("say hi")
    turns = _turns(MAIN, offset)
    assert min(t.index for t in turns) > 3
    assert _human(turns)[0] == "PROBE_TOOL please print hello.txt"


def test_offsets_past_the_end_and_empty_files_give_nothing(tmp_path: Path) -> None:
    assert _turns(MAIN, MAIN.stat().st_size + 100) == []
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    assert _turns(empty) == []
    assert transcript_end(str(empty)) == 0
    no_newline = tmp_path / "one.jsonl"
    no_newline.write_bytes(b'{"type": "user"}')
    assert transcript_end(str(no_newline)) == 0


def test_a_negative_offset_is_refused() -> None:
    with pytest.raises(ValueError, match="since must be a byte offset"):
        _turns(MAIN, -1)


def _write(tmp_path: Path, *records: dict[str, Any]) -> Path:
    path = tmp_path / "t.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def _user(content: Any, **extra: Any) -> dict[str, Any]:
    return {"type": "user", "message": {"role": "user", "content": content}, **extra}


def test_long_tool_results_are_cut_to_an_excerpt(tmp_path: Path) -> None:
    use = {"type": "tool_use", "id": "t1", "name": "Read", "input": {"file_path": "big.txt"}}
    blocks = [{"type": "text", "text": "A" * 3000}, {"type": "image", "source": {}}]
    result = {"type": "tool_result", "tool_use_id": "t1", "content": blocks}
    path = _write(tmp_path, {"type": "assistant", "message": {"content": [use]}}, _user([result]))
    (_, tool) = _turns(path)
    (call,) = tool.tool_calls
    assert call.name == "Read"
    assert call.result_excerpt is not None
    assert len(call.result_excerpt) == EXCERPT_CHARS
    assert call.result_excerpt.endswith("\u2026")
    assert not call.is_error


def test_system_reminders_are_taken_out_of_human_text(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        _user("<system-reminder>\nnote from a hook\n</system-reminder>\nwhy does CI fail?"),
        _user([{"type": "text", "text": "<system-reminder>only a hook</system-reminder>"}]),
        _user("<user-prompt-submit-hook>old style</user-prompt-submit-hook>"),
    )
    first, second, third = _turns(path)
    assert (first.role, first.text, first.injected) == ("user", "why does CI fail?", False)
    assert (second.role, second.text, second.injected) == ("tool", "only a hook", True)
    assert (third.role, third.text, third.injected) == ("tool", "old style", True)


def test_subagent_lines_thinking_and_bookkeeping_are_skipped(tmp_path: Path) -> None:
    thinking = {"type": "thinking", "thinking": "secret plan"}
    path = _write(
        tmp_path,
        _user("from a subagent", isSidechain=True),
        {"type": "assistant", "message": {"content": [thinking, {"type": "text", "text": "ok"}]}},
        {"type": "system", "subtype": "compact_boundary", "content": "Conversation compacted"},
        {"type": "queue-operation", "operation": "enqueue", "content": "queued"},
        {"type": "attachment", "attachment": {"type": "skill_listing", "content": "skills"}},
        {"type": "file-history-snapshot", "messageId": "m", "snapshot": {"messageId": "m"}},
        {"type": "progress", "data": {"type": "hook_progress"}, "sessionId": "s"},
    )
    (turn,) = _turns(path)
    assert (turn.index, turn.role, turn.text) == (1, "assistant", "ok")


def test_a_large_transcript_resumes_near_its_end_with_the_right_line_number(
    tmp_path: Path,
) -> None:
    path = tmp_path / "big.jsonl"
    shutil.copy(MAIN, path)
    with path.open("ab") as handle:
        for n in range(40000):
            handle.write(json.dumps(_user(f"prompt {n}")).encode() + b"\n")
    assert path.stat().st_size > 2 * 1024 * 1024  # line counting spans several chunks
    end = transcript_end(str(path))
    assert end == path.stat().st_size
    last_line = len(_lines(path)) - 1
    (last,) = _turns(path, end - len(_lines(path)[-1]))
    assert (last.index, last.text) == (last_line, "prompt 39999")
