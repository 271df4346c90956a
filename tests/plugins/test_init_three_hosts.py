"""`lorebook init --harnesses opencode,copilot,cursor`: all three wired, a second run changes no
byte, and uninstall leaves the user's own files and hooks byte-identical."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import CliRunner

USER_FILES = {
    "AGENTS.md": "# Team notes\n\nBe brief.\n",
    ".github/hooks/team.json": json.dumps({"version": 1, "hooks": {"sessionEnd": [{"type": "command", "bash": "./bye.sh"}]}}, indent=2) + "\n",
    ".cursor/hooks.json": json.dumps({"version": 1, "hooks": {"stop": [{"command": "./notify.sh"}]}}, indent=2) + "\n",
    ".opencode/plugins/mine.js": "export const Mine = async () => ({})\n",
}  # fmt: skip


def _files(repo: Path) -> dict[str, bytes]:
    skip = (".git/", ".lorebook/.cache/", ".lorebook/.state/", ".lorebook/_logs/")
    return {
        p.relative_to(repo).as_posix(): p.read_bytes()
        for p in sorted(repo.rglob("*"))
        if p.is_file() and not p.relative_to(repo).as_posix().startswith(skip)
    }


def test_init_wires_all_three_idempotently_and_uninstall_is_exact(
    kb_repo: Path, cli: CliRunner
) -> None:
    for rel, text in USER_FILES.items():
        (kb_repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (kb_repo / rel).write_text(text, encoding="utf-8")
    before = _files(kb_repo)
    first = cli("init", "--harnesses", "opencode,copilot,cursor", "--json", cwd=kb_repo)
    assert first.exit_code == 0, first.stderr
    changed = set(first.json()["changed"])
    assert {".opencode/plugins/lorebook.js", ".github/hooks/lorebook.json", ".cursor/hooks.json",
            ".cursor/rules/lorebook.mdc", "AGENTS.md", ".agents/skills/lorebook-curate/SKILL.md"} <= changed  # fmt: skip
    wired = _files(kb_repo)
    second = cli("init", "--harnesses", "opencode,copilot,cursor", "--json", cwd=kb_repo)
    assert second.json()["changed"] == []
    assert _files(kb_repo) == wired
    doctor = cli("doctor", cwd=kb_repo)
    assert "Copilot CLI folder trust" in doctor.stdout + doctor.stderr
    assert cli("uninstall", cwd=kb_repo).exit_code == 0
    after = _files(kb_repo)
    assert {rel: after[rel] for rel in USER_FILES} == {rel: before[rel] for rel in USER_FILES}
    lorebook_owned = {rel for rel in after if rel.startswith(".lorebook/")}
    assert set(after) - lorebook_owned == set(before) - lorebook_owned  # nothing of ours is left
