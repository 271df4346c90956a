"""Nothing the host already loads (serving issue, item 3): a note derived from an instruction
file the host reads by itself is not served to that host, and still served to the others.

Driven through the hook entry (:func:`lorebook.hook.run`) with the real Claude Code and Codex
event modules: Claude Code loads CLAUDE.md, Codex does not.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from lorebook.inject.loaded import host_files, not_loaded
from lorebook.inject.state import remember_notes, seen_notes, session_state
from lorebook.kb.paths import KBPaths
from lorebook.kb.store import MarkdownStore
from lorebook.recall.index import NoteIndex, index_path
from lorebook.recall.sync import reconcile
from lorebook.testing import make_note
from tests.conftest import CliRunner, fire_raw

MODULES = {"claude": "lorebook_claude.events", "codex": "lorebook_codex.events"}
EVENT = {
    "claude": {"Start": "SessionStart", "Prompt": "UserPromptSubmit", "Pre": "PreToolUse"},
    "codex": {"Start": "SessionStart", "Prompt": "UserPromptSubmit", "Pre": "PreToolUse"},
}
CLAUDE_MD = "# Project\n\n## Testing\n\nRun the test suite with tox, never bare pytest.\n"
PROMPT = "how do I run the test suite with tox here?"


def fire(
    repo: Path, monkeypatch: pytest.MonkeyPatch, host: str, event: str, **payload: Any
) -> dict[str, Any]:
    """One hook event through the real entry; the host's JSON answer ({} when silent)."""
    data = {
        "session_id": f"{host}-session",
        "cwd": str(repo),
        "transcript_path": str(repo / "t.jsonl"),
        "hook_event_name": EVENT[host][event],
        **payload,
    }
    raw = fire_raw(repo, monkeypatch, [host, EVENT[host][event]], data, modules=MODULES)
    return json.loads(raw) if raw else {}


def context(answer: dict[str, Any]) -> str:
    return str(answer.get("hookSpecificOutput", {}).get("additionalContext", ""))


def no_errors(repo: Path) -> None:
    log = repo / ".lorebook/_logs/hook-errors.log"
    assert not log.exists(), log.read_text()


@pytest.fixture
def derived(kb_repo: Path, cli: CliRunner) -> Path:
    """A CLAUDE.md and two reviewed notes: one bootstrap-style from it, one from a session."""
    (kb_repo / "CLAUDE.md").write_text(CLAUDE_MD, encoding="utf-8")
    for title, body, origin in (
        ("Run the test suite with tox", "TOX_NOTE_BODY: never bare pytest.", "CLAUDE.md#testing"),
        ("Tox runs the suite in parallel", "PARALLEL_NOTE_BODY: tox -p.", "claude:s0:3"),
    ):
        added = cli("note", "add", "--title", title, "--description", "Running the test suite",
                    "--kind", "convention", "--body", body, "--derived-from", origin,
                    cwd=kb_repo)  # fmt: skip
        assert added.exit_code == 0, added.stderr
    return kb_repo


@pytest.mark.parametrize("start", [True, False], ids=["after-session-start", "no-session-start"])
def test_claude_is_not_served_the_note_from_claude_md_and_codex_is(
    derived: Path, monkeypatch: pytest.MonkeyPatch, start: bool
) -> None:
    served = {}
    for host in ("claude", "codex"):
        if start:
            fire(derived, monkeypatch, host, "Start", source="startup")
        served[host] = context(fire(derived, monkeypatch, host, "Prompt", prompt=PROMPT))
    assert "PARALLEL_NOTE_BODY" in served["claude"]  # the hook served Claude this prompt
    assert "Run the test suite with tox" not in served["claude"]  # neither whole nor pointer
    assert "TOX_NOTE_BODY" in served["codex"]  # Codex does not load CLAUDE.md
    assert "PARALLEL_NOTE_BODY" in served["codex"]
    no_errors(derived)


def test_the_first_serving_prompt_records_what_the_host_loads(
    derived: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    kb_root = str(derived / ".lorebook")
    fire(derived, monkeypatch, "claude", "Start", source="startup")
    assert session_state(kb_root, "claude-session") == (set(), None)  # nothing written
    fire(derived, monkeypatch, "claude", "Prompt", prompt=PROMPT)
    assert session_state(kb_root, "claude-session")[1] == frozenset({"CLAUDE.md"})
    (derived / "CLAUDE.md").unlink()
    fire(derived, monkeypatch, "claude", "Start", source="resume")  # asked again
    assert session_state(kb_root, "claude-session")[1] == frozenset()


def test_a_note_from_an_imported_file_is_not_served_to_claude(
    kb_repo: Path, cli: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    (kb_repo / "docs").mkdir()
    (kb_repo / "docs/testing.md").write_text("Run the suite with tox.\n", encoding="utf-8")
    (kb_repo / "CLAUDE.md").write_text("# Project\n\nSee @docs/testing.md\n", encoding="utf-8")
    cli("note", "add", "--title", "Run the test suite with tox", "--description", "Tests",
        "--kind", "convention", "--body", "TOX_NOTE_BODY", "--derived-from",
        "docs/testing.md#testing", cwd=kb_repo)  # fmt: skip
    fire(kb_repo, monkeypatch, "claude", "Start", source="startup")
    assert "TOX_NOTE_BODY" not in context(
        fire(kb_repo, monkeypatch, "claude", "Prompt", prompt=PROMPT)
    )
    (kb_repo / "CLAUDE.md").write_text("# Project\n\nNo imports.\n", encoding="utf-8")
    fire(kb_repo, monkeypatch, "claude", "Start", source="startup")  # a new session start
    assert "TOX_NOTE_BODY" in context(fire(kb_repo, monkeypatch, "claude", "Prompt", prompt=PROMPT))
    no_errors(kb_repo)


def test_a_rule_from_claude_md_still_denies_but_is_not_injected(
    kb_repo: Path, cli: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    (kb_repo / "CLAUDE.md").write_text("Never force-push.\n", encoding="utf-8")
    for title, enforce in (("Never force-push shared branches", "deny"),
                           ("Pushing goes through the merge queue", "none")):  # fmt: skip
        cli("note", "add", "--title", title, "--description", "Pushing", "--kind", "prohibition",
            "--anchor-command", r"git push\b", "--enforce", enforce, "--body", title.upper(),
            "--derived-from", "CLAUDE.md#git", cwd=kb_repo)  # fmt: skip
    push = {"tool_name": "Bash", "tool_input": {"command": "git push --force origin dev"}}
    fire(kb_repo, monkeypatch, "claude", "Start", source="startup")
    claude = fire(kb_repo, monkeypatch, "claude", "Pre", **push)["hookSpecificOutput"]
    assert claude["permissionDecision"] == "deny"  # CLAUDE.md does not stop a command
    assert "NEVER FORCE-PUSH" in claude["permissionDecisionReason"]
    assert "MERGE QUEUE" not in json.dumps(claude)
    no_errors(kb_repo)


def test_a_note_from_claude_md_is_not_injected_before_a_tool_either(
    kb_repo: Path, cli: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    (kb_repo / "CLAUDE.md").write_text("Generated files.\n", encoding="utf-8")
    cli("note", "add", "--title", "The schema is generated", "--description", "schema.sql",
        "--kind", "convention", "--anchor-file", "schema.sql", "--body", "SCHEMA_NOTE_BODY",
        "--derived-from", "CLAUDE.md#generated", cwd=kb_repo)  # fmt: skip
    read = {"tool_name": "Read", "tool_input": {"file_path": str(kb_repo / "schema.sql")}}
    fire(kb_repo, monkeypatch, "claude", "Start", source="startup")
    assert "SCHEMA_NOTE_BODY" not in context(fire(kb_repo, monkeypatch, "claude", "Pre", **read))
    fire(kb_repo, monkeypatch, "codex", "Start", source="startup")
    assert "SCHEMA_NOTE_BODY" in context(fire(kb_repo, monkeypatch, "codex", "Pre", **read))
    no_errors(kb_repo)


def test_the_index_keeps_each_notes_source_files(kb_repo: Path) -> None:
    store = MarkdownStore(kb_repo)
    origins = ["CLAUDE.md#testing", "claude:s1:4", "./docs/a.md", "CLAUDE.md#setup", "https://x/y"]
    store.add(make_note("tox", lb_derived_from=origins), folder="conventions")
    reconcile(KBPaths(kb_repo))
    with NoteIndex(index_path(str(kb_repo / ".lorebook"))) as index:
        (note,) = index.get(["practice-tox"]).values()
    assert note.sources == ("CLAUDE.md", "docs/a.md")


def test_the_session_state_keeps_the_loaded_files_beside_the_notes(tmp_path: Path) -> None:
    kb_root = str(tmp_path)
    remember_notes(kb_root, "s", set())
    assert session_state(kb_root, "s") == (set(), None)  # nothing recorded, no file
    remember_notes(kb_root, "s", set(), reset=True, loaded=frozenset({"CLAUDE.md"}))
    remember_notes(kb_root, "s", {"a"})
    remember_notes(kb_root, "s", {"b"})
    assert session_state(kb_root, "s") == ({"a", "b"}, frozenset({"CLAUDE.md"}))
    remember_notes(kb_root, "s", set(), reset=True, loaded=frozenset())
    assert session_state(kb_root, "s") == (set(), frozenset())
    assert seen_notes(kb_root, "s") == set()


class _Note:
    def __init__(self, store: str, sources: tuple[str, ...]) -> None:
        self.store = store
        self.sources = sources


def test_only_the_repositorys_own_notes_are_checked() -> None:
    home, other = _Note("markdown", ("CLAUDE.md",)), _Note("personal", ("CLAUDE.md",))
    plain = _Note("markdown", ())
    kept = not_loaded([home, other, plain], frozenset({"CLAUDE.md"}))  # type: ignore[list-item]
    # The personal note names another repository's CLAUDE.md: it stays.
    assert kept == [other, plain]  # type: ignore[comparison-overlap]


def test_a_failing_declaration_serves_everything_and_says_so(tmp_path: Path) -> None:
    host = ModuleType("lorebook_broken.events")

    def loaded_files(repo: str, cwd: str | None) -> frozenset[str]:
        raise OSError("disk gone")

    host.loaded_files = loaded_files  # type: ignore[attr-defined]
    problems: list[str] = []
    assert host_files(host, str(tmp_path), None, problems) == frozenset()
    assert problems == [
        "lorebook_broken.events.loaded_files: OSError: disk gone; every note served"
    ]
    assert host_files(ModuleType("plain"), str(tmp_path), None, problems) == frozenset()


def test_recall_shows_each_hosts_prompt_hook(derived: Path, cli: CliRunner) -> None:
    assert cli("init", "--harnesses", "claude,codex", cwd=derived).exit_code == 0
    shown = {}
    for host in ("claude", "codex"):
        done = cli("recall", PROMPT, "--harness", host, "--json", cwd=derived)
        assert done.exit_code == 0, done.stderr
        shown[host] = {n["title"] for n in done.json()["notes"]}
    assert "Run the test suite with tox" not in shown["claude"]  # Claude Code loads CLAUDE.md
    assert "Tox runs the suite in parallel" in shown["claude"]
    assert {"Run the test suite with tox", "Tox runs the suite in parallel"} <= shown["codex"]
    text = cli("recall", PROMPT, "--harness", "claude", cwd=derived).stdout.splitlines()
    assert any(
        line.startswith("as the claude prompt hook serves it (notes from CLAUDE.md")
        for line in text
    )
    unwired = cli("recall", PROMPT, "--harness", "cursor", cwd=derived)
    assert unwired.exit_code == 2, unwired.stderr
    assert "--harness cursor: not wired in this repository (wired: claude, codex)" in (
        unwired.stderr
    )
    assert "hint: lorebook init --harnesses claude,codex,cursor" in unwired.stderr
    typo = cli("recall", PROMPT, "--harness", "codx", cwd=derived)
    assert typo.exit_code == 2
    assert "did you mean 'codex'?" in typo.stderr  # not "lorebook init --harnesses codx"
    assert "--harness codx: no harness of that name is installed" in typo.stderr
    empty = cli("recall", "  ", cwd=derived)
    assert empty.exit_code == 2  # not "no note matches" and exit 0
    assert "QUERY is empty" in empty.stderr


def test_recall_says_cursor_gets_nothing_at_its_prompts(derived: Path, cli: CliRunner) -> None:
    # Cursor lets no hook add context at a prompt: recall said its "prompt hook would serve"
    # notes it never receives.
    assert cli("init", "--harnesses", "claude,cursor", cwd=derived).exit_code == 0
    shown = cli("recall", PROMPT, "--harness", "cursor", cwd=derived)
    assert shown.exit_code == 0, shown.stderr
    assert shown.stdout.startswith("cursor gets nothing at its prompts")
    assert (
        cli("recall", PROMPT, "--harness", "cursor", "--json", cwd=derived).json()["prompt_hook"]
        is False
    )
    assert "gets nothing" not in cli("recall", PROMPT, "--harness", "claude", cwd=derived).stdout
