"""Packs: exported from one repository, imported into another; refusals leave it untouched."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from lorebook.pack.land import undo_commands
from tests.conftest import SHARED, CliRunner, git

KENKEEP = SHARED / "eval" / "retrieval" / "kenkeep-synthetic" / "nodes"


def _repo(base: Path, name: str) -> Path:
    from lorebook.initialize import init_repo

    repo = base / name
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    init_repo(repo, [])
    return repo


def _commit(repo: Path) -> None:
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "commit")


def _tree(repo: Path) -> dict[str, bytes]:
    """Every file git would see (the work tree but .git and the per-machine caches)."""
    skip = (".git/", ".lorebook/.cache/", ".lorebook/.state/")
    return {
        p.relative_to(repo).as_posix(): p.read_bytes()
        for p in sorted(repo.rglob("*"))
        if p.is_file() and not p.relative_to(repo).as_posix().startswith(skip)
    }


@pytest.fixture
def source(tmp_path: Path, lorebook_home: Path, cli: CliRunner) -> Path:
    """A repository with two linked notes in folder ``shared`` and one elsewhere."""
    repo = _repo(tmp_path, "source")
    for args in (
        ("--title", "Use uv for dependencies", "--kind", "tooling", "--body", "Run uv add."),
        (
            "--title", "Never commit secrets", "--kind", "prohibition", "--body", "Use the vault.",
            "--relates-to", "tooling-use-uv-for-dependencies",
        ),
    ):  # fmt: skip
        added = cli("note", "add", *args, "--description", "When working here", "--folder",
                    "shared", cwd=repo)  # fmt: skip
        assert added.exit_code == 0, added.stderr
    cli("note", "add", "--title", "Local only", "--description", "Stays here", "--kind",
        "convention", "--folder", "local", cwd=repo)  # fmt: skip
    assert cli("index", "rebuild", cwd=repo).exit_code == 0
    _commit(repo)
    return repo


@pytest.fixture
def target(tmp_path: Path, lorebook_home: Path) -> Path:
    """A fresh repository, committed clean."""
    repo = _repo(tmp_path, "target")
    _commit(repo)
    return repo


def test_round_trip_lints_clean_and_a_second_import_is_refused(
    source: Path, target: Path, tmp_path: Path, cli: CliRunner
) -> None:
    out = tmp_path / "pack"
    exported = cli("pack", "export", str(out), "--folder", "shared", "--json", cwd=source)
    assert exported.exit_code == 0, exported.stderr
    assert exported.json()["notes"] == [
        "prohibition-never-commit-secrets",
        "tooling-use-uv-for-dependencies",
    ]
    original = (source / ".lorebook/nodes/shared/tooling-use-uv-for-dependencies.md").read_bytes()
    assert (out / "knowledge" / "tooling-use-uv-for-dependencies.md").read_bytes() == original

    imported = cli("pack", "import", str(out), "--json", cwd=target)
    assert imported.exit_code == 0, imported.stderr
    assert imported.json()["folder"] == ".lorebook/nodes/shared/"
    landed = target / ".lorebook/nodes/shared/tooling-use-uv-for-dependencies.md"
    assert landed.read_bytes() == original
    linted = cli("lint", cwd=target)
    assert linted.exit_code == 0, linted.stdout
    assert linted.stdout.strip().endswith("0 errors, 0 warnings")

    _commit(target)
    before = _tree(target)
    again = cli("pack", "import", str(out), cwd=target)
    assert again.exit_code == 1
    assert "pack 'shared' is already imported: .lorebook/nodes/shared/ exists" in again.stderr
    assert _tree(target) == before


def test_a_pack_named_like_a_folder_of_the_target_is_refused_without_a_harmful_hint(
    source: Path, target: Path, tmp_path: Path, cli: CliRunner
) -> None:
    # seen on a team: a pack exported with --folder prohibition met the target's own
    # prohibition/ folder, and the hint said to remove that folder (the target's notes)
    out = tmp_path / "pack"
    assert cli("pack", "export", str(out), "--folder", "shared", cwd=source).exit_code == 0
    added = cli("note", "add", "--folder", "shared", "--kind", "convention", "--title",
                "Keep commits small", "--description", "committing", cwd=target)  # fmt: skip
    assert added.exit_code == 0, added.stderr
    _commit(target)
    refused = cli("pack", "import", str(out), cwd=target)
    assert refused.exit_code == 1
    assert "holds this knowledge base's own notes" in refused.stderr
    assert "remove that folder" not in refused.stderr
    assert "--name <name>" in refused.stderr


def test_a_dirty_knowledge_base_is_refused(source: Path, target: Path, tmp_path: Path,
                                           cli: CliRunner) -> None:  # fmt: skip
    cli("pack", "export", str(tmp_path / "pack"), "--folder", "shared", cwd=source)
    (target / ".lorebook" / "nodes" / "draft.md").write_text("x", encoding="utf-8")
    result = cli("pack", "import", str(tmp_path / "pack"), cwd=target)
    assert result.exit_code == 1
    assert "uncommitted changes (.lorebook/nodes/draft.md)" in result.stderr


@pytest.mark.parametrize("breakage", ["dangling-edge", "symlink", "id-collision"])
def test_a_broken_pack_is_refused_and_the_tree_is_byte_identical(
    source: Path, target: Path, tmp_path: Path, cli: CliRunner, breakage: str
) -> None:
    out = tmp_path / "pack"
    cli("pack", "export", str(out), "--folder", "shared", cwd=source)
    leaf = out / "knowledge" / "prohibition-never-commit-secrets.md"
    if breakage == "dangling-edge":
        text = leaf.read_text(encoding="utf-8")
        leaf.write_text(text.replace("lb_relates_to: [", "lb_relates_to: [practice-gone, "))
        expected = "names 'practice-gone', which is neither in the pack nor in the knowledge"
    elif breakage == "symlink":
        if os.name != "posix":
            pytest.skip("symbolic links need POSIX here")
        (out / "knowledge" / "linked.md").symlink_to(leaf)
        expected = "linked.md: is a symbolic link"
    else:
        shutil.copy(source / ".lorebook/nodes/shared/tooling-use-uv-for-dependencies.md",
                    target / ".lorebook/nodes/tooling-use-uv-for-dependencies.md")  # fmt: skip
        assert cli("index", "rebuild", cwd=target).exit_code == 0
        _commit(target)
        expected = "1 pack id(s) already name a note or a retired id here"
    before = _tree(target)
    result = cli("pack", "import", str(out), cwd=target)
    assert result.exit_code == 1
    assert expected in result.stderr
    assert _tree(target) == before


def test_a_failed_write_names_the_git_commands_that_undo_it(
    source: Path, target: Path, tmp_path: Path, cli: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    import lorebook.pack.land as land

    out = tmp_path / "pack"
    cli("pack", "export", str(out), "--folder", "shared", cwd=source)
    before = _tree(target)
    written: list[Path] = []
    real = land.atomic_write_text  # type: ignore[attr-defined]

    def fail_second(path: Path, text: str) -> None:
        written.append(path)
        if len(written) == 2:
            raise OSError(28, "No space left on device")
        real(path, text)

    monkeypatch.setattr(land, "atomic_write_text", fail_second)
    result = cli("pack", "import", str(out), cwd=target)
    assert result.exit_code == 1
    assert "git restore -- .lorebook; git clean -fd -- .lorebook/nodes/shared" in result.stderr
    assert _tree(target) != before
    for command in land.undo_commands("shared"):
        subprocess.run(command.split(), cwd=target, check=True)
    assert _tree(target) == before


@pytest.mark.skipif(not KENKEEP.is_dir(), reason="shared/eval is not present beside the repository")
def test_a_kenkeep_pack_imports_and_lints_clean(
    target: Path, tmp_path: Path, cli: CliRunner
) -> None:
    pack = tmp_path / "kenkeep-pack"
    shutil.copytree(KENKEEP, pack / "knowledge")
    (pack / "kenkeep-pack.yaml").write_text("name: synthetic\n", encoding="utf-8")
    result = cli("pack", "import", str(pack), "--json", cwd=target)
    assert result.exit_code == 0, result.stderr
    report = result.json()
    assert report["format"] == "kenkeep"
    assert report["redirects_merged"] == 1
    leaves = [p for p in KENKEEP.rglob("*.md") if p.name != "index.md"]
    assert len(report["notes"]) == len(leaves)
    linted = cli("lint", cwd=target)
    assert linted.exit_code == 0, linted.stdout


@pytest.mark.parametrize("review", ["accept", "commit"])
def test_imported_notes_are_unreviewed_until_a_person_accepts_or_commits_them(
    source: Path, target: Path, tmp_path: Path, cli: CliRunner,
    monkeypatch: pytest.MonkeyPatch, review: str,
) -> None:  # fmt: skip
    from lorebook.inject.served import UNREVIEWED_HEADER
    from tests.conftest import fire

    rule = cli("note", "add", "--title", "Never force-push shared branches", "--description",
               "Rewrite history only on your own branch", "--kind", "prohibition", "--folder",
               "shared", "--anchor-command", r"git push\b.*--force", "--enforce", "deny",
               cwd=source)  # fmt: skip
    assert rule.exit_code == 0, rule.stderr
    _commit(source)
    cli("pack", "export", str(tmp_path / "pack"), "--folder", "shared", cwd=source)
    assert cli("pack", "import", str(tmp_path / "pack"), cwd=target).exit_code == 0
    push: dict[str, Any] = {
        "tool_name": "Bash",
        "tool_input": {"command": "git push --force origin dev"},
    }
    first = fire(target, monkeypatch, "Pre", **push)
    assert first["decision"] is None  # an imported rule is a suggestion, not yet a policy
    assert "Never force-push shared branches" in first["context"]
    assert UNREVIEWED_HEADER in first["context"]
    if review == "accept":
        accepted = cli("review", "--accept", "all", "--json", cwd=target).json()["accepted"]
        assert "prohibition-never-force-push-shared-branches" in accepted
    else:
        _commit(target)
        fire(target, monkeypatch, "Start", source="startup")  # session start sees the commit
    second = fire(target, monkeypatch, "Pre", **push)
    assert second["decision"] == "deny"
    assert "Never force-push shared branches" in second["reason"]
    assert "unreviewed" not in second["reason"]


LEAF = (
    "---\ntype: practice\ntitle: Pin the toolchain\ndescription: When building\nlb_schema: 2\n"
    "lb_id: practice-pin-the-toolchain\nlb_kind: tooling\n---\nUse the pinned one.\n"
)


def _one_leaf_pack(base: Path) -> Path:
    pack = base / "pack"
    (pack / "knowledge").mkdir(parents=True)
    (pack / "knowledge" / "practice-pin-the-toolchain.md").write_text(LEAF, encoding="utf-8")
    (pack / "lorebook-pack.yaml").write_text("lb_schema: 1\nname: tools\n", encoding="utf-8")
    return pack


def _at_most_a_gigabyte() -> None:
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))


@pytest.mark.skipif(os.name != "posix", reason="the memory limit is set with POSIX rlimits")
def test_an_alias_bomb_manifest_is_refused_before_it_expands(target: Path, tmp_path: Path) -> None:
    """A 355-byte manifest once ran pack import for 107 s into a MemoryError at 4 GB.

    Run in its own process under a 1 GB address-space limit and a timeout: the old reader
    expanded the aliases when it used the description, so this either timed out or died.
    """
    import sys

    from tests.core.test_safe_parsing import alias_bomb

    pack = _one_leaf_pack(tmp_path)
    manifest = pack / "lorebook-pack.yaml"
    manifest.write_text(alias_bomb() + "description: *j\n", encoding="utf-8")
    assert manifest.stat().st_size < 1024
    before = _tree(target)
    proc = subprocess.run(
        [sys.executable, "-m", "lorebook", "pack", "import", str(pack)],
        cwd=target, capture_output=True, text=True, timeout=60, check=False,
        preexec_fn=_at_most_a_gigabyte,
    )  # fmt: skip
    assert proc.returncode == 1, proc.stderr
    assert proc.stderr.count("\n") == 1, proc.stderr
    assert f"{manifest}: line " in proc.stderr
    assert "YAML aliases (*name) are not accepted" in proc.stderr
    assert _tree(target) == before


@pytest.mark.parametrize("hostile", ["deep-redirects", "huge-leaf", "huge-summaries", "huge-yaml"])
def test_hostile_pack_files_are_refused_in_one_line_naming_the_file(
    target: Path, tmp_path: Path, cli: CliRunner, hostile: str
) -> None:
    pack = _one_leaf_pack(tmp_path)
    knowledge = pack / "knowledge"
    if hostile == "deep-redirects":
        bad = knowledge / ".redirects.json"
        bad.write_text('{"practice-old": ' + "[" * 100_000 + "]" * 100_000 + "}\n")
        expected = f"{bad}: nested deeper than 64 levels"
    elif hostile == "huge-leaf":
        bad = knowledge / "practice-pin-the-toolchain.md"
        bad.write_text(LEAF + "Use it. " * 80_000, encoding="utf-8")
        expected = "pack/knowledge/practice-pin-the-toolchain.md: the file is larger than 524,288"
    elif hostile == "huge-summaries":
        bad = knowledge / "FOLDER_SUMMARIES.md"
        bad.write_text("".join(f"- `f{i}`: folder {i}\n" for i in range(200_000)))
        expected = f"{bad}: the file is larger than 1,048,576 bytes"
    else:
        bad = pack / "lorebook-pack.yaml"
        bad.write_text("name: tools\ndescription: '" + "x" * 70_000 + "'\n")
        expected = f"{bad}: the file is larger than 65,536 bytes"
    before = _tree(target)
    result = cli("pack", "import", str(pack), cwd=target)
    assert result.exit_code == 1
    assert result.stderr.count("\n") == 1, result.stderr
    assert expected in result.stderr
    assert _tree(target) == before


KILLER = """
import os, signal, sys

limit, mode, counter = int(sys.argv[1]), sys.argv[2], sys.argv[3]
real, done = os.replace, []


def replace(*args, **kwargs):  # every atomic write lands with one os.replace
    if mode == "mid" and len(done) + 1 == limit:
        os.kill(os.getpid(), signal.SIGKILL)  # its temporary file written, not renamed
    real(*args, **kwargs)
    done.append(args[1])
    with open(counter, "w") as handle:
        handle.write(str(len(done)))
    if mode == "after" and len(done) == limit:
        os.kill(os.getpid(), signal.SIGKILL)  # that file landed, the next not begun


os.replace = replace
from lorebook.cli.app import main

sys.argv = ["lorebook", "pack", "import", *sys.argv[4:]]
main()
"""


def _import_killed(repo: Path, pack: Path, limit: int, mode: str, counter: Path) -> int:
    """Run ``pack import`` killing it at its ``limit``-th file write; return its exit code."""
    import sys

    proc = subprocess.run(
        [sys.executable, "-c", KILLER, str(limit), mode, str(counter), str(pack)],
        cwd=repo, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    return proc.returncode


@pytest.mark.slow
@pytest.mark.skipif(os.name != "posix", reason="SIGKILL is POSIX")
def test_an_import_killed_at_any_write_is_finished_by_its_rerun(
    source: Path, target: Path, tmp_path: Path, cli: CliRunner
) -> None:
    """SIGKILL after each file the import writes, and in the middle of each (its temporary
    file written, not renamed): the rerun finishes the import, and the tree is the one an
    uninterrupted import leaves. It used to refuse: 'uncommitted changes'."""
    out = tmp_path / "pack"
    cli("pack", "export", str(out), "--folder", "shared", cwd=source)
    (out / "knowledge" / ".redirects.json").write_text(
        '{\n  "tooling-old-uv": ["tooling-use-uv-for-dependencies"]\n}\n'
    )
    reference = tmp_path / "reference"
    shutil.copytree(target, reference)
    counter = tmp_path / "writes"
    assert _import_killed(reference, out, 0, "count", counter) == 0
    writes, expected = int(counter.read_text()), _tree(reference)
    assert writes >= 6  # the record, the review list, 2 notes, summaries, redirects, indexes
    for limit in range(1, writes + 1):
        for mode in ("mid", "after"):
            work = tmp_path / f"work-{limit}-{mode}"
            shutil.copytree(target, work)
            assert _import_killed(work, out, limit, mode, counter) == -9
            rerun = cli("pack", "import", str(out), "--json", cwd=work)
            assert rerun.exit_code == 0, f"killed {mode} write {limit}: {rerun.stderr}"
            assert rerun.json()["redirects_merged"] == 1
            assert _tree(work) == expected, f"killed {mode} write {limit}"  # no .tmp left
            assert not (work / ".lorebook/.state/pack-import.json").exists()
            assert cli("lint", cwd=work).exit_code == 0


@pytest.mark.skipif(os.name != "posix", reason="SIGKILL is POSIX")
def test_a_killed_import_is_finished_only_over_its_own_changes(
    source: Path, target: Path, tmp_path: Path, cli: CliRunner
) -> None:
    from lorebook.kb.notes import LINKS_MARKER

    out = tmp_path / "pack"
    cli("pack", "export", str(out), "--folder", "shared", cwd=source)
    added = cli("note", "add", "--title", "Local rule", "--description", "Here only", "--kind",
                "convention", "--folder", "local", "--json", cwd=target)  # fmt: skip
    local = target / added.json()["path"]
    _commit(target)
    committed = local.read_bytes()
    assert _import_killed(target, out, 3, "after", tmp_path / "writes") == -9  # a note landed
    landed = next((target / ".lorebook/nodes/shared").glob("*.md"))
    imported = landed.read_text()
    landed.write_text(imported + "\nEdited after the kill.\n")
    local.write_text(local.read_text() + f"\n{LINKS_MARKER}\n\n- as a rebuild relinks\n")
    refused = cli("pack", "import", str(out), cwd=target)
    assert refused.exit_code == 1
    assert (
        f"an import of pack 'shared' was interrupted, and {_rel(target, landed)} has changed "
        "in a way the import does not make"
    ) in refused.stderr
    assert "git restore -- .lorebook; git clean -fd -- .lorebook/nodes/shared" in refused.stderr

    landed.write_text(imported)  # only the import's own changes are left
    finished = cli("pack", "import", str(out), "--json", cwd=target)
    assert finished.exit_code == 0, finished.stderr
    assert finished.json()["resumed"] is True
    assert local.read_bytes() == committed  # the rebuild wrote its link section again
    assert cli("lint", cwd=target).exit_code == 0


@pytest.mark.skipif(os.name != "posix", reason="SIGKILL is POSIX")
def test_another_pack_waits_until_a_killed_import_is_finished_or_undone(
    source: Path, target: Path, tmp_path: Path, cli: CliRunner
) -> None:
    out = tmp_path / "pack"
    cli("pack", "export", str(out), "--folder", "shared", cwd=source)
    before = _tree(target)
    assert _import_killed(target, out, 3, "after", tmp_path / "writes") == -9
    other = _one_leaf_pack(tmp_path / "other")
    refused = cli("pack", "import", str(other), cwd=target)
    assert refused.exit_code == 1
    assert (
        "an import of pack 'shared' was interrupted and left uncommitted changes; this is "
        "another pack"
    ) in refused.stderr
    for command in undo_commands("shared"):
        subprocess.run(command.split(), cwd=target, check=True)
    assert _tree(target) == before
    again = cli("pack", "import", str(other), "--json", cwd=target)  # the record is stale now
    assert again.exit_code == 0, again.stderr
    assert again.json()["resumed"] is False


def _rel(repo: Path, path: Path) -> str:
    return path.relative_to(repo).as_posix()
