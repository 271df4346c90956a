"""What Codex CLI loads by itself: AGENTS.override.md or AGENTS.md in each folder from the
root down to the cwd, within 32 KiB together; never CLAUDE.md (serving issue, item 3)."""

from __future__ import annotations

from pathlib import Path

from lorebook_codex import events
from lorebook_codex.events import PROJECT_DOC_MAX_BYTES


def write(repo: Path, rel: str, text: str = "text\n") -> None:
    path = repo / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def test_agents_md_from_the_root_down_to_the_cwd_and_never_claude_md(tmp_path: Path) -> None:
    for rel in ("AGENTS.md", "CLAUDE.md", "svc/AGENTS.md", "svc/api/AGENTS.md", "web/AGENTS.md"):
        write(tmp_path, rel)
    assert events.loaded_files(str(tmp_path), str(tmp_path / "svc/api")) == {
        "AGENTS.md", "svc/AGENTS.md", "svc/api/AGENTS.md"
    }  # fmt: skip
    assert events.loaded_files(str(tmp_path), None) == {"AGENTS.md"}


def test_an_override_replaces_agents_md_in_its_folder(tmp_path: Path) -> None:
    write(tmp_path, "AGENTS.md")
    write(tmp_path, "AGENTS.override.md")
    assert events.loaded_files(str(tmp_path), str(tmp_path)) == {"AGENTS.override.md"}


def test_a_file_past_the_byte_cap_is_not_loaded_in_full(tmp_path: Path) -> None:
    write(tmp_path, "AGENTS.md", "a" * (PROJECT_DOC_MAX_BYTES - 10))
    write(tmp_path, "svc/AGENTS.md", "b" * 20)  # cut by the cap
    write(tmp_path, "svc/api/AGENTS.md", "c")  # after the cut
    assert events.loaded_files(str(tmp_path), str(tmp_path / "svc/api")) == {"AGENTS.md"}
