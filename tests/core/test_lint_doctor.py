"""`lint`, `doctor` and `status` on healthy and broken knowledge bases."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import CliRunner
from tests.core.notes_data import TEN_NOTES, in_link_order

RUFF_NOTE = ".lorebook/nodes/tooling/tooling-ruff-is-the-only-linter.md"
"""A note of the populated knowledge base the tests break by hand."""


def _populated(repo: Path, cli: CliRunner) -> None:
    for i in in_link_order(list(range(len(TEN_NOTES)))):
        assert cli("note", "add", *TEN_NOTES[i], cwd=repo).exit_code == 0
    assert cli("index", "rebuild", cwd=repo).exit_code == 0


def test_hand_edited_dangling_edge_fails_lint_and_doctor_sees_stale_index(
    kb_repo: Path, cli: CliRunner
) -> None:
    _populated(kb_repo, cli)
    assert cli("doctor", cwd=kb_repo).exit_code == 0
    note = kb_repo / RUFF_NOTE
    note.write_text(
        note.read_text().replace("lb_relates_to: []", "lb_relates_to: [practice-gone-missing]")
    )

    result = cli("lint", cwd=kb_repo)
    assert result.exit_code == 1
    assert (
        f"error: [dangling-edge] {RUFF_NOTE}: "
        "lb_relates_to names 'practice-gone-missing', which is not a note"
    ) in result.stdout
    assert "[stale-generated] .lorebook/ENTRY.md" in result.stdout

    doctor = cli("doctor", "--json", cwd=kb_repo)
    assert doctor.exit_code == 1
    indexes = next(c for c in doctor.json()["checks"] if c["name"] == "indexes")
    assert indexes["state"] == "problem"
    assert indexes["detail"].startswith("stale")
    assert indexes["fix"] == "run `lorebook index rebuild`"


def test_lint_reports_invalid_notes_by_file_and_field(kb_repo: Path, cli: CliRunner) -> None:
    _populated(kb_repo, cli)
    nodes = kb_repo / ".lorebook/nodes"
    (nodes / "gotcha").mkdir()
    (nodes / "gotcha" / "practice-broken-yaml.md").write_text("---\ntitle: [unclosed\n---\nbody\n")
    (nodes / "gotcha" / "practice-unknown-key.md").write_text(
        "---\ntype: practice\ntitle: T\ndescription: D\nlb_schema: 2\nlb_id: practice-unknown-key\n"
        "lb_kind: gotcha\nlb_colour: red\n---\n"
    )
    (nodes / "gotcha" / "practice-future.md").write_text(
        "---\ntype: practice\ntitle: T\ndescription: D\nlb_schema: 9\nlb_id: practice-future\nlb_kind: gotcha\n---\n"
    )
    (nodes / "gotcha" / "practice-renamed.md").write_text(
        "---\ntype: practice\ntitle: T\ndescription: D\nlb_schema: 2\nlb_id: practice-original\nlb_kind: gotcha\n---\n"
    )
    doc = cli("lint", "--json", cwd=kb_repo).json()
    assert doc["ok"] is False
    messages = {(f["code"], f["path"].rsplit("/", 1)[-1]): f["message"] for f in doc["findings"]}
    assert (
        "invalid YAML in the frontmatter at line 2"
        in messages[("invalid-note", "practice-broken-yaml.md")]
    )
    assert "unknown key 'lb_colour'" in messages[("invalid-note", "practice-unknown-key.md")]
    assert "field 'lb_schema' is 9" in messages[("invalid-note", "practice-future.md")]
    assert (
        "lb_id is 'practice-original' but the file is named 'practice-renamed.md'"
        in messages[("id-mismatch", "practice-renamed.md")]
    )
    # what to fix comes first; the generated files that follow from it after
    codes = [f["code"] for f in doc["findings"] if f["severity"] == "error"]
    assert codes.index("invalid-note") < codes.index("stale-generated")
    # recall names the files it could not read, rather than leave them out in silence
    shown = cli("recall", "what about the gotchas?", cwd=kb_repo)
    assert "! 3 note files could not be read and no hook serves them" in shown.stdout
    assert ".lorebook/nodes/gotcha/practice-broken-yaml.md" in shown.stdout
    rebuild = cli("index", "rebuild", cwd=kb_repo)
    assert rebuild.exit_code == 1
    # Each broken file is named and left out; the rest of the knowledge base is indexed.
    assert "skipped .lorebook/nodes/gotcha/practice-broken-yaml.md: invalid YAML" in rebuild.stderr
    assert "skipped .lorebook/nodes/gotcha/practice-future.md" in rebuild.stderr
    assert "practice-renamed" in (kb_repo / ".lorebook/nodes/gotcha/index.md").read_text()
    assert "practice-broken-yaml" not in (kb_repo / ".lorebook/nodes/gotcha/index.md").read_text()


def test_warnings_do_not_fail_lint(kb_repo: Path, cli: CliRunner) -> None:
    cli(
        "note",
        "add",
        "--title",
        "A",
        "--description",
        "D",
        "--kind",
        "gotcha",
        "--tag",
        "http-api",
        cwd=kb_repo,
    )
    cli(
        "note",
        "add",
        "--title",
        "B",
        "--description",
        "D",
        "--kind",
        "gotcha",
        "--tag",
        "http_api",
        cwd=kb_repo,
    )
    cli("index", "rebuild", cwd=kb_repo)
    doc = cli("lint", "--json", cwd=kb_repo).json()
    assert doc["ok"] is True
    codes = sorted({f["code"] for f in doc["findings"]})
    assert codes == ["duplicate-tag"]  # each note is listed in its folder's index: no orphan


def test_status_counts_notes_and_lint_state(kb_repo: Path, cli: CliRunner) -> None:
    _populated(kb_repo, cli)
    doc = cli("status", "--json", cwd=kb_repo).json()
    assert doc["notes"] == 10
    assert doc["by_status"] == {"active": 10}
    assert doc["by_kind"]["gotcha"] == 2
    assert doc["lint"]["errors"] == 0
    assert doc["pending_sessions"] == 0
    assert doc["open_conflicts"] == 0
    text = cli("status", cwd=kb_repo).stdout
    assert "notes: 10 (10 active)" in text


def test_commands_outside_a_knowledge_base_say_how_to_start(tmp_path: Path, cli: CliRunner) -> None:
    result = cli("note", "list", cwd=tmp_path)
    assert result.exit_code == 1
    assert "run `lorebook init`" in result.stderr
    as_json = cli("lint", "--json", cwd=tmp_path)
    assert as_json.json()["ok"] is False


def test_a_note_left_with_git_conflict_markers_is_named_and_never_served(
    kb_repo: Path, cli: CliRunner
) -> None:
    # seen in a team's merge: the header's conflict was fixed, the body's was not; lint
    # said "0 errors" and the hook served the note with the markers in it
    _populated(kb_repo, cli)
    note = kb_repo / RUFF_NOTE
    text = note.read_text()
    head, sep, tail = text.partition("\n---\n")
    body = tail.rstrip("\n")
    note.write_text(
        f"{head}{sep}{body}\n<<<<<<< HEAD\nRun ruff on save.\n=======\nRun ruff in CI.\n"
        ">>>>>>> feat-b\n"
    )
    result = cli("lint", cwd=kb_repo)
    assert result.exit_code == 1
    assert (f"error: [invalid-note] {RUFF_NOTE}: an unresolved merge conflict") in result.stdout
    shown = cli("recall", "which linter do we use, ruff?", "--json", cwd=kb_repo).json()
    assert "<<<<<<<" not in shown["context"]
    assert shown["unreadable"] == [RUFF_NOTE]
    fenced = f"{head}{sep}{body}\n```\n<<<<<<< HEAD\na\n=======\nb\n>>>>>>> x\n```\n"
    note.write_text(fenced)  # a conflict shown in code is no conflict of the note
    assert "unresolved merge conflict" not in cli("lint", cwd=kb_repo).stdout


def test_an_id_used_by_two_files_is_one_problem_with_one_way_out(
    kb_repo: Path, cli: CliRunner
) -> None:
    # seen after copying a note to another folder: lint said to rebuild the indexes, which
    # refused, and doctor said "none invalid"
    _populated(kb_repo, cli)
    note = kb_repo / RUFF_NOTE
    (kb_repo / ".lorebook/nodes/convention").mkdir(exist_ok=True)
    (kb_repo / ".lorebook/nodes/convention" / note.name).write_text(note.read_text())
    lint = cli("lint", cwd=kb_repo).stdout
    assert "[duplicate-id]" in lint
    assert "give each id one file, then run `lorebook index rebuild`" in lint
    doc = cli("doctor", "--json", cwd=kb_repo).json()
    (notes,) = [check for check in doc["checks"] if check["name"] == "notes"]
    assert notes["state"] == "problem"
    assert "tooling-ruff-is-the-only-linter" in notes["detail"]
