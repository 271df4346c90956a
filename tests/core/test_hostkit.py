"""lorebook.hostkit: the JSONL reader and the hooks-file merge that harness plugins share."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from lorebook.errors import LorebookError
from lorebook.hostkit import headless, hookfile, jsonl
from lorebook.hostkit.hookfile import HookFile

# --- jsonl -------------------------------------------------------------------------------


def _write(tmp_path: Path, data: bytes) -> str:
    path = tmp_path / "t.jsonl"
    path.write_bytes(data)
    return str(path)


def test_read_lines_numbers_complete_lines_from_zero(tmp_path: Path) -> None:
    ref = _write(tmp_path, b'{"a":1}\n{"b":2}\nnot json\n')
    assert list(jsonl.read_lines(ref)) == [(0, b'{"a":1}\n'), (1, b'{"b":2}\n'), (2, b"not json\n")]


def test_a_trailing_line_without_newline_is_left_for_the_next_read(tmp_path: Path) -> None:
    ref = _write(tmp_path, b"one\ntwo\nthr")
    assert [line for _, line in jsonl.read_lines(ref)] == [b"one\n", b"two\n"]
    assert jsonl.transcript_end(ref) == len(b"one\ntwo\n")


def test_resuming_at_an_offset_keeps_line_numbers(tmp_path: Path) -> None:
    ref = _write(tmp_path, b"one\ntwo\nthree\n")
    assert list(jsonl.read_lines(ref, since=4)) == [(1, b"two\n"), (2, b"three\n")]


def test_an_offset_inside_a_line_skips_the_rest_of_it(tmp_path: Path) -> None:
    ref = _write(tmp_path, b"one\ntwo\nthree\n")
    assert list(jsonl.read_lines(ref, since=5)) == [(2, b"three\n")]


def test_until_leaves_lines_that_end_after_it(tmp_path: Path) -> None:
    ref = _write(tmp_path, b"one\ntwo\nthree\n")
    assert list(jsonl.read_lines(ref, until=8)) == [(0, b"one\n"), (1, b"two\n")]
    assert list(jsonl.read_lines(ref, until=7)) == [(0, b"one\n")]


def test_an_offset_past_the_end_reads_nothing(tmp_path: Path) -> None:
    ref = _write(tmp_path, b"one\n")
    assert list(jsonl.read_lines(ref, since=100)) == []


def test_a_negative_offset_is_refused(tmp_path: Path) -> None:
    ref = _write(tmp_path, b"one\n")
    with pytest.raises(ValueError, match="byte offset >= 0"):
        list(jsonl.read_lines(ref, since=-1))


def test_transcript_end_scans_back_across_chunks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(jsonl, "CHUNK", 4)
    ref = _write(tmp_path, b"a\n" + b"x" * 25)
    assert jsonl.transcript_end(ref) == 2
    assert list(jsonl.read_lines(ref, since=1)) == []
    assert jsonl.transcript_end(_write(tmp_path, b"")) == 0
    assert jsonl.transcript_end(_write(tmp_path, b"no newline")) == 0


def test_a_missing_file_raises_oserror(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        jsonl.transcript_end(str(tmp_path / "missing.jsonl"))
    with pytest.raises(FileNotFoundError):
        list(jsonl.read_lines(str(tmp_path / "missing.jsonl")))


# --- hookfile ----------------------------------------------------------------------------

_OURS = re.compile(r"\.lorebook/bin/hook\s+myhost(\s|$)")


def _command(event: str) -> str:
    return f".lorebook/bin/hook myhost {event}"


def _is_ours(command: str) -> bool:
    return _OURS.search(command) is not None


FILE = HookFile(
    ".myhost/hooks.json",
    (("SessionStart", None, 30), ("PreToolUse", "*", 10)),
    _command,
    _is_ours,
    "run `lorebook init --harnesses myhost`",
)
USER_GROUP = {"matcher": "Bash", "hooks": [{"type": "command", "command": "echo user"}]}


def test_hook_group_has_a_matcher_only_when_given() -> None:
    assert hookfile.hook_group("c", None, 5) == {
        "hooks": [{"type": "command", "command": "c", "timeout": 5}]
    }
    assert hookfile.hook_group("c", "*", 5)["matcher"] == "*"


def test_install_adds_one_group_per_event_and_keeps_the_users() -> None:
    data = {"model": "x", "hooks": {"PreToolUse": [USER_GROUP]}}
    result = FILE.installed(data)
    assert result["model"] == "x"
    assert result["hooks"]["PreToolUse"] == [USER_GROUP, FILE.group("PreToolUse", "*", 10)]
    assert result["hooks"]["SessionStart"] == [
        {"hooks": [{"type": "command", "command": _command("SessionStart"), "timeout": 30}]}
    ]
    assert data == {"model": "x", "hooks": {"PreToolUse": [USER_GROUP]}}  # not mutated


def test_install_is_idempotent() -> None:
    once = FILE.installed({})
    assert FILE.installed(once) == once


def test_an_older_entry_of_ours_is_replaced_where_it_stood() -> None:
    old = {"hooks": [{"type": "command", "command": ".lorebook/bin/hook myhost Old"}]}
    result = FILE.installed({"hooks": {"PreToolUse": [old, USER_GROUP]}})
    assert result["hooks"]["PreToolUse"] == [FILE.group("PreToolUse", "*", 10), USER_GROUP]


def test_our_entry_mixed_into_a_users_group_is_taken_out() -> None:
    mixed = {"hooks": [*USER_GROUP["hooks"], {"command": _command("PreToolUse")}]}
    result = FILE.installed({"hooks": {"PreToolUse": [mixed]}})
    assert result["hooks"]["PreToolUse"] == [
        {"hooks": USER_GROUP["hooks"]},
        FILE.group("PreToolUse", "*", 10),
    ]


def test_our_entries_under_events_we_no_longer_install_go() -> None:
    stale = {"hooks": [{"command": _command("Stop")}]}
    data = {"hooks": {"Stop": [stale], "Notification": [USER_GROUP, stale]}}
    hooks = FILE.installed(data)["hooks"]
    assert "Stop" not in hooks
    assert hooks["Notification"] == [USER_GROUP]


def test_uninstall_is_exact() -> None:
    data = {"model": "x", "hooks": {"PreToolUse": [USER_GROUP], "Other": []}}
    assert FILE.uninstalled(FILE.installed(data)) == data
    assert FILE.uninstalled(FILE.installed({})) == {}
    assert FILE.uninstalled(data) is data


def test_non_dict_entries_and_groups_are_kept_and_not_ours() -> None:
    odd: list[Any] = ["text", {"hooks": "x"}, {"hooks": [1, {"command": 2}]}]
    assert hookfile.our_positions(odd, _is_ours) == []
    assert hookfile.without_ours(odd, _is_ours) == (odd, False)


def test_positions_and_commands_name_our_entries() -> None:
    groups = FILE.installed({"hooks": {"PreToolUse": [USER_GROUP]}})["hooks"]["PreToolUse"]
    [(group_index, handler_index, group, entry)] = FILE.our_positions(groups)
    assert (group_index, handler_index) == (1, 0)
    assert group is groups[1]
    assert entry["command"] == _command("PreToolUse")
    assert FILE.our_commands(groups) == [_command("PreToolUse")]
    assert FILE.our_commands("not a list") == []


def test_states_tell_ok_changed_and_missing() -> None:
    data = FILE.installed({})
    data["hooks"]["PreToolUse"][0]["hooks"][0]["timeout"] = 99
    del data["hooks"]["SessionStart"]
    states = {event: state for event, state, _ in FILE.states(data)}
    assert states == {"SessionStart": "missing", "PreToolUse": "changed"}
    assert {state for _, state, _ in FILE.states(FILE.installed({}))} == {"ok"}


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"{", "hooks.json: not valid JSON at column 2: Expecting property name"),
        (b"[]", "must hold a JSON object, not list"),
        (b'{"hooks": []}', "'hooks' must be an object, not list"),
        (b'{"hooks": {"Stop": {}}}', "'hooks.Stop' must be a list, not dict"),
    ],
)
def test_load_refuses_what_the_host_would_not_accept(
    tmp_path: Path, content: bytes, message: str
) -> None:
    path = tmp_path / "hooks.json"
    path.write_bytes(content)
    with pytest.raises(LorebookError, match=re.escape(message)):
        hookfile.load(path, "run it")


def test_load_of_a_missing_file_is_empty(tmp_path: Path) -> None:
    assert hookfile.load(tmp_path / "missing.json", "run it") == {}


def test_install_and_uninstall_round_trip_a_users_file_byte_for_byte(tmp_path: Path) -> None:
    path = tmp_path / FILE.path
    path.parent.mkdir()
    original = hookfile.dump({"hooks": {"PreToolUse": [USER_GROUP]}, "é": 1})
    path.write_bytes(original)
    assert FILE.install(tmp_path) is True
    written = path.read_bytes()
    assert FILE.install(tmp_path) is False
    assert path.read_bytes() == written
    assert FILE.hook_commands(tmp_path) == {
        "SessionStart": _command("SessionStart"),
        "PreToolUse": _command("PreToolUse"),
    }
    assert FILE.uninstall(tmp_path) == (True, False)
    assert path.read_bytes() == original
    assert FILE.uninstall(tmp_path) == (False, False)


def test_uninstall_deletes_a_file_and_folder_only_we_filled(tmp_path: Path) -> None:
    assert FILE.install(tmp_path) is True
    assert json.loads((tmp_path / FILE.path).read_text())["hooks"]
    assert FILE.uninstall(tmp_path) == (True, True)
    assert not (tmp_path / ".myhost").exists()
    assert FILE.hook_commands(tmp_path) == {}


# --- headless ----------------------------------------------------------------------------


def test_a_prompt_goes_on_stdin_when_long_optional_looking_or_holding_nul() -> None:
    assert headless.prompt_on_stdin("a" * 10, limit=10) is None
    assert headless.prompt_on_stdin("a" * 11, limit=10) == b"a" * 11
    assert headless.prompt_on_stdin("\u00e9" * 6, limit=10) == "\u00e9".encode() * 6
    assert headless.prompt_on_stdin("-v") == b"-v"
    assert headless.prompt_on_stdin("a\0b") == b"a\0b"
    assert headless.prompt_on_stdin("-\ud800") == b"-?"
    assert headless.prompt_on_stdin("plain") is None


def test_jsonl_imports_nothing_heavy() -> None:
    code = (
        "import json, sys, __future__; before = set(sys.modules); "
        "import lorebook.hostkit.jsonl; print(json.dumps(sorted(set(sys.modules) - before)))"
    )
    out = subprocess.run(
        [sys.executable, "-I", "-c", code], capture_output=True, text=True, check=True
    )
    added = set(json.loads(out.stdout))
    assert added == {"lorebook", "lorebook.hostkit", "lorebook.hostkit.jsonl"}


def test_a_known_line_count_numbers_lines_without_counting_the_prefix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ref = _write(tmp_path, b"one\ntwo\nthree\n")

    def counted(*_: object) -> None:
        raise AssertionError("counted the lines before the offset")

    with monkeypatch.context() as patched:
        patched.setattr(jsonl, "lines_before", counted)
        assert list(jsonl.read_lines(ref, since=4, lines_before=1)) == [
            (1, b"two\n"),
            (2, b"three\n"),
        ]
    # an offset inside a line cannot be numbered from a count: the count is ignored
    assert list(jsonl.read_lines(ref, since=5, lines_before=7)) == [(2, b"three\n")]


def test_the_prefix_line_count_spans_chunks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(jsonl, "CHUNK", 3)
    ref = _write(tmp_path, b"a\nbb\n\nccc\nd\n")
    assert list(jsonl.read_lines(ref, since=10)) == [(4, b"d\n")]


def test_takes_lines_before_reads_the_reader_s_signature() -> None:
    def old(ref: str, since: int | None = None, until: int | None = None) -> None: ...
    def new(ref: str, since: int | None = None, until: int | None = None,
            lines_before: int | None = None) -> None: ...  # fmt: skip
    def keywords(ref: str, **options: object) -> None: ...

    class Reader:
        def read_transcript(self, ref: str, *, lines_before: int | None = None) -> None: ...

    assert not jsonl.takes_lines_before(old)
    assert jsonl.takes_lines_before(new)
    assert jsonl.takes_lines_before(keywords)
    assert jsonl.takes_lines_before(Reader().read_transcript)
    assert not jsonl.takes_lines_before(len)  # no code to read: taken not to


def test_capture_passes_the_line_count_only_to_a_reader_that_takes_it() -> None:
    from collections.abc import Iterator

    from lorebook.capture import stage
    from lorebook.events import Turn

    calls: list[tuple[object, ...]] = []

    class Old:  # written before lines_before existed
        def read_transcript(
            self, ref: str, since: int | None = None, until: int | None = None
        ) -> Iterator[Turn]:
            calls.append(("old", since, until))
            return iter(())

        def transcript_end(self, ref: str) -> int:
            return 20

    class New:
        def read_transcript(
            self, ref: str, since: int | None = None, until: int | None = None,
            lines_before: int | None = None,
        ) -> Iterator[Turn]:  # fmt: skip
            calls.append(("new", since, until, lines_before))
            return iter(())

        def transcript_end(self, ref: str) -> int:
            return 20

    class Broken(New):
        def read_transcript(
            self, ref: str, since: int | None = None, until: int | None = None,
            lines_before: int | None = None,
        ) -> Iterator[Turn]:  # fmt: skip
            raise TypeError("a bug inside the reader")

    list(stage._read(Old(), "t.jsonl", 10, 20, 3))
    list(stage._read(New(), "t.jsonl", 10, 20, 3))
    list(stage._read(New(), "t.jsonl", 10, 20, None))  # not known: the reader counts
    assert calls == [("old", 10, 20), ("new", 10, 20, 3), ("new", 10, 20, None)]
    with pytest.raises(TypeError, match="a bug inside the reader"):  # not retried without it
        stage._read(Broken(), "t.jsonl", 10, 20, 3)
