"""`lorebook import`: transcript exports become redacted, pending session logs."""

from __future__ import annotations

import json
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
