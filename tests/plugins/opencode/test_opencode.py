"""The OpenCode plugin on recorded data: payloads, answers, OpenCode's store, the plugin file."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from lorebook.events import HookAnswer
from lorebook.initialize import init_repo, uninstall_repo
from lorebook_opencode import plugin_js, transcript
from lorebook_opencode.events import parse_event, render
from lorebook_opencode.harness import OpenCodeHarness
from tests.plugins.opencode.conftest import DENY_SESSION, TOOL_SESSION, plugin_payloads, recorded_db


def _payload(hook: str) -> dict[str, object]:
    return dict(next(p for h, p in plugin_payloads("/repo") if h == hook))


def test_payloads_become_events_with_the_quotes_opencode_adds_stripped(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OPENCODE_DB", "/data/opencode.db")
    prompt = parse_event("chat.message", _payload("chat.message"))
    assert (prompt.name, prompt.prompt, prompt.cwd) == ("prompt", "say hi", "/repo")
    assert prompt.transcript_ref == f"/data/opencode.db#{TOOL_SESSION}"
    assert (
        parse_event("chat.message", {**_payload("chat.message"), "prompt": 'a "b" c'}).prompt
        == 'a "b" c'
    )
    pre = parse_event("tool.execute.before", _payload("tool.execute.before"))
    assert (pre.tool_name, pre.tool_input["command"]) == ("bash", "cat hello.txt")
    failed = {**_payload("tool.execute.after"), "exit": 1, "output": "cat: x: No such file"}
    assert parse_event("tool.execute.after", failed).error_text == "cat: x: No such file"
    assert parse_event("tool.execute.after", _payload("tool.execute.after")).error_text is None
    monkeypatch.delenv("OPENCODE_DB")
    monkeypatch.setenv("XDG_DATA_HOME", "/xdg")
    assert (
        parse_event("session.idle", _payload("session.idle")).transcript_ref
        == f"/xdg/opencode/opencode.db#{TOOL_SESSION}"
    )


@pytest.mark.parametrize(
    ("hook", "payload", "message"),
    [
        ("chat.message", {"directory": "/r"}, "opencode chat.message payload: field 'sessionID' is missing"),
        ("tool.execute.before", {"directory": "/r", "sessionID": "s"}, "field 'tool' is missing"),
        ("permission.ask", {}, "unknown hook event 'permission.ask'"),
    ],
)  # fmt: skip
def test_bad_payloads_name_the_hook_and_field(
    hook: str, payload: dict[str, object], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        parse_event(hook, payload)


def test_answers_use_the_plugin_protocol() -> None:
    pre = parse_event("tool.execute.before", _payload("tool.execute.before"))
    assert json.loads(render(pre, HookAnswer(decision="deny", reason="R")).stdout) == {
        "decision": "deny",
        "reason": "R",
    }
    asked = json.loads(render(pre, HookAnswer(decision="ask", reason="Check")).stdout)
    assert asked["decision"] == "deny"
    assert asked["reason"].startswith("Check. A person must confirm")
    assert json.loads(render(pre, HookAnswer(context="C")).stdout) == {"context": "C"}
    idle = parse_event("session.idle", _payload("session.idle"))
    assert render(idle, HookAnswer(context="C")).stdout == b""


def test_opencodes_store_becomes_turns(tmp_path: Path) -> None:
    db = recorded_db(tmp_path)
    turns = list(transcript.read_transcript(f"{db}#{TOOL_SESSION}"))
    assert [t.text for t in turns if t.role == "user"] == [
        "say hi",
        "PROBE_TOOL please print hello.txt",
    ]
    injected = [t for t in turns if t.injected]
    assert injected
    assert all("PROBEINJECT_opencode_chat.message_part" in t.text for t in injected)
    calls = [c for t in turns for c in t.tool_calls]
    assert [(c.name, c.input["command"]) for c in calls] == [("bash", "cat hello.txt")]
    assert calls[0].result_excerpt is not None
    assert calls[0].result_excerpt.startswith("hello from the probe file")
    assert [t.role for t in turns].count("summary") == 1
    end = transcript.transcript_end(f"{db}#{TOOL_SESSION}")
    assert list(transcript.read_transcript(f"{db}#{TOOL_SESSION}", since=end)) == []
    later = list(transcript.read_transcript(f"{db}#{TOOL_SESSION}", since=2))
    assert later == [t for t in turns if t.index >= 2]  # indexes are stable across reads


def test_a_thrown_tool_is_an_error_call(tmp_path: Path) -> None:
    db = recorded_db(tmp_path)
    calls = [c for t in transcript.read_transcript(f"{db}#{DENY_SESSION}") for c in t.tool_calls]
    assert [c.is_error for c in calls] == [True]
    assert calls[0].result_excerpt is not None
    assert "PROBEINJECT_opencode_tool.execute.before_deny" in calls[0].result_excerpt


def test_a_bad_reference_or_a_missing_store_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="not an OpenCode transcript reference"):
        transcript.transcript_end("no-session-here")
    with pytest.raises(FileNotFoundError, match="OpenCode's database"):
        transcript.transcript_end(f"{tmp_path}/missing.db#ses_x")


def test_install_keeps_the_users_plugins_and_uninstall_removes_only_ours(kb_repo: Path) -> None:
    mine = kb_repo / ".opencode/plugins/mine.js"
    mine.parent.mkdir(parents=True)
    mine.write_text("export const Mine = async () => ({})\n")
    init_repo(kb_repo, ["opencode"])
    ours = kb_repo / plugin_js.PATH
    assert ours.read_text() == plugin_js.SOURCE
    assert [item.state for item in OpenCodeHarness().check(kb_repo)] == ["ok"]
    ours.write_text(plugin_js.SOURCE + "// edited\n")
    assert [item.state for item in OpenCodeHarness().check(kb_repo)] == ["changed"]
    uninstall_repo(kb_repo, ["opencode"])
    assert not ours.exists()
    assert mine.read_text() == "export const Mine = async () => ({})\n"


def test_a_users_file_of_the_same_name_is_never_overwritten(kb_repo: Path) -> None:
    theirs = kb_repo / plugin_js.PATH
    theirs.parent.mkdir(parents=True)
    theirs.write_text("export const TheirLorebook = async () => ({})\n")
    report = OpenCodeHarness().install(kb_repo)
    assert report.changed == ()
    assert "not lorebook's" in report.notes[0]
    assert OpenCodeHarness().uninstall(kb_repo).changed == ()
    assert theirs.read_text() == "export const TheirLorebook = async () => ({})\n"


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_the_plugin_is_valid_javascript() -> None:
    proc = subprocess.run(["node", "--check", str(Path(plugin_js.__file__).with_name("lorebook.js"))],
                          capture_output=True, text=True, check=False)  # fmt: skip
    assert proc.returncode == 0, proc.stderr


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_the_notes_part_sorts_right_after_the_prompts_part() -> None:
    """OpenCode orders a message's parts by id; the prompt's id may end in "z" (1 in 62)."""
    source = Path(plugin_js.__file__).with_name("lorebook.js").read_text(encoding="utf-8")
    start = source.index("  const after = ")
    after = source[start : source.index("\n  }\n", start) + 4]
    ids = ["prt_22ab25a450017swFFCa7hNOsgN", "prt_22ab25a450017swFFCa7hNOsgz",
           "prt_22ab25a450017swFFCa7hNOzzz", "prt_22ab25a450017sw0000000000"]  # fmt: skip
    script = after + f"\nconsole.log(JSON.stringify({json.dumps(ids)}.map(after)))\n"
    proc = subprocess.run(["node", "-e", script], capture_output=True, text=True, check=True)
    for prompt, note in zip(ids, json.loads(proc.stdout), strict=True):
        assert prompt < note
        assert len(note) == len(prompt)
        assert note.startswith(prompt[:20])


def test_the_fast_path_module_imports_nothing_heavy() -> None:
    code = (
        "import json, sys\nimport lorebook.events\nbefore = set(sys.modules)\n"
        "import lorebook_opencode.events\nprint(json.dumps(sorted(set(sys.modules) - before)))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-I", "-c", code], capture_output=True, text=True, check=True
    )
    assert json.loads(proc.stdout) == [
        "lorebook.hostkit", "lorebook.hostkit.payload", "lorebook_opencode", "lorebook_opencode.events"]  # fmt: skip
