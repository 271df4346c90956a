"""``lorebook eval extraction`` on a small labelled session, figures computed by hand."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from lorebook.cli import evaluate
from lorebook.errors import LorebookError

REFUSED = {
    "name": "Bash",
    "input": {"command": "pip install flask"},
    "result_excerpt": "No (tell Claude what to do differently)",
    "is_error": True,
}
SESSION = [
    {"role": "user", "text": "Add a health endpoint."},
    {"role": "assistant", "text": "I'll install flask.", "tool_calls": [REFUSED]},
    {"role": "user", "text": "We never use pip here! Always `uv add`."},
    {"role": "assistant", "text": "ok"},
    {"role": "user", "text": "ok, go ahead"},
    {"role": "assistant", "text": "Done. Shall I also add a test?"},
    {"role": "user", "text": "shouldn't tests live next to the module they test?"},
    {"role": "assistant", "text": "Moving it.", "tool_calls": [{"name": "Edit"}]},
    {"role": "user", "text": "Please don't touch the database yet."},
    {"role": "user", "text": "I want the banner to be blue."},
]
LABELS = [
    (1, False, None),
    (2, True, "prohibition"),
    (3, False, None),
    (4, True, "convention"),
    (5, False, None),
    (6, False, None),
]
"""Turn (1-based among human turns), teaching, kind."""


def write_fixture(folder: Path) -> tuple[Path, Path]:
    session = folder / "small.jsonl"
    session.write_text("".join(json.dumps(t) + "\n" for t in SESSION), encoding="utf-8")
    labels = folder / "labels.jsonl"
    rows = [
        {"file": "small.jsonl", "turn": turn, "teaching": teaching, "kind": kind}
        for turn, teaching, kind in LABELS
    ]
    labels.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return session, labels


def invoke(*args: str) -> tuple[int, str, str]:
    """Run ``lorebook eval ...`` the way the CLI's entry point does (errors: one line, 1)."""
    app = typer.Typer()

    @app.callback()
    def main() -> None:
        """Root."""

    evaluate.register(app)
    runner = CliRunner()
    result = runner.invoke(app, ["eval", *args])
    if isinstance(result.exception, LorebookError):
        return 1, result.stdout, str(result.exception)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.stdout, result.stderr


def test_per_input_precision_recall_and_preselection_of_a_labelled_session(
    tmp_path: Path,
) -> None:
    session, labels = write_fixture(tmp_path)
    code, out, _ = invoke(
        "extraction", "--sessions", str(session), "--labels", str(labels), "--json"
    )
    assert code == 0
    doc = json.loads(out)
    total = doc["total"]
    # flagged: the correction after the refused `pip` call (right) and the banner wish
    # (wrong); missed: the rule-carrying question, which answers no agent action.
    assert (total["inputs"], total["teaching"], total["flagged"]) == (6, 2, 2)
    assert (total["precision"], total["recall"]) == (0.5, 0.5)
    # the pre-selection sends both teaching inputs, and never "ok, go ahead".
    assert total["preselection_recall"] == 1.0
    assert 0 < total["word_share"] < 1
    assert doc["recall_by_labelled_kind"]["prohibition"]["recall"] == 1.0
    assert doc["recall_by_labelled_kind"]["convention"]["recall"] == 0.0
    assert [m["at"] for m in doc["missed"]] == [4]
    assert [m["at"] for m in doc["false_flags"]] == [6]


def test_the_readable_report_has_one_row_per_session_and_a_total(tmp_path: Path) -> None:
    session, labels = write_fixture(tmp_path)
    code, out, _ = invoke("extraction", "--sessions", str(session), "--labels", str(labels))
    assert code == 0
    rows = {line.split()[0]: line.split() for line in out.splitlines() if line.strip()}
    assert rows["small.jsonl"][1:6] == ["6", "2", "2", "0.50", "0.50"]
    assert rows["total"][1:6] == ["6", "2", "2", "0.50", "0.50"]


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('{"file": "small.jsonl", "turn": 1, "teaching": "yes"}', "field 'teaching'"),
        ('{"file": "small.jsonl", "teaching": true, "kind": "rule"}', "missing field 'turn'"),
        ('{"file": "small.jsonl", "turn": 1, "teaching": true, "kind": "rule"}', "field 'kind'"),
        ("not json", "not JSON"),
    ],
)
def test_a_bad_label_is_one_error_naming_the_file_line_and_field(
    tmp_path: Path, line: str, message: str
) -> None:
    session, labels = write_fixture(tmp_path)
    labels.write_text(line + "\n", encoding="utf-8")
    code, _, err = invoke("extraction", "--sessions", str(session), "--labels", str(labels))
    assert code == 1
    assert f"{labels}:1" in err
    assert message in err
    assert "Traceback" not in err


def test_labels_that_do_not_fit_the_session_and_missing_files_are_named(tmp_path: Path) -> None:
    session, labels = write_fixture(tmp_path)
    rows = labels.read_text(encoding="utf-8").splitlines()[:-1]
    labels.write_text("\n".join(rows) + "\n", encoding="utf-8")
    code, _, err = invoke("extraction", "--sessions", str(session), "--labels", str(labels))
    assert code == 1
    assert "small.jsonl: 6 human inputs read, but 5 labels" in err
    missing = tmp_path / "nope.md"
    code, _, err = invoke("extraction", "--sessions", str(missing), "--labels", str(labels))
    assert (code, err) == (1, f"{missing}: no such file")
    code, _, err = invoke("extraction", "--sessions", str(tmp_path), "--labels", str(labels))
    assert (code, err) == (1, f"{tmp_path}: a folder, not a session file")
