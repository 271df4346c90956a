"""Models and on-disk formats: round trips, strict errors, schemas."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from lorebook.config import parse_config, render_config
from lorebook.errors import ConfigError, NoteFormatError
from lorebook.kb.notes import parse_note, render_note
from lorebook.models import CuratorBatch, Note
from lorebook.models.config import Config
from tests.conftest import CliRunner

slugs = st.from_regex(r"[a-z0-9]{1,8}(-[a-z0-9]{1,8}){0,3}", fullmatch=True)
one_line = st.text(
    st.characters(blacklist_categories=("Cs", "Cc", "Zl", "Zp"), blacklist_characters="\r\n\x85"),
    min_size=1,
    max_size=60,
).filter(lambda s: s.strip() != "")
tags = st.lists(
    st.from_regex(r"[a-z0-9][a-z0-9._/+-]{0,10}", fullmatch=True), max_size=4, unique=True
)
bodies = st.text(
    st.characters(codec="utf-8", exclude_characters="\r\x85\u2028\u2029\ufeff"),
    max_size=200,
).map(lambda s: s.strip("\n"))


@st.composite
def notes(draw: st.DrawFn) -> Note:
    note_type = draw(st.sampled_from(["practice", "map"]))
    status = draw(st.sampled_from(["active", "superseded", "refuted"]))
    data = {
        "type": note_type,
        "title": draw(one_line),
        "description": draw(one_line),
        "tags": draw(tags),
        "lb_id": f"{note_type}-{draw(slugs)}",
        "lb_kind": draw(st.sampled_from(["convention", "gotcha", "location", "vocabulary"])),
        "lb_status": status,
        "lb_confidence": draw(st.sampled_from(["low", "medium", "high"])),
        "lb_derived_from": draw(st.lists(one_line, max_size=2)),
        "lb_relates_to": [
            f"practice-rel-{s}" for s in draw(st.lists(slugs, max_size=2, unique=True))
        ],
        "lb_superseded_by": ["practice-successor"] if status == "superseded" else [],
        "lb_refuted_because": draw(one_line) if status == "refuted" else None,
        "lb_anchors": {
            "files": draw(
                st.lists(st.sampled_from(["src/**/*.py", "*.md", "a b/[x].txt"]), max_size=2)
            )
        },
        "lb_enforce": draw(st.sampled_from(["none", "warn", "ask", "deny"])),
        "body": draw(bodies),
        "extra": draw(
            st.dictionaries(
                st.sampled_from(["okf_author", "source", "x-other"]), one_line, max_size=2
            )
        ),
    }
    return Note.model_validate(data)


@settings(max_examples=150, deadline=None)
@given(note=notes())
def test_note_render_parse_round_trip(note: Note) -> None:
    text = render_note(note, None)
    parsed, links = parse_note(text, source="n.md")
    assert links is None
    assert parsed == note
    assert render_note(parsed, None) == text  # a rewrite changes no byte


def test_values_that_look_like_other_types_stay_strings() -> None:
    note = Note.model_validate(
        {
            "type": "practice",
            "title": "2024-01-01",
            "description": "no",
            "lb_id": "practice-x",
            "lb_kind": "gotcha",
            "tags": ["1.10", "yes"],
        }
    )
    parsed, _ = parse_note(render_note(note, None), source="n.md")
    assert parsed.title == "2024-01-01"
    assert parsed.description == "no"
    assert parsed.tags == ["1.10", "yes"]


def test_hand_written_dates_are_read_as_text() -> None:
    text = "---\ntype: practice\ntitle: 2024-01-01\ndescription: D\nlb_schema: 2\nlb_id: practice-x\nlb_kind: gotcha\n---\n"
    assert parse_note(text, source="n.md")[0].title == "2024-01-01"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("no frontmatter", "does not start with a '---'"),
        ("---\ntitle: x\n", "no closing '---'"),
        ("---\n- a list\n---\n", "not a mapping"),
        (
            "---\ntype: practice\ntitle: T\ndescription: D\nlb_id: practice-x\nlb_kind: gotcha\n---\n",
            "'lb_schema' is missing",
        ),
        (
            "---\ntype: practice\ntitle: T\ndescription: D\nlb_schema: 2\nlb_id: practice-x\nlb_kind: gotcha\nlb_status: superseded\n---\n",
            "lb_superseded_by is empty",
        ),
        (
            "---\ntype: practice\ntitle: T\ndescription: D\nlb_schema: 2\nlb_id: practice-x\nlb_kind: gotcha\nlb_relates_to: [practice-x]\n---\n",
            "names the note itself",
        ),
    ],
)
def test_invalid_notes_name_the_file_and_problem(text: str, message: str) -> None:
    with pytest.raises(NoteFormatError) as info:
        parse_note(text, source="nodes/x/practice-x.md")
    assert str(info.value).startswith("nodes/x/practice-x.md")
    assert message in str(info.value)
    assert "Value error" not in str(info.value)


def test_config_unknown_key_names_file_and_key() -> None:
    with pytest.raises(ConfigError) as info:
        parse_config("lb_schema: 2\nstorez: [markdown]\n", source=".lorebook/config.yaml")
    assert info.value.message == (
        ".lorebook/config.yaml: unknown key 'storez' (did you mean 'stores'?)"
    )
    with pytest.raises(ConfigError) as close:
        parse_config("budgets:\n  prompt_char: 3000\n", source=".lorebook/config.yaml")
    assert close.value.message == (
        ".lorebook/config.yaml: unknown key 'budgets.prompt_char' "
        "(did you mean 'budgets.prompt_chars'?)"
    )
    assert close.value.hint == "`lorebook schema config` describes every key"
    with pytest.raises(ConfigError) as nested:
        parse_config("budgets:\n  entry_chars: 10\n", source=".lorebook/config.yaml")
    assert "key 'budgets.entry_chars'" in str(nested.value)
    assert "(got 10)" in str(nested.value)


def test_config_rule_across_keys_is_said_in_its_own_words() -> None:
    with pytest.raises(ConfigError) as info:
        parse_config("rebalance:\n  min_notes: 900\n", source=".lorebook/config.yaml")
    assert info.value.message == (
        ".lorebook/config.yaml: key 'rebalance': min_notes (900) must be at most half of "
        "max_notes (40), or a split and a merge could undo each other"
    )


def test_config_round_trips() -> None:
    config = Config(harnesses=["claude"], stores=["markdown", "personal"])
    assert parse_config(render_config(config), source="c") == config


def test_bad_config_file_is_reported_by_every_command(kb_repo: Path, cli: CliRunner) -> None:
    config = kb_repo / ".lorebook/config.yaml"
    config.write_text(config.read_text() + "colour: blue\n")
    result = cli("lint", cwd=kb_repo)
    assert result.exit_code == 1
    assert ".lorebook/config.yaml: unknown key 'colour'" in result.stderr


@pytest.mark.parametrize(
    "name", ["config", "note", "session-log", "proposal", "curator-action", "conflict"]
)
def test_schema_command_prints_a_json_schema(cli: CliRunner, name: str, tmp_path: Path) -> None:
    result = cli("schema", name, cwd=tmp_path)
    assert result.exit_code == 0
    schema = json.loads(result.stdout)
    assert schema.get("type") == "object" or "oneOf" in schema or "discriminator" in schema


def test_note_schema_uses_frontmatter_names(cli: CliRunner, tmp_path: Path) -> None:
    props = json.loads(cli("schema", "note", cwd=tmp_path).stdout)["properties"]
    assert {"lb_id", "lb_kind", "lb_anchors", "title"} <= set(props)


def test_curator_actions_are_a_discriminated_union() -> None:
    note = {
        "type": "practice",
        "title": "T",
        "description": "D",
        "lb_id": "practice-x",
        "lb_kind": "gotcha",
    }
    batch = CuratorBatch.model_validate(
        {
            "actions": [
                {"action": "add", "proposal_id": "s:1", "note": note, "folder": "gotcha"},
                {"action": "drop", "proposal_id": "s:2", "reason": "noise"},
            ]
        }
    )
    assert [a.action for a in batch.actions] == ["add", "drop"]
    with pytest.raises(ValueError, match="does not match any of the expected tags"):
        CuratorBatch.model_validate({"actions": [{"action": "merge", "proposal_id": "s:3"}]})
