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
    "---\ntype: practice\ntitle: Bomb\ndescription: D\nlb_schema: 2\nlb_id: practice-bomb\n"
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


# -- every YAML or JSON a repository, a pack or a host's files hand us: one bounded reader ---

SMALL_BOMB = "a: &a [x, x, x]\nb: &b [*a, *a, *a]\nc: [*b, *b, *b]\n"
"""Aliases that expand only 27-fold: safe to hand the old readers, refused by the new one."""
DEEP_JSON = '{"x": ' + "[" * 50_000 + "]" * 50_000 + "}\n"


def test_the_json_and_yaml_depth_limits_agree() -> None:
    from lorebook import datafile
    from lorebook.kb import safeyaml

    assert datafile.MAX_DEPTH == safeyaml.MAX_DEPTH
    assert datafile.parse_json("[" * 64 + "]" * 64, source="s", max_bytes=1000)
    with pytest.raises(datafile.DataFileError, match=r"^s: nested deeper than 64 levels$"):
        datafile.parse_json("[" * 65 + "]" * 65, source="s", max_bytes=1000)
    with pytest.raises(datafile.DataFileError, match=r"^s: nested deeper than 64 levels$"):
        datafile.parse_json(DEEP_JSON, source="s", max_bytes=1_000_000)


@pytest.mark.parametrize("hostile", ["deep", "huge"])
def test_a_deep_or_huge_committed_redirects_ledger_is_one_lint_finding(
    kb_repo: Path, cli: CliRunner, hostile: str
) -> None:
    ledger = kb_repo / ".lorebook/nodes/.redirects.json"
    if hostile == "deep":
        ledger.write_text(DEEP_JSON)
        expected = ".lorebook/nodes/.redirects.json: nested deeper than 64 levels"
    else:
        entries = ",\n".join(f'  "practice-old-{i}": ["practice-new"]' for i in range(150_000))
        ledger.write_text("{\n" + entries + "\n}\n")
        expected = ".lorebook/nodes/.redirects.json: the file is larger than 4,194,304 bytes"
    result = cli("lint", "--json", cwd=kb_repo)
    assert result.exit_code == 1, result.stderr
    findings = [f for f in result.json()["findings"] if f["code"] == "invalid-redirects"]
    assert [f["message"] for f in findings] == [expected]


def test_kenkeep_front_matter_with_an_alias_is_refused_naming_the_file() -> None:
    from lorebook.importers.common import ImportFormatError
    from lorebook.importers.kenkeep import parse_kenkeep

    text = "---\nsession_id: s1\n" + SMALL_BOMB + "---\n[USER]: hi\n"
    with pytest.raises(ImportFormatError) as err:
        parse_kenkeep(text.encode(), "sessions/s1.md")
    assert str(err.value).startswith("sessions/s1.md: front matter: line ")
    assert str(err.value).endswith("YAML aliases (*name) are not accepted")


def test_lenient_front_matter_reads_an_alias_block_line_by_line() -> None:
    from lorebook.evaluation.lenient import split_lenient

    meta, body = split_lenient("---\ndescription: Rules\n" + SMALL_BOMB + "---\nbody\n")
    assert meta == {
        "description": "Rules", "a": "&a [x, x, x]", "b": "&b [*a, *a, *a]", "c": "[*b, *b, *b]"
    }  # fmt: skip
    assert body == "body\n"


def test_golden_queries_with_an_alias_are_refused_naming_the_file(tmp_path: Path) -> None:
    from lorebook.evaluation.corpus import EvalInputError
    from lorebook.evaluation.queries import load_queries

    golden = tmp_path / "golden-queries.yaml"
    golden.write_text(
        "shared: &case {id: a, category: retrieval, prompt: quasar, expect_ids_in_top_k: [x]}\n"
        "cases: [*case, *case]\n"
    )
    with pytest.raises(EvalInputError) as err:
        load_queries(golden)
    assert str(err.value) == f"{golden}: line 1: YAML aliases (*name) are not accepted"


def test_an_expected_file_with_an_alias_is_refused_naming_the_file(tmp_path: Path) -> None:
    from lorebook.datafile import DataFileError
    from lorebook.evaluation.labelled import load_expectation

    expected = tmp_path / "expected" / "s1.yaml"
    expected.parent.mkdir()
    expected.write_text("fixture_id: s1\n" + SMALL_BOMB + "expected_points: []\n")
    with pytest.raises(DataFileError) as err:
        load_expectation(expected)
    assert str(err.value).startswith(f"{expected}: line ")
    assert "\n" not in str(err.value)


def test_a_deep_committed_mcp_config_is_refused_naming_it(kb_repo: Path) -> None:
    from lorebook.kb.paths import KBPaths
    from lorebook.mcp_config import sync_mcp

    (kb_repo / ".mcp.json").write_text(DEEP_JSON)
    with pytest.raises(ConfigError) as err:
        sync_mcp(KBPaths(kb_repo), [])
    assert str(err.value) == ".mcp.json: nested deeper than 64 levels; nothing changed"


@pytest.mark.parametrize("hostile", ["deep", "huge"])
def test_a_deep_or_huge_committed_hooks_file_is_refused_naming_it(
    tmp_path: Path, hostile: str
) -> None:
    from lorebook.errors import LorebookError
    from lorebook.hostkit import hookfile

    settings = tmp_path / ".claude" / "settings.json"
    settings.parent.mkdir()
    if hostile == "deep":
        settings.write_text(DEEP_JSON)
        expected = f"{settings}: nested deeper than 64 levels"
    else:
        settings.write_text('{"env": {"X": "' + "y" * 5_000_000 + '"}}')
        expected = f"{settings}: the file is larger than 4,194,304 bytes"
    with pytest.raises(LorebookError) as err:
        hookfile.load(settings, "run lorebook init")
    assert err.value.message == expected


@pytest.mark.parametrize("fmt", ["jsonl", "claude"])
def test_a_transcript_line_nested_too_deep_is_refused_in_one_line(
    kb_repo: Path, cli: CliRunner, fmt: str
) -> None:
    transcript = kb_repo / "deep.jsonl"
    transcript.write_text(DEEP_JSON.replace('"x"', '"role"'))
    result = cli("import", "--format", fmt, "deep.jsonl", cwd=kb_repo)
    assert result.exit_code == 1
    assert "internal error" not in result.stderr
    assert result.stderr.startswith("lorebook: error: deep.jsonl")
    if fmt == "jsonl":
        assert "deep.jsonl:1: nested deeper than 64 levels" in result.stderr


def test_an_opencode_part_nested_too_deep_reads_as_nothing() -> None:
    """OpenCode's database holds a model's tool input as JSON; the capture skips a deep one."""
    pytest.importorskip("lorebook_opencode")
    from lorebook_opencode.transcript import _json

    assert _json(DEEP_JSON) == {}
    assert _json('{"role": "user"}') == {"role": "user"}
