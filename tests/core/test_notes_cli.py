"""`lorebook init`, `note add/show/list`, `index rebuild`, `lint` as a new user runs them."""

from __future__ import annotations

from pathlib import Path

import pytest

from lorebook.kb.notes import read_note
from tests.conftest import CliRunner, git
from tests.core.notes_data import TEN_IDS, TEN_NOTES, in_link_order


def test_ten_notes_then_rebuild_read_as_markdown_and_lint_clean(
    kb_repo: Path, cli: CliRunner
) -> None:
    for i in in_link_order(list(range(len(TEN_NOTES)))):
        result = cli("note", "add", *TEN_NOTES[i], cwd=kb_repo)
        assert result.exit_code == 0, result.stderr
    assert cli("index", "rebuild", "--check", cwd=kb_repo).exit_code == 0  # note add did it
    lint = cli("lint", cwd=kb_repo)
    assert lint.exit_code == 0, lint.stdout
    assert "0 errors" in lint.stdout

    status = git(kb_repo, "status", "--porcelain", "--untracked-files=all")
    new_files = sorted(line[3:] for line in status.splitlines())
    assert ".lorebook/config.yaml" in new_files
    assert ".lorebook/nodes/backend/cache/gotcha-the-cache-tags-gotcha.md" in new_files
    assert ".lorebook/nodes/convention/index.md" in new_files
    # Per-machine state is ignored by the knowledge base's own .gitignore.
    assert not [f for f in new_files if "/.state/" in f or "/.cache/" in f]

    note_text = (
        kb_repo / ".lorebook/nodes/prohibition/prohibition-never-push-to-main.md"
    ).read_text()
    assert note_text.startswith("---\ntype: practice\ntitle: Never push to main\n")
    assert "lb_enforce: deny" in note_text
    assert "Open a pull request instead." in note_text
    assert (
        "[convention-use-conventional-commits](../convention/convention-use-conventional-commits.md)"
        in note_text
    )

    entry = (kb_repo / ".lorebook/ENTRY.md").read_text()
    assert "10 notes" in entry
    assert "- [backend/](nodes/backend/index.md): 5 notes." in entry
    backend = (kb_repo / ".lorebook/nodes/backend/index.md").read_text()
    assert "[nodes](../index.md) / backend" in backend
    assert "- [cache/](cache/index.md): 2 notes." in backend
    graph = (kb_repo / ".lorebook/GRAPH.md").read_text()
    assert (
        "- depends on [decision-why-we-chose-sqlite](nodes/backend/decision-why-we-chose-sqlite.md)"
        in graph
    )

    listed = cli("note", "list", "--json", cwd=kb_repo).json()
    assert sorted(n["id"] for n in listed["notes"]) == sorted(TEN_IDS)


def test_note_show_prints_the_file_and_json(kb_repo: Path, cli: CliRunner) -> None:
    cli("note", "add", *TEN_NOTES[0], cwd=kb_repo)
    shown = cli("note", "show", TEN_IDS[0], cwd=kb_repo)
    assert shown.exit_code == 0
    path = kb_repo / ".lorebook/nodes/convention" / f"{TEN_IDS[0]}.md"
    assert shown.stdout == path.read_text()
    doc = cli("note", "show", TEN_IDS[0], "--json", cwd=kb_repo).json()
    assert doc["frontmatter"]["lb_anchors"] == {"commands": [r"^pytest\b"]}
    missing = cli("note", "show", "practice-nope", cwd=kb_repo)
    assert missing.exit_code == 1
    assert "no note with id 'practice-nope'" in missing.stderr


def test_note_show_names_the_file_whose_lb_id_was_edited(kb_repo: Path, cli: CliRunner) -> None:
    # `note list` reads lb_id; `note show` finds files by name. A hand-edited lb_id left
    # show saying only "no note with id", though list showed that very id.
    cli("note", "add", *TEN_NOTES[0], cwd=kb_repo)
    path = kb_repo / ".lorebook/nodes/convention" / f"{TEN_IDS[0]}.md"
    path.write_text(path.read_text().replace(f"lb_id: {TEN_IDS[0]}", "lb_id: convention-renamed"))
    listed = cli("note", "list", "--json", cwd=kb_repo).json()
    assert [n["id"] for n in listed["notes"]] == ["convention-renamed"]
    shown = cli("note", "show", "convention-renamed", cwd=kb_repo)
    assert shown.exit_code == 1
    assert "no note with id 'convention-renamed'" in shown.stderr
    assert f".lorebook/nodes/convention/{TEN_IDS[0]}.md has lb_id 'convention-renamed'" in (
        shown.stderr
    )
    assert "rename it to convention-renamed.md" in shown.stderr


def test_note_add_json_prints_exactly_one_document(kb_repo: Path, cli: CliRunner) -> None:
    result = cli("note", "add", *TEN_NOTES[2], "--json", cwd=kb_repo)
    assert result.json() == {
        "ok": True,
        "id": "convention-use-conventional-commits",
        "path": ".lorebook/nodes/convention/convention-use-conventional-commits.md",
        "written": [
            ".lorebook/ENTRY.md",
            ".lorebook/GRAPH.md",
            ".lorebook/nodes/index.md",
            ".lorebook/nodes/convention/index.md",
        ],
    }
    assert result.stderr == ""


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--kind", "conventon"], "note add: --kind: Input should be 'convention'"),
        (["--kind", "conventon"], "hint: did you mean 'convention'?"),
        (["--kind", "convention", "--enforce", "block"], "note add: --enforce:"),
        (["--kind", "convention", "--anchor-error", "(unclosed"], "not a valid regex"),
        (["--kind", "convention", "--tag", "Has Space"], "--tag: "),
        (
            ["--kind", "convention", "--type", "map", "--id", "practice-t"],
            "must start with its kind or its type",
        ),
    ],
)
def test_invalid_values_are_named_and_nothing_is_written(
    kb_repo: Path, cli: CliRunner, args: list[str], message: str
) -> None:
    before = sorted(p.relative_to(kb_repo) for p in (kb_repo / ".lorebook/nodes").rglob("*"))
    result = cli("note", "add", "--title", "T", "--description", "D", *args, cwd=kb_repo)
    assert result.exit_code == 2  # the command line itself is wrong
    assert message in result.stderr
    after = sorted(p.relative_to(kb_repo) for p in (kb_repo / ".lorebook/nodes").rglob("*"))
    assert after == before


def test_adding_the_same_id_twice_is_refused(kb_repo: Path, cli: CliRunner) -> None:
    assert cli("note", "add", *TEN_NOTES[5], cwd=kb_repo).exit_code == 0
    path = kb_repo / ".lorebook/nodes/tooling/tooling-ruff-is-the-only-linter.md"
    original = path.read_bytes()
    again = cli("note", "add", *TEN_NOTES[5], "--folder", "elsewhere", cwd=kb_repo)
    assert again.exit_code == 1
    assert "exists already" in again.stderr
    assert path.read_bytes() == original
    assert not (kb_repo / ".lorebook/nodes/elsewhere").exists()


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--id", "practice-../../etc"], "'..' would leave the knowledge base"),
        (["--id", "../practice-x"], "'..' would leave the knowledge base"),
        (["--id", "/tmp/practice-x"], "absolute path"),
        (["--folder", "/tmp/notes"], "absolute path"),
        (["--folder", "a/../../b"], "'..' would leave the knowledge base"),
        (["--folder", "C:/notes"], "absolute path"),
        (["--folder", "a\\b"], "use '/'"),
        (["--id", "Practice-Upper"], "must be '<kind or type>-<slug>'"),
    ],
)
def test_unsafe_ids_and_folders_are_refused(
    kb_repo: Path, cli: CliRunner, extra: list[str], message: str
) -> None:
    result = cli(
        "note",
        "add",
        "--title",
        "T",
        "--description",
        "D",
        "--kind",
        "convention",
        *extra,
        cwd=kb_repo,
    )
    assert result.exit_code == 2  # a value on the command line: a usage error
    assert message in result.stderr
    assert list((kb_repo / ".lorebook/nodes").rglob("*.md")) == [
        kb_repo / ".lorebook/nodes/index.md"
    ]


def test_a_symlinked_folder_is_refused(kb_repo: Path, cli: CliRunner, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (kb_repo / ".lorebook/nodes/linked").symlink_to(outside, target_is_directory=True)
    result = cli(
        "note",
        "add",
        "--title",
        "T",
        "--description",
        "D",
        "--kind",
        "convention",
        "--folder",
        "linked",
        cwd=kb_repo,
    )
    assert result.exit_code == 1
    assert "symbolic link" in result.stderr
    assert list(outside.iterdir()) == []


def test_body_from_stdin_and_unknown_keys_of_other_tools_survive(
    kb_repo: Path, cli: CliRunner
) -> None:
    result = cli(
        "note",
        "add",
        "--title",
        "Body from stdin",
        "--description",
        "D",
        "--kind",
        "gotcha",
        "--body-file",
        "-",
        cwd=kb_repo,
        stdin="line one\n\nline two\n",
    )
    assert result.exit_code == 0, result.stderr
    path = kb_repo / ".lorebook/nodes/gotcha/gotcha-body-from-stdin.md"
    assert read_note(path).body == "line one\n\nline two"
    # A key another OKF tool wrote is kept through a rewrite by index rebuild.
    text = path.read_text().replace("lb_enforce: none\n", "lb_enforce: none\nokf_author: someone\n")
    text = text.replace("lb_relates_to: []", "lb_relates_to: [practice-x]")
    path.write_text(text)
    cli(
        "note",
        "add",
        "--title",
        "X",
        "--description",
        "D",
        "--kind",
        "gotcha",
        "--id",
        "practice-x",
        cwd=kb_repo,
    )
    assert cli("index", "rebuild", cwd=kb_repo).exit_code == 0
    rewritten = path.read_text()
    assert "okf_author: someone" in rewritten
    assert "[practice-x](practice-x.md)" in rewritten


def test_note_add_takes_a_kind_in_any_case(kb_repo: Path, cli: CliRunner) -> None:
    added = cli("note", "add", "--title", "Never run migrations by hand", "--description",
                "Production data", "--kind", "Prohibition", "--json", cwd=kb_repo)  # fmt: skip
    assert added.exit_code == 0, added.stderr
    assert added.json()["id"] == "prohibition-never-run-migrations-by-hand"
