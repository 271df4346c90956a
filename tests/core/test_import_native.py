"""`lorebook import FILE` for every format: the staged turns match the source file.

Claude Code session files and Codex rollouts are recorded fixtures of the real clients
(tests/plugins/*/fixtures); the other formats are read from shared/eval where present.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from lorebook.capture.stage import load_log
from tests.conftest import REPO_ROOT, SHARED, CliRunner

CLAUDE = REPO_ROOT / "tests/plugins/claude/fixtures/transcripts"
CODEX = REPO_ROOT / "tests/plugins/codex/fixtures/transcripts"
CLAUDE_SESSION = CLAUDE / "11111111-2222-4333-8444-555555555555.jsonl"
CODEX_ROLLOUT = CODEX / "rollout-2026-11-30T04-20-36-01a22aae-ea9d-76a3-b0dc-9cdfc95edea7.jsonl"
EVAL = SHARED / "eval"
CONSOLE = EVAL / "transcripts/claude-console"
SPECSTORY = EVAL / "transcripts/cursor-specstory/history"
KENKEEP = EVAL / "extraction/kenkeep-prompt-eval/sessions"


def _records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _import(cli: CliRunner, repo: Path, *args: str) -> dict[str, Any]:
    result = cli("import", *args, "--json", cwd=repo)
    assert result.exit_code == 0, result.stderr
    return dict(result.json()["imported"][0])


def _staged(repo: Path, entry: dict[str, Any]) -> dict[str, Any]:
    log = load_log(repo / entry["log"])
    assert log is not None
    return log.model_dump(mode="json")


def _roles(log: dict[str, Any], role: str) -> list[str]:
    return [turn["text"] for turn in log["turns"] if turn["role"] == role]


def _no_sessions(repo: Path) -> bool:
    folder = repo / ".lorebook/_sessions"
    return not folder.exists() or not any(folder.iterdir())


def test_a_claude_session_file_is_staged_like_a_capture(kb_repo: Path, cli: CliRunner) -> None:
    entry = _import(cli, kb_repo, str(CLAUDE_SESSION))
    assert (entry["harness"], entry["session_id"]) == ("claude", CLAUDE_SESSION.stem)
    log = _staged(kb_repo, entry)
    # Claude enqueues each prompt once: the file's own count of what the person typed.
    typed = [r["content"] for r in _records(CLAUDE_SESSION) if r.get("operation") == "enqueue"]
    assert (
        _roles(log, "user")
        == typed
        == [
            "say hi",
            "PROBE_TOOL please print hello.txt",
            "/compact",
            "say hi again",
        ]
    )
    assert len(_roles(log, "summary")) == 1
    assert not any("PROBEINJECT" in turn["text"] for turn in log["turns"])  # hook text
    again = cli("import", str(CLAUDE_SESSION), "--json", cwd=kb_repo).json()["imported"][0]
    assert again["changed"] is False


SNAPSHOT = {
    "type": "file-history-snapshot",
    "messageId": "54912569-ec05-45fa-a9aa-078e6cde02f1",
    "snapshot": {
        "messageId": "54912569-ec05-45fa-a9aa-078e6cde02f1",
        "trackedFileBackups": {},
        "timestamp": "2026-02-19T02:03:52.991Z",
    },
    "isSnapshotUpdate": False,
}
"""The record Claude Code v2 writes first in most transcripts (no ``sessionId``, no ``uuid``)."""


def test_a_claude_session_file_that_starts_with_a_file_history_snapshot(
    kb_repo: Path, tmp_path: Path, cli: CliRunner
) -> None:
    source = tmp_path / CLAUDE_SESSION.name
    snapshots = (json.dumps(SNAPSHOT) + "\n") * 2
    source.write_text(snapshots + CLAUDE_SESSION.read_text(encoding="utf-8"), encoding="utf-8")
    entry = _import(cli, kb_repo, str(source))
    assert (entry["harness"], entry["session_id"]) == ("claude", CLAUDE_SESSION.stem)
    log = _staged(kb_repo, entry)
    assert _roles(log, "user") == [
        "say hi",
        "PROBE_TOOL please print hello.txt",
        "/compact",
        "say hi again",
    ]


def test_lines_a_claude_session_file_loses_are_named(
    kb_repo: Path, tmp_path: Path, cli: CliRunner
) -> None:
    """A line cut in the middle and a last line with no newline: each import says so."""
    lines = CLAUDE_SESSION.read_text(encoding="utf-8").splitlines(keepends=True)
    cut = next(i for i, line in enumerate(lines) if '"type":"user"' in line and "again" in line)
    lines[cut] = lines[cut][: len(lines[cut]) // 2] + "\n"
    source = tmp_path / CLAUDE_SESSION.name
    source.write_text("".join(lines).rstrip("\n"), encoding="utf-8")
    result = cli("import", str(source), cwd=kb_repo)
    assert result.exit_code == 0, result.stderr
    assert (
        f"{source}: skipped 1 line that is not a JSON record (line {cut + 1}); "
        "a turn written there is not imported"
    ) in result.stderr
    assert f"{source}: the last line has no newline and was left out" in result.stderr
    whole = cli("import", str(CLAUDE_SESSION), cwd=kb_repo)
    assert "not a JSON record" not in whole.stderr
    assert "no newline" not in whole.stderr


def test_a_claude_session_file_opening_with_many_summaries_is_read(
    kb_repo: Path, tmp_path: Path, cli: CliRunner
) -> None:
    # seen in a public archive: 48 to 83 `summary` records before the session's own
    summaries = "".join(
        json.dumps({"type": "summary", "summary": f"Topic {n}", "leafUuid": f"leaf-{n}"}) + "\n"
        for n in range(80)
    )
    source = tmp_path / CLAUDE_SESSION.name
    source.write_text(summaries + CLAUDE_SESSION.read_text(encoding="utf-8"), encoding="utf-8")
    entry = _import(cli, kb_repo, str(source))
    assert (entry["harness"], entry["session_id"]) == ("claude", CLAUDE_SESSION.stem)
    assert "say hi again" in _roles(_staged(kb_repo, entry), "user")


def test_a_resumed_claude_session_is_staged_as_its_own(
    kb_repo: Path, tmp_path: Path, cli: CliRunner
) -> None:
    """Claude names a resumed session's file after its new id and copies the old session's
    records into its top: the new turns are that session's, not a copy of the old one."""
    new_id = "ff33b5b0-cc51-4271-a3eb-545a85882e5f"
    old = CLAUDE_SESSION.read_text(encoding="utf-8")
    prompt = {
        "type": "user", "sessionId": new_id, "uuid": "9d0c1e2f-0000-4000-8000-000000000001",
        "timestamp": "2026-12-01T10:00:00.000Z", "cwd": "/work/proj",
        "message": {"role": "user", "content": "from now on always sign commits"},
    }  # fmt: skip
    resumed = tmp_path / f"{new_id}.jsonl"
    resumed.write_text(old + json.dumps(prompt) + "\n", encoding="utf-8")
    result = cli("import", str(CLAUDE_SESSION), str(resumed), "--json", cwd=kb_repo)
    assert result.exit_code == 0, result.stderr
    first, second = result.json()["imported"]
    assert (first["session_id"], second["session_id"]) == (CLAUDE_SESSION.stem, new_id)
    assert second["same_as"] is None
    # its own turns only: the old session's, copied above them, are staged once, as its
    assert _roles(_staged(kb_repo, second), "user") == ["from now on always sign commits"]


def test_a_codex_rollout_is_staged_like_a_capture(kb_repo: Path, cli: CliRunner) -> None:
    entry = _import(cli, kb_repo, str(CODEX_ROLLOUT))
    assert (entry["harness"], entry["session_id"]) == (
        "codex",
        "01a22aae-ea9d-76a3-b0dc-9cdfc95edea7",
    )
    log = _staged(kb_repo, entry)
    items = [
        r["payload"]["item"]["type"]
        for r in _records(CODEX_ROLLOUT)
        if r["type"] == "event_msg" and r["payload"].get("type") == "item_completed"
    ]
    assert len(_roles(log, "user")) == items.count("UserMessage") == 2
    assert len(_roles(log, "summary")) == items.count("ContextCompaction") == 1
    assert not any("AGENTS.md instructions" in turn["text"] for turn in log["turns"])


def test_native_format_can_be_named_and_must_then_match(kb_repo: Path, cli: CliRunner) -> None:
    assert _import(cli, kb_repo, str(CODEX_ROLLOUT), "--format", "codex")["turns"] > 0
    wrong = cli("import", str(CODEX_ROLLOUT), "--format", "claude", cwd=kb_repo)
    assert wrong.exit_code == 1
    assert wrong.stderr.strip().endswith(f"{CODEX_ROLLOUT}: not a claude transcript")


@pytest.mark.skipif(not CONSOLE.is_dir(), reason=f"evaluation data absent: {CONSOLE}")
@pytest.mark.parametrize(("name", "harness"), [("day-002.md", "claude"), ("day-014.md", "gemini")])
def test_a_console_copy_stages_one_user_turn_per_prompt_line(
    kb_repo: Path, cli: CliRunner, name: str, harness: str
) -> None:
    source = CONSOLE / name
    entry = _import(cli, kb_repo, str(source))
    log = _staged(kb_repo, entry)
    lines = source.read_text(encoding="utf-8").splitlines()
    prompts = [n for n, line in enumerate(lines) if line.startswith("> ")]
    human = [t["index"] for t in log["turns"] if t["role"] in ("user", "summary")]
    assert log["harness"] == harness
    assert human == prompts  # a turn's index is its 0-based line in the file
    assert "/Users/" not in json.dumps(log)  # no home path comes back


@pytest.mark.skipif(not SPECSTORY.is_dir(), reason=f"evaluation data absent: {SPECSTORY}")
def test_a_specstory_export_stages_one_turn_per_header(kb_repo: Path, cli: CliRunner) -> None:
    source = SPECSTORY / "2025-04-27_20-17-minsky-task-workflow-rule-creation.md"
    log = _staged(kb_repo, _import(cli, kb_repo, str(source)))
    lines = source.read_text(encoding="utf-8").splitlines()
    assert len(_roles(log, "user")) == lines.count("_**User**_") == 5
    assert len(_roles(log, "assistant")) == lines.count("_**Assistant**_") == 5


@pytest.mark.skipif(not KENKEEP.is_dir(), reason=f"evaluation data absent: {KENKEEP}")
def test_a_kenkeep_session_stages_one_turn_per_marker(kb_repo: Path, cli: CliRunner) -> None:
    source = KENKEEP / "admit-convention-01.md"
    log = _staged(kb_repo, _import(cli, kb_repo, str(source)))
    lines = source.read_text(encoding="utf-8").splitlines()
    assert len(_roles(log, "user")) == sum(line.startswith("[USER]:") for line in lines)
    assert len(_roles(log, "assistant")) == sum(line.startswith("[AGENT]:") for line in lines)


def test_a_jsonl_export_stages_one_turn_per_line(
    kb_repo: Path, tmp_path: Path, cli: CliRunner
) -> None:
    source = tmp_path / "review.jsonl"
    turns = [{"role": "user", "text": f"rule {n}"} for n in range(3)]
    source.write_text("".join(json.dumps(turn) + "\n" for turn in turns), encoding="utf-8")
    log = _staged(kb_repo, _import(cli, kb_repo, str(source)))
    assert _roles(log, "user") == ["rule 0", "rule 1", "rule 2"]


def _folder(d: Path) -> Path:
    d.mkdir(parents=True, exist_ok=True)
    _write(d / ".what-is-this.md", "hidden: not a transcript\n")
    return d


def test_a_folder_imports_every_file_under_it(
    kb_repo: Path, tmp_path: Path, cli: CliRunner
) -> None:
    history = tmp_path / "history"
    history.mkdir()
    for n in range(2):
        turns = [{"role": "user", "text": f"rule {n}: never push to main"}]
        _write(history / f"s{n}.jsonl", "".join(json.dumps(t) + "\n" for t in turns))
    _write(history / ".what-is-this.md", "SpecStory's note: hidden, not a transcript\n")
    result = cli("import", str(history), cwd=kb_repo)
    assert result.exit_code == 0, result.stderr
    assert "s0.jsonl" in result.stdout
    assert "s1.jsonl" in result.stdout
    # a file in it that is no transcript stops the run, named, unless --skip-invalid
    _write(history / "notes.txt", "hello\n")
    result = cli("import", str(history), cwd=kb_repo)
    assert result.exit_code == 1
    assert "notes.txt: not a format lorebook can" in result.stderr
    assert "--skip-invalid stages the other 2 files" in result.stderr


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda d: d / "gone.jsonl", "gone.jsonl: no such file"),
        (lambda d: _folder(d), ": a folder with no transcript files in it"),
        (lambda d: _write(d / "notes.txt", "hello\n"), "notes.txt: not a format lorebook can"),
        (lambda d: _write(d / "x.jsonl", '{"kind": 1}\n'), "x.jsonl: JSON lines, but neither"),
    ],
)
def test_a_bad_input_is_one_line_and_nothing_is_staged(
    kb_repo: Path, tmp_path: Path, cli: CliRunner, make: Any, message: str
) -> None:
    bad = make(tmp_path / "in")
    result = cli("import", str(CLAUDE_SESSION), str(bad), cwd=kb_repo)
    assert result.exit_code == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert str(bad) in lines[0]
    assert message in lines[0]
    assert "Traceback" not in result.stderr
    assert _no_sessions(kb_repo)  # the good file before it was not staged either


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture(autouse=True)
def _input_folder(tmp_path: Path) -> None:
    (tmp_path / "in").mkdir()


def test_an_import_needs_files_or_a_harness(kb_repo: Path, cli: CliRunner) -> None:
    assert "name transcript files" in cli("import", cwd=kb_repo).stderr
    mixed = cli("import", str(CLAUDE_SESSION), "--from-harness", "claude", cwd=kb_repo)
    assert mixed.exit_code == 2  # options that do not go together: a usage error
    assert "give no files" in mixed.stderr
    assert "go with --from-harness" in cli("import", "--list", cwd=kb_repo).stderr


def test_an_imported_session_gives_no_resume_brief(kb_repo: Path, cli: CliRunner) -> None:
    # seen on a repository that imported months-old sessions of another project: the next
    # session start said "the last session on branch master ... ended mid-task"
    subprocess.run(["git", "-C", str(kb_repo), "checkout", "-q", "-b", "feature"], check=True)
    for transcript in (CLAUDE_SESSION, CODEX_ROLLOUT):
        _import(cli, kb_repo, str(transcript))
    resume = kb_repo / ".lorebook/.state/resume"
    assert not resume.exists() or not any(resume.glob("*.json"))


def test_every_file_named_gets_a_line_even_when_it_stages_nothing(
    kb_repo: Path, cli: CliRunner, tmp_path: Path
) -> None:
    # seen importing a folder of Claude Code sessions: a subagent's file (the same session
    # id as its parent's) printed no line at all, and a file with no turn said "unchanged:
    # staged before as <a log that did not exist>"
    copy = tmp_path / "agent-a3d81.jsonl"
    copy.write_bytes(CLAUDE_SESSION.read_bytes())
    records = [r for r in _records(CLAUDE_SESSION) if r.get("type") in ("user", "assistant")]
    bare = {k: v for k, v in records[0].items() if k in ("sessionId", "cwd", "version")}
    empty = tmp_path / "d83d30c3-0000-4000-8000-000000000000.jsonl"
    empty.write_text(json.dumps({"type": "last-prompt", **bare, "sessionId": empty.stem}) + "\n")
    result = cli("import", str(CLAUDE_SESSION), str(copy), str(empty), cwd=kb_repo)
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert any(line.startswith(f"same session as {CLAUDE_SESSION}: {copy}") for line in lines)
    assert f"nothing in {empty}: no turn of the person or the agent, nothing staged" in lines
