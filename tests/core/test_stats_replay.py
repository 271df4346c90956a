"""``lorebook stats`` on recorded Claude Code and Codex sessions, replayed through capture.

``tests/fixtures/stats/<harness>/`` holds the transcripts the real clients wrote in
``tests/e2e/test_claude_stats.py`` and ``test_codex_stats.py`` (machine paths replaced):
in one session the agent quotes the injected dependency note, in one it runs the command
the deploy note forbids, gets the note at pre-tool and then runs the allowed one, and in one
it ignores the dependency note. Replaying them through each plugin's reader and capture, in
a knowledge base holding the same notes, ``stats`` must attribute the first two and not the
third.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lorebook.capture.stage import capture_session, load_log, log_path
from lorebook.harness import Harness
from lorebook.kb.paths import KBPaths
from lorebook.models.session import SessionLog
from lorebook.stats.attribution import attribute
from lorebook.stats.follow import injected_ids, note_facts
from lorebook.stats.report import compute_stats
from lorebook.stats.usage import read_usage
from lorebook_claude.harness import ClaudeHarness
from lorebook_codex.harness import CodexHarness
from tests.conftest import CliRunner
from tests.e2e import stats_scenario as sc

FIXTURES = Path(__file__).parent.parent / "fixtures" / "stats"
HARNESSES: dict[str, type[Harness]] = {"claude": ClaudeHarness, "codex": CodexHarness}
UV_NOTE_ID = "practice-add-dependencies-with-uv-add"
DEPLOY_NOTE_ID = "practice-deploy-with-make-deploy-staging"
UNUSED_NOTE_ID = "practice-timestamps-are-stored-in-utc"
"""The ids the notes had when the transcripts were recorded (``note add`` minted
``practice-`` ids then; it mints ``<kind>-`` ids now): the injections they hold name these."""


def _session_id(harness: str, path: Path) -> str:
    return path.stem if harness == "claude" else path.stem.split("-", 6)[-1]


@pytest.fixture(params=sorted(HARNESSES))
def replayed(request: pytest.FixtureRequest, kb_repo: Path, cli: CliRunner) -> tuple[str, Path]:
    for note, note_id in (
        (sc.UV_NOTE, UV_NOTE_ID),
        (sc.DEPLOY_NOTE, DEPLOY_NOTE_ID),
        (sc.UNUSED_NOTE, UNUSED_NOTE_ID),
    ):
        assert cli("note", "add", *note, "--id", note_id, cwd=kb_repo).exit_code == 0
    assert cli("index", "rebuild", cwd=kb_repo).exit_code == 0
    harness = request.param
    paths = KBPaths(kb_repo)
    for transcript in sorted((FIXTURES / harness).glob("*.jsonl")):
        reader = HARNESSES[harness]()
        capture_session(paths, reader, harness, _session_id(harness, transcript), str(transcript))
    return harness, kb_repo


def _logs(repo: Path) -> dict[str, SessionLog]:
    """Staged log per scenario (QUOTE_CASE, OBEY_CASE, IGNORE_CASE)."""
    found = {}
    for path in sorted((repo / ".lorebook/_sessions").glob("*.json")):
        log = load_log(path)
        assert log is not None
        case = next(
            w for t in log.turns if t.role == "user" for w in t.text.split() if "_CASE" in w
        )
        found[case] = log
    return found


def test_the_quote_and_the_obeyed_rule_are_attributed_the_ignored_note_is_not(
    replayed: tuple[str, Path],
) -> None:
    _, repo = replayed
    paths = KBPaths(repo)
    logs = _logs(repo)
    assert sorted(logs) == ["IGNORE_CASE", "OBEY_CASE", "QUOTE_CASE"]
    outcome = {}
    for case, log in logs.items():
        facts = note_facts(paths, injected_ids(log))
        outcome[case] = {
            (i.event, n.note_id): [e.signal for e in n.evidence]
            for i in attribute(log, facts)
            for n in i.notes
        }
    assert outcome["QUOTE_CASE"][("prompt", UV_NOTE_ID)][0] == "quoted"
    assert outcome["OBEY_CASE"][("pre_tool", DEPLOY_NOTE_ID)][0] == "obeyed"
    assert not any(
        s for s in outcome["IGNORE_CASE"][("prompt", UV_NOTE_ID)] if s in ("quoted", "cited")
    )
    assert outcome["IGNORE_CASE"][("prompt", UV_NOTE_ID)] == []


def test_stats_report_and_usage_file(replayed: tuple[str, Path], cli: CliRunner) -> None:
    harness, repo = replayed
    result = cli("stats", "--json", cwd=repo)
    assert result.exit_code == 0, result.stderr
    report = result.json()
    notes = {row["note"]: row for row in report["notes"]}
    assert report["sessions"] == 3
    assert notes[UV_NOTE_ID]["injected"] == 2
    assert notes[UV_NOTE_ID]["used"] == 1
    assert notes[DEPLOY_NOTE_ID]["used_high"] == 1
    assert report["never_injected"] == [UNUSED_NOTE_ID]
    assert report["injected_never_used"] == []
    events = {row["event"]: row for row in report["events"]}
    assert events["session_start"]["injections"] == 3
    assert events["prompt"]["injections"] == 2
    assert events["pre_tool"]["notes_used"] == 1
    sources = {(row["event"], row["source"]) for row in report["latency"]}
    if harness == "claude":  # Claude Code records each hook's duration in its transcript
        assert ("session_start", "host") in sources
        assert ("pre_tool", "host") in sources
    assert report["standing_cost"]["session_start_mean"] > 0
    usage = read_usage(str(repo / ".lorebook"))
    assert usage[UV_NOTE_ID] == (2, 1)
    assert usage[DEPLOY_NOTE_ID][1] == 1
    text = cli("stats", cwd=repo)
    assert text.exit_code == 0
    assert UV_NOTE_ID in text.stdout
    assert "Injections by event" in text.stdout


def test_injected_text_is_staged_apart_never_as_a_turn(replayed: tuple[str, Path]) -> None:
    harness, repo = replayed
    for path in sorted((FIXTURES / harness).glob("*.jsonl")):
        log = load_log(log_path(KBPaths(repo), harness, _session_id(harness, path)))
        assert log is not None
        assert log.injected
        for turn in log.turns:
            assert "lorebook: notes the team keeps" not in turn.text
            assert "lorebook status:" not in turn.text


def test_since_filters_sessions_and_a_bad_date_is_one_clear_error(
    replayed: tuple[str, Path], cli: CliRunner
) -> None:
    _, repo = replayed
    later = cli("stats", "--json", "--since", "2100-01-01", cwd=repo).json()
    assert later["sessions"] == 0
    assert later["notes"] == []
    bad = cli("stats", "--since", "yesterday", cwd=repo)
    assert bad.exit_code == 2
    assert "--since 'yesterday' is not a date" in bad.stderr
    assert "Traceback" not in bad.stderr
    json.dumps(compute_stats(KBPaths(repo)).as_json())  # one serialisable document
