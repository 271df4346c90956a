"""Hostile YAML and oversized files: refused quickly, in bounded memory, naming the file."""

from __future__ import annotations

import tracemalloc
from pathlib import Path

import pytest

from lorebook.bounds import clip, read_bounded
from lorebook.errors import ConfigError
from lorebook.kb.frontmatter import FrontmatterError, split
from tests.conftest import CliRunner


def alias_bomb() -> str:
    """Under 1 KB of YAML whose aliases expand to 10^10 strings when walked."""
    lines = ["a: &a [" + ", ".join(["lol"] * 10) + "]"]
    for i in range(1, 10):
        name, prev = chr(97 + i), chr(96 + i)
        lines.append(f"{name}: &{name} [" + ", ".join([f"*{prev}"] * 10) + "]")
    return "\n".join(lines) + "\n"


NOTE_HEAD = (
    "---\ntype: practice\ntitle: Bomb\ndescription: D\nlb_schema: 1\nlb_id: practice-bomb\n"
    "lb_kind: gotcha\n"
)


def test_the_bomb_is_small() -> None:
    assert len(alias_bomb()) < 1024


def _peak_mb(action: object) -> float:
    tracemalloc.start()
    try:
        assert callable(action)
        action()
        return tracemalloc.get_traced_memory()[1] / 1e6
    finally:
        tracemalloc.stop()


def test_alias_bomb_in_a_note_is_refused_naming_the_file(kb_repo: Path, cli: CliRunner) -> None:
    note = kb_repo / ".lorebook/nodes/gotcha/practice-bomb.md"
    note.parent.mkdir(parents=True)
    note.write_text(NOTE_HEAD + alias_bomb() + "---\nbody\n")
    results = []
    peak = _peak_mb(lambda: results.append(cli("lint", "--json", cwd=kb_repo)))
    doc = results[0].json()
    messages = [f["message"] for f in doc["findings"] if f["code"] == "invalid-note"]
    assert any(
        "practice-bomb.md" in m and "YAML aliases (*name) are not accepted" in m for m in messages
    )
    assert len(results[0].stdout) < 10_000  # lint once printed 312 MB for this file
    assert peak < 50
    rebuild = cli("index", "rebuild", cwd=kb_repo)
    assert rebuild.exit_code == 1
    assert "skipped .lorebook/nodes/gotcha/practice-bomb.md" in rebuild.stderr


def test_alias_bomb_in_config_is_refused(kb_repo: Path, cli: CliRunner) -> None:
    config = kb_repo / ".lorebook/config.yaml"
    config.write_text(config.read_text() + alias_bomb())
    results = []
    peak = _peak_mb(lambda: results.append(cli("lint", cwd=kb_repo)))
    assert results[0].exit_code == 1
    assert ".lorebook/config.yaml: invalid YAML: line" in results[0].stderr
    assert "aliases" in results[0].stderr
    assert peak < 50


def test_deep_nesting_and_huge_frontmatter_are_refused() -> None:
    with pytest.raises(FrontmatterError, match="nested deeper than 64 levels"):
        split("---\nx: " + "[" * 5000 + "\n---\nbody\n")
    with pytest.raises(FrontmatterError, match="more than the 65,536 accepted"):
        split("---\nx: '" + "y" * 70_000 + "'\n---\n")


def test_config_value_errors_do_not_echo_huge_values(kb_repo: Path) -> None:
    from lorebook.config import parse_config

    with pytest.raises(ConfigError) as err:
        parse_config("harnesses: '" + "z" * 50_000 + "'\n", source="config.yaml")
    assert len(str(err.value)) < 1000
    assert "config.yaml: key 'harnesses'" in str(err.value)


def test_an_oversized_or_non_utf8_note_names_its_file(kb_repo: Path, cli: CliRunner) -> None:
    gotcha = kb_repo / ".lorebook/nodes/gotcha"
    gotcha.mkdir(parents=True)
    (gotcha / "practice-huge.md").write_text(NOTE_HEAD + "---\n" + "word " * 200_000)
    (gotcha / "practice-latin1.md").write_bytes((NOTE_HEAD + "---\ncaf\xe9\n").encode("latin-1"))
    doc = cli("lint", "--json", cwd=kb_repo).json()
    by_file = {f["path"].rsplit("/", 1)[-1]: f["message"] for f in doc["findings"]}
    assert "larger than 524,288 bytes" in by_file["practice-huge.md"]
    assert "not valid UTF-8 (byte" in by_file["practice-latin1.md"]
    assert ".lorebook/nodes/gotcha/practice-latin1.md" in by_file["practice-latin1.md"]


def test_clip_bounds_any_value() -> None:
    assert clip("short") == "'short'"
    long = clip("x" * 10_000_000)
    assert len(long) < 120
    assert "10,000,000 chars" in long


def test_read_bounded_refuses_a_fifo_without_blocking(tmp_path: Path) -> None:
    import os

    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(OSError, match="is not a regular file"):
        read_bounded(fifo, 100)
