"""The parts of stats, resume and mark on their own: what hooks write, the timing log, the
usage reader, the resume brief's rules, mark's errors, and the one-thing-once texts."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings, strategies as st

from lorebook.capture.stage import load_log, log_path
from lorebook.inject.resume import BRIEF_CHARS, resume_brief, summary_path
from lorebook.kb.paths import KBPaths
from lorebook.models.session import LoggedInjection, LoggedToolCall, LoggedTurn, SessionLog
from lorebook.pointer import BLOCK
from lorebook.skills import SKILL_TEXT
from lorebook.stats import timing
from lorebook.stats.attribution import NoteFacts, Windows, attribute, window_after
from lorebook.stats.follow import remember_session
from lorebook.stats.injections import event_of, is_lorebook_text, note_blocks
from lorebook.stats.usage import read_usage
from tests.conftest import CliRunner, fire as fire_event


@pytest.fixture
def kb(kb_repo: Path, cli: CliRunner) -> Path:
    for note in (
        ("--title", "Deploy with make deploy-staging", "--description", "Shipping a build",
         "--kind", "prohibition", "--anchor-command", r"deploy\.sh", "--enforce", "warn",
         "--body", "Run `make deploy-staging`."),
        ("--title", "Never force push main", "--description", "Pushing to the main branch",
         "--kind", "prohibition", "--anchor-command", r"push --force", "--enforce", "deny",
         "--body", "Open a pull request."),
        ("--title", "Gateway timeouts mean the cache is cold", "--description", "A 504",
         "--kind", "gotcha", "--anchor-error", "504 Gateway", "--body", "Warm it first."),
    ):  # fmt: skip
        assert cli("note", "add", *note, cwd=kb_repo).exit_code == 0
    assert cli("index", "rebuild", cwd=kb_repo).exit_code == 0
    return kb_repo


def fire(repo: Path, event: str, payload: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> Any:
    """Run the hook in-process; each event in its own session (no note is held back)."""
    return fire_event(repo, monkeypatch, event, session=f"s-{event}-{len(str(payload))}", **payload)


def test_what_each_hook_writes_is_read_back_as_its_event_and_notes(
    kb: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    start = fire(kb, "Start", {"source": "startup"}, monkeypatch)["context"]
    prompt = fire(kb, "Prompt", {"prompt": "how do we deploy a staging build?"}, monkeypatch)
    tool = fire(kb, "Pre", {"tool_name": "Bash", "tool_input": {"command": "./deploy.sh x"}},
                monkeypatch)  # fmt: skip
    error = fire(kb, "Post", {"tool_name": "Bash", "error": "HTTP 504 Gateway Timeout"},
                 monkeypatch)  # fmt: skip
    deny = fire(kb, "Pre", {"tool_name": "Bash", "tool_input": {"command": "git push --force"}},
                monkeypatch)  # fmt: skip
    deploy = "prohibition-deploy-with-make-deploy-staging"
    assert (event_of(start), note_blocks(start)) == ("session_start", {})
    assert event_of(prompt["context"]) == "prompt"
    assert deploy in note_blocks(prompt["context"])
    assert event_of(tool["context"]) == "pre_tool"
    assert "make deploy-staging" in note_blocks(tool["context"])[deploy]
    assert event_of(error["context"]) == "post_tool"
    assert list(note_blocks(error["context"])) == ["gotcha-gateway-timeouts-mean-the-cache-is-cold"]
    assert deny["decision"] == "deny"
    assert event_of(deny["reason"]) == "pre_tool"
    assert (
        "Open a pull request." in note_blocks(deny["reason"])["prohibition-never-force-push-main"]
    )
    assert all(is_lorebook_text(t) for t in (start, prompt["context"], deny["reason"]))
    pointers = fire(kb, "Prompt", {"prompt": "what about the gateway?"}, monkeypatch)["context"]
    assert pointers.startswith("lorebook: this project's notes")  # no note whole: no "more of"
    assert is_lorebook_text(pointers)
    assert is_lorebook_text(pointers.replace("lorebook: ", "lorebook: more of ", 1))  # as before
    assert event_of(pointers) == "prompt"
    assert "gotcha-gateway-timeouts-mean-the-cache-is-cold" in note_blocks(pointers)
    assert not is_lorebook_text("PROBEINJECT_claude_SessionStart_plain")
    lines = timing.read_timing(str(kb / ".lorebook"))
    assert [line["event"] for line in lines] == [
        "session_start", "prompt", "pre_tool", "post_tool", "pre_tool", "prompt"
    ]  # fmt: skip
    assert lines[1]["chars"] == len(prompt["context"])
    assert all(isinstance(line["ms"], int) for line in lines)


def test_the_timing_log_is_bounded_and_skips_torn_lines(tmp_path: Path) -> None:
    kb_root = tmp_path / ".lorebook"
    path = Path(timing.timing_path(str(kb_root)))
    path.parent.mkdir(parents=True)
    path.write_text("x" * (timing.MAX_BYTES + 1) + "\n{torn\n")
    timing.record_timing(str(kb_root), "claude", "Stop", None, 0.0, 0)
    assert path.stat().st_size < 500
    assert Path(str(path) + ".1").exists()
    timing.record_timing(str(kb_root), "claude", "Stop", None, 0.0, 0)
    assert [line["host_event"] for line in timing.read_timing(str(kb_root))] == ["Stop", "Stop"]


def test_read_usage_never_raises(tmp_path: Path) -> None:
    kb_root = tmp_path / ".lorebook"
    assert read_usage(str(kb_root)) == {}
    cache = kb_root / ".cache"
    cache.mkdir(parents=True)
    for bad in ("{", "[]", '{"version": 9, "sessions": {}}', '{"version": 1, "sessions": 3}'):
        (cache / "usage.json").write_text(bad)
        assert read_usage(str(kb_root)) == {}
    (cache / "usage.json").write_text(
        json.dumps(
            {"version": 1, "sessions": {"a": {"n1": [2, 1], "n2": [1, -1]}, "b": {"n1": [3, 0]}}}
        )
    )
    assert read_usage(str(kb_root)) == {"n1": (5, 1)}


def _log(turns: list[LoggedTurn], injected: list[LoggedInjection]) -> SessionLog:
    return SessionLog(harness="claude", session_id="prev", origin="claude:prev",
                      transcript_hash="", transcript_length=0, branch="main",
                      turns=turns, injected=injected)  # fmt: skip


def test_an_echo_of_the_prompt_is_not_a_use_and_a_forbidden_command_is_broken() -> None:
    block = (
        "lorebook: notes the team keeps for this project about ./deploy.sh prod:\n\n"
        "### Deploy with make deploy-staging (prohibition; .lorebook/nodes/p/practice-d.md)\n"
        "Run `make deploy-staging`; never `./deploy.sh prod` from a laptop."
    )
    facts = {"practice-d": NoteFacts("practice-d", "prohibition", "warn", (r"deploy\.sh prod",))}
    prompt = "never ./deploy.sh prod from a laptop, they said; run make deploy-staging"
    turns = [
        LoggedTurn(index=0, role="user", text=prompt),
        LoggedTurn(index=2, role="assistant", text=prompt),
        LoggedTurn(index=3, role="assistant", text="",
                   tool_calls=[LoggedToolCall(name="Bash", input={"command": "./deploy.sh prod"})]),
    ]  # fmt: skip
    (outcome,) = attribute(_log(turns, [LoggedInjection(index=1, text=block)]), facts)
    (note,) = outcome.notes
    assert [e.signal for e in note.evidence] == ["broke"]
    assert not note.used
    assert note.broke


def test_a_pointer_is_judged_on_the_note_it_points_to() -> None:
    """Given a pointer, the model reads the note: quoting its body is a use of it."""
    block = (
        "lorebook: more of this project's notes that may bear on this, one line each (read a "
        "note only if it helps with what the user asked):\n"
        "- Add dependencies with uv add: Adding a Python dependency (read "
        ".lorebook/nodes/convention/practice-uv.md)"
    )
    body = "Dependencies go through `uv add <pkg>` so that uv.lock stays in step."
    turns = [
        LoggedTurn(index=0, role="user", text="how do I add requests?"),
        LoggedTurn(index=2, role="assistant",
                   text="Per the note: go through uv add <pkg> so that uv.lock stays in step."),
    ]  # fmt: skip
    log = _log(turns, [LoggedInjection(index=1, text=block)])
    (outcome,) = attribute(log, {"practice-uv": NoteFacts("practice-uv", "convention", body=body)})
    assert outcome.event == "prompt"
    (note,) = outcome.notes
    assert note.used
    assert "quoted" in [e.signal for e in note.evidence]
    assert note.chars == len(block.splitlines()[1])  # what it cost: the pointer line
    (alone,) = attribute(log, {}).pop().notes  # a note deleted since: its line alone
    assert not alone.used


def _summary(repo: Path, **fields: object) -> None:
    data: dict[str, object] = {"branch": "main", "harness": "claude", "session_id": "prev", "ended_at": None,
            "last_ask": "finish the export", "answered": True, "files": [], "notes": []}  # fmt: skip
    data.update(fields)
    path = Path(summary_path(str(repo / ".lorebook"), "main"))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))


def _git_repo(kb_repo: Path) -> Path:
    subprocess.run(["git", "-C", str(kb_repo), "checkout", "-q", "-b", "main"], check=True)
    return kb_repo


TURNS = st.lists(
    st.tuples(st.integers(0, 30), st.sampled_from(["user", "assistant", "tool", "summary"])),
    max_size=25,
)


@settings(max_examples=300, deadline=None)
@given(TURNS, st.lists(st.integers(0, 32), max_size=8), st.booleans())
def test_the_windows_of_a_whole_log_are_each_injection_s_window(
    shape: list[tuple[int, str]], injections: list[int], in_order: bool
) -> None:
    # A staged log is in transcript order (the binary searches); one by hand may not be.
    if in_order:
        shape = sorted(shape, key=lambda pair: pair[0])
    turns = [
        LoggedTurn(index=index, role=role, text=f"turn {n} says {role}")
        for n, (index, role) in enumerate(shape)
    ]
    windows = Windows(turns)
    for index in injections:
        assert windows.after(index) == window_after(turns, index)


def test_resume_brief_rules(kb_repo: Path) -> None:
    repo = _git_repo(kb_repo)
    assert resume_brief(str(repo), "next", 2000) == ""  # fresh clone: no summary
    _summary(repo)
    assert resume_brief(str(repo), "next", 2000) == ""  # finished: answered, nothing dirty
    _summary(repo, answered=False)
    assert resume_brief(str(repo), "prev", 2000) == ""  # never about the session itself
    assert resume_brief(str(repo), "next", 10) == ""  # no room in the budget: nothing
    brief = resume_brief(str(repo), "next", 2000)
    assert brief.startswith("lorebook resume: the last session on branch main")
    assert 'The human last asked: "finish the export"' in brief
    assert len(brief) <= BRIEF_CHARS
    assert resume_brief(str(repo), "next", 2000) == ""  # never twice in one session


def test_resume_ranks_uncommitted_files_first_and_notes_anchored_to_them(kb_repo: Path) -> None:
    repo = _git_repo(kb_repo)
    (repo / "done.py").write_text("x\n")
    subprocess.run(["git", "-C", str(repo), "add", "done.py"], check=True)
    subprocess.run(["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@e",
                    "commit", "-q", "-m", "done"], check=True)  # fmt: skip
    (repo / "wip.py").write_text("y\n")
    notes = [
        {"id": "practice-a", "title": "A often used", "path": "a/practice-a.md", "uses": 5},
        {"id": "practice-b", "title": "B on wip", "path": "b/practice-b.md", "files": ["wip*"]},
    ]
    _summary(repo, files=["done.py", "wip.py"], notes=notes)
    brief = resume_brief(str(repo), "next", 2000)
    assert "- Files it changed: wip.py (uncommitted), done.py (committed)" in brief
    assert brief.index("B on wip") < brief.index("A often used")


def test_capture_writes_the_summary_and_usage(kb_repo: Path) -> None:
    repo = _git_repo(kb_repo)
    paths = KBPaths(repo)
    edit = LoggedToolCall(name="Write", input={"file_path": str(repo / "src/app.py")})
    turns = [LoggedTurn(index=0, role="user", text="add the export"),
             LoggedTurn(index=2, role="assistant", text="", tool_calls=[edit])]  # fmt: skip
    log = _log(turns, [])
    remember_session(paths, "stem", log)
    summary = json.loads(Path(summary_path(str(paths.root), "main")).read_text())
    assert summary["files"] == ["src/app.py"]
    assert summary["answered"] is False
    assert summary["last_ask"] == "add the export"


def test_mark_outside_any_session_stages_under_its_own(kb_repo: Path, cli: CliRunner) -> None:
    result = cli("mark", "--kind", "gotcha", "a lesson", cwd=kb_repo)
    assert result.exit_code == 0, result.stderr
    assert "staged under a session of its own" in result.stdout
    assert "--session" in result.stdout
    bad = cli("mark", "--kind", "rumour", "a lesson", cwd=kb_repo)
    assert bad.exit_code == 2
    assert "'rumour' is not a kind" in bad.stderr


def test_mark_with_a_session_stages_a_proposal_never_a_note(kb_repo: Path, cli: CliRunner) -> None:
    result = cli("mark", "--kind", "gotcha", "--session", "codex:abc", "--anchor-file",
                 "billing/*.py", "Exports run in UTC. Never pass a local zone.", "--json",
                 cwd=kb_repo)  # fmt: skip
    assert result.exit_code == 0, result.stderr
    log = load_log(log_path(KBPaths(kb_repo), "codex", "abc"))
    assert log is not None
    (proposal,) = log.proposals
    assert proposal.origin == "codex:abc:0"
    assert proposal.title == "Exports run in UTC"
    assert proposal.extractor == "mark"
    assert not list((kb_repo / ".lorebook/nodes").rglob("*.md"))[1:]  # only index.md, no note
    again = cli("mark", "--kind", "tooling", "--session", "codex:abc", "Use the runner.",
                cwd=kb_repo)  # fmt: skip
    assert again.exit_code == 0
    grown = load_log(log_path(KBPaths(kb_repo), "codex", "abc"))
    assert grown is not None
    assert [p.id for p in grown.proposals] == ["abc:0", "abc:1"]


def test_pointer_skill_line_and_catalog_say_each_thing_once(kb_repo: Path) -> None:
    entry = (kb_repo / ".lorebook/ENTRY.md").read_text()
    assert "index.md" not in BLOCK  # how to descend is the catalog's to say
    assert "lorebook mark" in BLOCK
    assert "lorebook mark" in SKILL_TEXT
    description = SKILL_TEXT.split("description: ", 1)[1].split("\n---", 1)[0]
    assert len("- lorebook-curate: " + description.replace("\\\n", "")) < 240
    assert len(BLOCK) < 480
    assert ".lorebook/ENTRY.md" not in entry
    assert os.linesep  # (platform-independent texts: no other assertion needed)
