"""The smaller frictions of the everyday-use issue (round 2, item 12), each as a user meets it."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import CliRunner


def test_pack_import_of_a_missing_folder_says_so_before_the_uncommitted_changes(
    kb_repo: Path, cli: CliRunner, tmp_path: Path
) -> None:
    missing = tmp_path / "nope"
    result = cli("pack", "import", str(missing), cwd=kb_repo)  # kb_repo is not committed
    assert result.exit_code == 1
    assert result.stderr == f"lorebook: error: {missing}: no such folder; nothing was imported\n"
