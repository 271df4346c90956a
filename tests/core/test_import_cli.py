"""`lorebook import`: transcript exports become redacted, pending session logs."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from lorebook.capture.stage import load_log, log_files
from tests.conftest import SHARED, CliRunner

SPECSTORY = SHARED / "eval" / "transcripts" / "cursor-specstory" / "history"


def test_jsonl_import_is_redacted_and_pending(
    kb_repo: Path, tmp_path: Path, cli: CliRunner
) -> None:
    export = tmp_path / "chat.jsonl"
    export.write_text(
        json.dumps({"session_id": "exported-1", "harness": "import"})
        + "\n"
        + json.dumps(
            {
                "role": "user",
                "text": "never commit .env files; GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123456789",
            }
        )
        + "\n"
        + json.dumps({"role": "assistant", "text": "understood"})
        + "\n"
    )
    result = cli("import", str(export), "--json", cwd=kb_repo)
    assert result.exit_code == 0, result.stderr
    staged = kb_repo / result.json()["imported"][0]["log"]
    loaded = load_log(staged)
    assert loaded is not None
    assert loaded.status == "pending"
    assert not any("ghp_" in part.read_text() for part in log_files(staged))
    assert loaded.turns[0].text.startswith("never commit .env files")
    status = cli("status", "--json", cwd=kb_repo).json()
    assert status["pending_sessions"] == 1


def test_status_says_what_waits_for_curation_after_extract(
    kb_repo: Path, tmp_path: Path, cli: CliRunner
) -> None:
    export = tmp_path / "chat.jsonl"
    rows = [
        {"session_id": "exported-2", "harness": "import"},
        {"role": "user", "text": "Never commit .env files: the secrets live in the vault."},
        {"role": "assistant", "text": "Understood."},
    ]
    export.write_text("".join(json.dumps(row) + "\n" for row in rows))
    assert cli("import", str(export), cwd=kb_repo).exit_code == 0
    extracted = cli("extract", cwd=kb_repo)
    assert extracted.exit_code == 0, extracted.stderr
    assert "next: `lorebook curate`" in extracted.stdout
    status = cli("status", "--json", cwd=kb_repo).json()
    assert (status["pending_sessions"], status["extracted_sessions"]) == (0, 1)
    assert status["proposals_to_curate"] == 1
    text = cli("status", cwd=kb_repo).stdout
    assert "sessions: 0 pending, 1 extracted with 1 proposal for `lorebook curate`" in text
    curated = cli("curate", cwd=kb_repo)
    assert curated.exit_code == 0, curated.stderr
    # not `git diff .lorebook/`: on a first run the notes are new files, which it never shows
    assert "review with `lorebook review`" in curated.stdout
    after = cli("status", "--json", cwd=kb_repo).json()
    assert (after["extracted_sessions"], after["proposals_to_curate"]) == (0, 0)
    # the note curation wrote from the session waits for a person, and status says so
    assert after["left_for_review"]["extraction"] == {
        "pending": 0, "unreviewed": 1, "conflicts": 0
    }  # fmt: skip
    assert (
        "extraction: 0 proposals pending curation, 1 note unreviewed"
        in cli("status", cwd=kb_repo).stdout
    )


def test_a_bad_export_names_the_file_and_line(
    kb_repo: Path, tmp_path: Path, cli: CliRunner
) -> None:
    export = tmp_path / "bad.jsonl"
    export.write_text('{"role": "user", "text": "ok"}\n{"role": "robot", "text": "x"}\n')
    result = cli("import", str(export), "--format", "jsonl", cwd=kb_repo)
    assert result.exit_code == 1
    assert "bad.jsonl" in result.stderr
    assert not (kb_repo / ".lorebook/_sessions").exists() or not list(
        (kb_repo / ".lorebook/_sessions").iterdir()
    )


@pytest.mark.skipif(
    not SPECSTORY.is_dir(), reason="shared/eval is not present beside the repository"
)
def test_specstory_exports_import_then_extract(kb_repo: Path, cli: CliRunner) -> None:
    files = sorted(SPECSTORY.glob("*.md"))
    result = cli("import", *map(str, files), "--json", cwd=kb_repo)
    assert result.exit_code == 0, result.stderr
    assert len(result.json()["imported"]) == 9
    extracted = cli("extract", "--json", cwd=kb_repo)
    assert extracted.exit_code == 0, extracted.stderr
    assert extracted.json()["sessions"]["extracted"] == 9


CONSOLE = SHARED / "eval" / "transcripts" / "claude-console"


def _good_and_bad(folder: Path) -> list[Path]:
    """Two files that import (JSONL, a console copy) and two that do not, interleaved."""
    files = {
        "good.jsonl": '{"role": "user", "text": "keep the fixtures small"}\n',
        "notes.txt": "just some notes\n",
        "day.md": "claude-trace\n\n> use make test, never bare pytest\n\n⏺ Understood.\n",
        "bad.jsonl": '{"role": "user", "text": "ok"}\n{"role": "robot", "text": "x"}\n',
    }
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    return [folder / name for name in files]


def _staged(repo: Path) -> list[Path]:
    sessions = repo / ".lorebook/_sessions"
    return sorted(sessions.iterdir()) if sessions.is_dir() else []


def test_every_bad_file_is_named_with_its_reason_and_nothing_is_staged(
    kb_repo: Path, tmp_path: Path, cli: CliRunner
) -> None:
    files = _good_and_bad(tmp_path)
    result = cli("import", *map(str, files), cwd=kb_repo)
    assert result.exit_code == 1
    assert "2 of 4 files cannot be imported" in result.stderr
    assert f"{tmp_path / 'notes.txt'}: not a format lorebook can import" in result.stderr
    assert f"{tmp_path / 'bad.jsonl'}:2:" in result.stderr
    assert "good.jsonl" not in result.stderr
    assert "--skip-invalid" in result.stderr
    assert _staged(kb_repo) == []
    as_json = cli("import", *map(str, files), "--json", cwd=kb_repo)
    assert as_json.exit_code == 1
    message = as_json.json()["error"]["message"]
    assert "notes.txt" in message
    assert "bad.jsonl" in message


def test_skip_invalid_stages_the_good_files_and_lists_the_rest(
    kb_repo: Path, tmp_path: Path, cli: CliRunner
) -> None:
    files = _good_and_bad(tmp_path)
    result = cli("import", *map(str, files), "--skip-invalid", "--json", cwd=kb_repo)
    assert result.exit_code == 0, result.stderr
    doc = result.json()
    assert [item["file"] for item in doc["imported"]] == [str(files[0]), str(files[2])]
    assert [item["harness"] for item in doc["imported"]] == ["import", "claude"]
    skipped = doc["skipped"]
    assert [item["file"] for item in skipped] == [str(files[1]), str(files[3])]
    assert skipped[0]["reason"].startswith(f"{files[1]}: not a format lorebook can import")
    assert skipped[1]["reason"].startswith(f"{files[3]}:2:")
    assert len(_staged(kb_repo)) >= 2
    again = cli("import", *map(str, files), "--skip-invalid", cwd=kb_repo)
    assert again.exit_code == 0, again.stderr
    assert f"skipped {files[1]}: " in again.stdout
    assert f"skipped {files[3]}:2: " in again.stdout
    assert "2 files skipped" in again.stdout


@pytest.mark.skipif(not CONSOLE.is_dir(), reason=f"evaluation data absent: {CONSOLE}")
def test_recorded_console_copies_import_whatever_their_first_line(
    kb_repo: Path, tmp_path: Path, cli: CliRunner
) -> None:
    firsts = {"day-002.md": "claude-trace\n", "day-004.md": "", "day-014.md": "\n\n"}
    for name, first in firsts.items():
        body = (CONSOLE / name).read_text(encoding="utf-8").split("\n", 1)[1]
        (tmp_path / name).write_text(first + body, encoding="utf-8")
    result = cli("import", *(str(tmp_path / name) for name in firsts), "--json", cwd=kb_repo)
    assert result.exit_code == 0, result.stderr
    imported = result.json()["imported"]
    assert [item["harness"] for item in imported] == ["claude", "claude", "gemini"]
    assert all(item["turns"] > 0 for item in imported)


def test_one_bad_file_among_good_ones_is_one_line(
    kb_repo: Path, tmp_path: Path, cli: CliRunner
) -> None:
    good, notes = _good_and_bad(tmp_path)[:2]
    result = cli("import", str(good), str(notes), cwd=kb_repo)
    assert result.exit_code == 1
    (line,) = result.stderr.strip().splitlines()
    assert line.startswith(f"lorebook: error: {notes}: not a format lorebook can import")
    assert line.endswith("; nothing was staged (--skip-invalid stages the other file)")
    assert _staged(kb_repo) == []


CLAUDE_EXPORT = """<!-- Generated by SpecStory -->

<!-- Claude Code Session 0bf50dd9-678e-4eee-9123-761b2c6d70b3 (2025-08-24_09-52-19Z) -->

# Tests (2025-08-24 09:52:19Z)

_**User**_

never run bare pytest here, use make test

---

_**Agent (claude-sonnet-4)**_

Understood.
"""


def test_an_export_staged_as_cursor_before_is_not_staged_again(
    kb_repo: Path, tmp_path: Path, cli: CliRunner
) -> None:
    """Before exports were staged as their host, every SpecStory export was `cursor`: the
    same bytes imported again are the same session, not a second one."""
    from lorebook.capture.stage import log_path, write_log
    from lorebook.importers.specstory import parse_specstory
    from lorebook.kb.paths import KBPaths

    export = tmp_path / "2025-08-24_09-52-19Z-tests.md"
    export.write_text(CLAUDE_EXPORT, encoding="utf-8")
    log = parse_specstory(export.read_bytes(), export.name).log
    assert log.harness == "claude"
    paths = KBPaths.for_repo(kb_repo)
    old = log.model_copy(update={"harness": "cursor", "origin": f"cursor:{log.session_id}"})
    legacy = log_path(paths, "cursor", log.session_id)
    legacy.parent.mkdir(parents=True, exist_ok=True)
    write_log(legacy, old)
    before = _staged(kb_repo)

    again = cli("import", str(export), "--json", cwd=kb_repo)
    assert again.exit_code == 0, again.stderr
    assert _staged(kb_repo) == before
    assert [i["harness"] for i in again.json()["imported"]] == ["cursor"]

    # SpecStory keeps appending to the export as the chat goes on: still the same session.
    export.write_text(CLAUDE_EXPORT + "\n---\n\n_**User**_\n\nthanks\n", encoding="utf-8")
    longer = cli("import", str(export), "--json", cwd=kb_repo)
    assert longer.exit_code == 0, longer.stderr
    assert _staged(kb_repo) == before
    staged = load_log(legacy)
    assert staged is not None
    assert staged.turns[-1].text == "thanks"


def test_a_claude_code_export_is_staged_as_claude(
    kb_repo: Path, tmp_path: Path, cli: CliRunner
) -> None:
    export = tmp_path / "2025-08-24_09-52-19Z-tests.md"
    export.write_text(CLAUDE_EXPORT, encoding="utf-8")
    result = cli("import", str(export), "--json", cwd=kb_repo)
    assert result.exit_code == 0, result.stderr
    [row] = result.json()["imported"]
    assert row["harness"] == "claude"
    staged = load_log(kb_repo / row["log"])
    assert staged is not None
    assert staged.origin == f"claude:{row['session_id']}"


def test_importing_the_same_file_again_says_it_is_unchanged(
    kb_repo: Path, tmp_path: Path, cli: CliRunner
) -> None:
    export = tmp_path / "chat.jsonl"
    rows = [{"session_id": "again-1", "harness": "import"}, {"role": "user", "text": "hi"}]
    export.write_text("".join(json.dumps(row) + "\n" for row in rows))
    first = cli("import", str(export), cwd=kb_repo)
    assert first.stdout.startswith(f"imported {export}: 1 turns -> .lorebook/_sessions/")
    again = cli("import", str(export), cwd=kb_repo)
    assert again.exit_code == 0, again.stderr
    assert again.stdout.startswith(f"unchanged {export}: staged before as .lorebook/_sessions/")
    assert again.stdout.rstrip().endswith("nothing new")


CONSOLE_COPY = """> never push to main directly, open a pull request

⏺ Understood: I will open a pull request instead of pushing to main.
"""


def test_a_console_copy_piped_in_is_staged_once(kb_repo: Path, cli: CliRunner) -> None:
    # `pbpaste | lorebook import -`: it said "-: no such file".
    first = subprocess.run(
        [sys.executable, "-m", "lorebook", "import", "-"],
        cwd=kb_repo, input=CONSOLE_COPY, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert first.returncode == 0, first.stderr
    assert first.stdout.startswith("imported stdin-")
    assert "lorebook-stdin-" not in first.stdout  # not the scratch file's path
    (log,) = [p for p in _staged(kb_repo) if p.suffix == ".json"]
    staged = load_log(log)
    assert staged is not None
    assert staged.turns[0].text == "never push to main directly, open a pull request"
    again = cli("import", "-", cwd=kb_repo, stdin=CONSOLE_COPY)
    assert again.exit_code == 0, again.stderr
    assert again.stdout.startswith("unchanged stdin-")
    bad = cli("import", "-", cwd=kb_repo, stdin="not a transcript\n")
    assert bad.exit_code == 1
    assert "lorebook: error: stdin-" in bad.stderr
    assert ": not a format lorebook can import" in bad.stderr
